"""Corpus driver (kx's code): Liger-Kernel SwiGLU (silu(a) * b), forward + backward."""

import torch
from liger_kernel.ops.swiglu import LigerSiLUMulFunction

torch.manual_seed(0)
a = torch.randn(4, 2048, 14336, device="cuda", dtype=torch.bfloat16, requires_grad=True)
b = torch.randn(4, 2048, 14336, device="cuda", dtype=torch.bfloat16, requires_grad=True)
c = LigerSiLUMulFunction.apply(a, b)
c.backward(torch.randn_like(c))
torch.cuda.synchronize()
print("liger swiglu ok", tuple(c.shape))
