"""Corpus driver (kx's code): mamba_ssm's Triton LayerNorm/RMSNorm (LayerNormFn
autograd.Function, autotuned; plain launches, unlike flash-attention's triton_op copy of the
same kernels) with residual add, dropout seeded per row by torch.randint, prenorm and
rowscale, forward and backward."""

import _corpus_support
import torch

_corpus_support.mamba_package()
from mamba_ssm.ops.triton.layer_norm import layer_norm_fn, rms_norm_fn  # noqa: E402

torch.manual_seed(0)
T, H = 8192, 2560
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
res = torch.randn(T, H, device="cuda", dtype=torch.float32, requires_grad=True)
w = torch.ones(H, device="cuda", dtype=torch.float32, requires_grad=True)
b = torch.zeros(H, device="cuda", dtype=torch.float32, requires_grad=True)
y, r = rms_norm_fn(x, w, None, residual=res, prenorm=True, residual_in_fp32=True, eps=1e-5)
(y.float().sum() + r.sum()).backward()
rowscale = torch.rand(T, device="cuda", dtype=torch.float32)
y2 = layer_norm_fn(x, w, b, dropout_p=0.1, rowscale=rowscale)
y2.float().sum().backward()
torch.cuda.synchronize()
print("mamba_ssm layer_norm ok", tuple(y.shape), tuple(y2.shape))
