"""Corpus driver (kx's code): kakaobrain/trident's Triton layer norm (trident/kernel/layer_norm.py:
LayerNorm.forward (one program per row, autotuned over block sizes keyed on the row length,
mean and rstd written for backward), backward (input gradient) and backward_weight_bias (the
weight / bias gradient reduced over rows by a second autotuned kernel) through trident.LayerNorm
-> operation.LayerNorm) as a transformer's pre-norm: bf16 8 x 1024 tokens x d 2048 forward +
backward, then fp32 on 3 x 999 x 1536 and a row length that is not a power of two (d 5120),
vs torch.nn.functional.layer_norm in fp32."""

import _corpus12_support as S
import torch

trident = S.import_trident()

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [(8, 1024, 2048, torch.bfloat16), (3, 999, 1536, torch.float32), (2, 256, 5120, torch.float32)],
    [(2, 8, 64, torch.bfloat16), (3, 5, 96, torch.float32), (1, 4, 160, torch.float32)],
)

for b, t, d, dt in CASES:
    norm = trident.LayerNorm((d,), device=dev, dtype=dt)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    x = (torch.randn(b, t, d, device=dev) * 2 + 0.3).to(dt).requires_grad_()
    y = norm(x)
    dy = torch.randn_like(y)
    params = [x, norm.weight, norm.bias]
    grads = torch.autograd.grad(y, params, dy)

    rp = [p.detach().float().requires_grad_() for p in params]
    ry = torch.nn.functional.layer_norm(rp[0], (d,), rp[1], rp[2], norm.eps)
    rgrads = torch.autograd.grad(ry, rp, dy.float())
    print(
        f"{b}x{t}x{d} {dt}",
        f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("trident_layer_norm ok")
