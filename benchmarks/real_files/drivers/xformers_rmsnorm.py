"""Corpus driver (kx's code): xformers' Triton RMSNorm (rms_norm, and the fused residual
add + RMSNorm rms_norm_add, in place on the residual) for a decoder's hidden states."""

import _corpus_support
import torch

_corpus_support.xformers_ops_package()
from xformers.ops.rmsnorm import RMSNorm, rms_norm, rms_norm_add  # noqa: E402

torch.manual_seed(0)
T, H = 8192, 5120
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
w = torch.rand(H, device="cuda", dtype=torch.bfloat16)
y = rms_norm(x, w, 1e-5)
resid = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
y2 = rms_norm_add(resid, x, w, 1e-5)  # resid += x, then RMSNorm
y3 = RMSNorm(H, include_weight=False).to("cuda", torch.bfloat16)(x[:4])
torch.cuda.synchronize()
print("xformers rmsnorm ok", tuple(y.shape), tuple(y2.shape), tuple(y3.shape))
