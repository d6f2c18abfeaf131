"""Corpus driver (kx's code): Liger-Kernel fused lm_head + cross entropy (no logits kept)."""

import torch
from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction

torch.manual_seed(0)
BT, H, V = 4096, 4096, 128256
x = torch.randn(BT, H, device="cuda", dtype=torch.bfloat16, requires_grad=True)
weight = (torch.randn(V, H, device="cuda", dtype=torch.bfloat16) * 0.02).requires_grad_()
target = torch.randint(0, V, (BT,), device="cuda")
loss, _, _ = LigerFusedLinearCrossEntropyFunction.apply(x, weight, target)
loss.backward()
torch.cuda.synchronize()
print("liger fused_linear_cross_entropy ok", float(loss))
