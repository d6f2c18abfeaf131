"""Corpus driver (kx's code): kakaobrain/trident's Triton batch norm (trident/kernel/batch_norm.py:
BatchNorm.forward (one program per channel reducing over batch x spatial, autotuned over block
sizes keyed on that size, the running mean / variance updated in the kernel with the momentum)
and BatchNorm.backward (input, weight and bias gradients per channel) through
trident.BatchNorm2d -> trident.function.batch_norm -> operation.BatchNorm) as a ResNet stage's
norm in training mode: fp32 32 x 256 channels x 28 x 28 forward + backward for 3 steps (the
running statistics carried), then 16 x 64 x 56 x 56 and 8 x 512 x 7 x 7 (a reduction size that
is not a power of two), vs torch.nn.functional.batch_norm (training=True) in fp32, running
statistics included."""

import _corpus12_support as S
import torch

trident = S.import_trident()

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [(32, 256, 28, 28, 3), (16, 64, 56, 56, 1), (8, 512, 7, 7, 1)], [(4, 8, 4, 4, 2), (2, 6, 3, 5, 1)]
)

for b, c, h, w, steps in CASES:
    bn = trident.BatchNorm2d(c, device=dev, dtype=torch.float32)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
    r_mean, r_var = bn.running_mean.clone(), bn.running_var.clone()
    for step in range(steps):
        x = (torch.randn(b, c, h, w, device=dev) * 2 + 0.5).requires_grad_()
        y = bn(x)
        dy = torch.randn_like(y)
        params = [x, bn.weight, bn.bias]
        grads = torch.autograd.grad(y, params, dy)

        rp = [p.detach().requires_grad_() for p in params]
        ry = torch.nn.functional.batch_norm(rp[0], r_mean, r_var, rp[1], rp[2], True, bn.momentum, bn.eps)
        rgrads = torch.autograd.grad(ry, rp, dy)
    print(
        f"{b}x{c}x{h}x{w} x{steps} steps",
        f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
        f"running mean {S.rel_err(bn.running_mean, r_mean):.1e} var {S.rel_err(bn.running_var, r_var):.1e}",
    )
torch.cuda.synchronize()
print("trident_batch_norm ok")
