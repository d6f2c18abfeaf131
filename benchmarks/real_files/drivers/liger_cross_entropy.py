"""Corpus driver (kx's code): Liger-Kernel cross entropy over a Llama-3 vocabulary."""

import torch
from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction

torch.manual_seed(0)
BT, V = 4096, 128256
logits = torch.randn(BT, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
target = torch.randint(0, V, (BT,), device="cuda")
target[:64] = -100  # padding, ignored
loss, z_loss, acc = LigerCrossEntropyFunction.apply(logits, target, None, -100, 1e-4, 0.1, "mean", None, True)
(loss + z_loss).backward()
torch.cuda.synchronize()
print("liger cross_entropy ok", float(loss))
