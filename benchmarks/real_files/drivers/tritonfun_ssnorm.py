"""Corpus driver (kx's code): GiftedNovaHD/triton-fun's single-scale RMSNorm (ops/ssnorm.py: the
SSNorm module of Outlier-Safe Pre-Training, one shared scale g for all channels, whose CUDA path
is SSNormTriton: a fused residual-add + L2-normalize forward kernel, a backward kernel that writes
per-row partial dg into buckets, and a reduction kernel for them) used as a pre-norm and as a
post-norm (prenorm=False) in bf16; forward and backward checked against PyTorch."""

import _corpus15_support as S
import torch
import torch.nn.functional as F
from ops.ssnorm import SSNorm

torch.manual_seed(0)
dev = "cuda"
dtype = S.pick(torch.bfloat16, torch.float32)
B, T, D = S.pick((8, 1024, 2048), (2, 8, 64))
tol = S.pick(3e-2, 1e-4)


def reference(x, res, g, eps, prenorm):
    u = x.float() + res.float()
    y = F.normalize(u, p=2, dim=-1, eps=eps) * D**0.5 * (g.float() + 1)
    return (y.to(x.dtype), u.to(x.dtype)) if prenorm else y.to(x.dtype)


for prenorm in (True, False):
    norm = SSNorm(D).to(dev)
    with torch.no_grad():
        norm.g.fill_(0.25)
    x = torch.randn(B, T, D, device=dev, dtype=dtype, requires_grad=True)
    res = torch.randn(B, T, D, device=dev, dtype=dtype, requires_grad=True)
    gy = torch.randn(B, T, D, device=dev, dtype=dtype)
    gr = torch.randn(B, T, D, device=dev, dtype=dtype)

    xr = x.detach().clone().requires_grad_(True)
    rr = res.detach().clone().requires_grad_(True)
    g_ref = norm.g.detach().clone().requires_grad_(True)

    out = norm(x, residual=res, prenorm=prenorm)
    ref = reference(xr, rr, g_ref, norm.eps, prenorm)
    if prenorm:
        ((out[0].float() * gy.float()).sum() + (out[1].float() * gr.float()).sum()).backward()
        ((ref[0].float() * gy.float()).sum() + (ref[1].float() * gr.float()).sum()).backward()
        pairs = [(out[0], ref[0]), (out[1], ref[1])]
    else:
        (out.float() * gy.float()).sum().backward()
        (ref.float() * gy.float()).sum().backward()
        pairs = [(out, ref)]
    pairs += [(x.grad, xr.grad), (res.grad, rr.grad), (norm.g.grad, g_ref.grad)]
    errs = [S.rel_err(a.float(), b.float()) for a, b in pairs]
    print(f"prenorm {prenorm}: rel err " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

torch.cuda.synchronize()
print("tritonfun_ssnorm ok")
