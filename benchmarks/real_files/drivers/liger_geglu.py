"""Corpus driver (kx's code): Liger-Kernel GeGLU (gelu_tanh(a) * b), forward + backward."""

import torch
from liger_kernel.ops.geglu import LigerGELUMulFunction

torch.manual_seed(0)
a = torch.randn(4, 2048, 16384, device="cuda", dtype=torch.bfloat16, requires_grad=True)
b = torch.randn(4, 2048, 16384, device="cuda", dtype=torch.bfloat16, requires_grad=True)
c = LigerGELUMulFunction.apply(a, b)
c.backward(torch.randn_like(c))
torch.cuda.synchronize()
print("liger geglu ok", tuple(c.shape))
