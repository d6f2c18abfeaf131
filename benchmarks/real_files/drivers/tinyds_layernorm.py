"""Corpus driver (kx's code): liangyuwang/Tiny-DeepSpeed's fused LayerNorm
(tiny_deepspeed/core/module/normalization.py: LayerNorm, an nn.LayerNorm subclass whose forward
goes through an autograd.Function built from forward / backward callbacks, into
core/module/ops/layernorm.py's Triton kernels: the fused forward, the fused dx backward that
accumulates partial dw / db per row group under an atomic spin lock (GROUP_SIZE_M by width), and
the dw / db reduction kernel; the accumulation and output dtypes are passed to the kernels as
tl.dtype arguments) at GPT-2 widths in fp32 and fp16 over (batch, sequence) inputs; forward and
backward checked against torch's layer_norm."""

import _corpus15_support as S
import torch
import torch.nn.functional as F
from tiny_deepspeed.core.module import LayerNorm

torch.manual_seed(0)
dev = "cuda"
B, T = S.pick((8, 1024), (2, 8))
CASES = S.pick(
    ((768, torch.float32), (1600, torch.float32), (4096, torch.float16), (8192, torch.float16)),
    ((64, torch.float32), (200, torch.float32)),
)

for D, dtype in CASES:
    ln = LayerNorm(D, device=dev, dtype=dtype)
    with torch.no_grad():
        ln.weight.normal_(1.0, 0.1)
        ln.bias.normal_(0.0, 0.1)
    x = torch.randn(B, T, D, device=dev, dtype=dtype, requires_grad=True)
    dy = torch.randn(B, T, D, device=dev, dtype=dtype)
    y = ln(x)
    y.backward(dy)

    xr = x.detach().float().requires_grad_(True)
    wr = ln.weight.detach().float().requires_grad_(True)
    br = ln.bias.detach().float().requires_grad_(True)
    yr = F.layer_norm(xr, (D,), wr, br, ln.eps)
    yr.backward(dy.float())
    errs = [
        S.rel_err(a.float(), b)
        for a, b in ((y, yr), (x.grad, xr.grad), (ln.weight.grad, wr.grad), (ln.bias.grad, br.grad))
    ]
    print(f"D {D} {dtype}: rel err y / dx / dw / db " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < (1e-2 if dtype == torch.float16 else 1e-4), errs

torch.cuda.synchronize()
print("tinyds_layernorm ok")
