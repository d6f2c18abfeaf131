"""Corpus driver (kx's code): Liger-Kernel RMSNorm, forward + backward, Llama-8B-sized."""

import torch
from liger_kernel.ops.rms_norm import LigerRMSNormFunction

torch.manual_seed(0)
x = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = LigerRMSNormFunction.apply(x, w, 1e-6)
y.backward(torch.randn_like(y))
# Gemma-style: offset 1.0, everything cast to fp32
y2 = LigerRMSNormFunction.apply(x, w, 1e-6, 1.0, "gemma", False)
y2.backward(torch.randn_like(y2))
torch.cuda.synchronize()
print("liger rms_norm ok", tuple(y.shape), x.grad.dtype)
