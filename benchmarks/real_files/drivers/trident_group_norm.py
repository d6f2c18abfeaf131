"""Corpus driver (kx's code): kakaobrain/trident's Triton group norm (trident/kernel/group_norm.py:
GroupNorm.forward (one program per (batch, group), autotuned over block sizes keyed on the group
size, mean / rstd saved), backward and the weight / bias reduction kernels, through
trident.GroupNorm -> operation.GroupNorm) as a diffusion UNet's norm (32 groups): fp32
8 x 256 channels x 32 x 32 feature maps forward + backward, then 4 x 512 x 16 x 16 and a
16-group layer on 2 x 96 x 30 x 30 (a spatial size that is not a power of two), vs
torch.nn.functional.group_norm in fp32."""

import _corpus12_support as S
import torch

trident = S.import_trident()

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [(8, 256, 32, 32, 32), (4, 512, 16, 16, 32), (2, 96, 30, 30, 16)],
    [(2, 8, 4, 4, 4), (2, 12, 3, 5, 3)],
)

for b, c, h, w, groups in CASES:
    norm = trident.GroupNorm(groups, c, device=dev, dtype=torch.float32)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    x = (torch.randn(b, c, h, w, device=dev) * 1.5 + 0.2).requires_grad_()
    y = norm(x)
    dy = torch.randn_like(y)
    params = [x, norm.weight, norm.bias]
    grads = torch.autograd.grad(y, params, dy)

    rp = [p.detach().float().requires_grad_() for p in params]
    ry = torch.nn.functional.group_norm(rp[0], groups, rp[1], rp[2], norm.eps)
    rgrads = torch.autograd.grad(ry, rp, dy)
    print(
        f"{b}x{c}x{h}x{w} groups={groups}",
        f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("trident_group_norm ok")
