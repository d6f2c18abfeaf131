"""Corpus driver (kx's code): Liger-Kernel LayerNorm, forward + backward."""

import torch
from liger_kernel.ops.layer_norm import LigerLayerNormFunction

torch.manual_seed(0)
x = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
b = torch.zeros(4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = LigerLayerNormFunction.apply(x, w, b, 1e-5)
y.backward(torch.randn_like(y))
torch.cuda.synchronize()
print("liger layer_norm ok", tuple(y.shape))
