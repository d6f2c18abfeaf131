"""Corpus driver (kx's code): Liger-Kernel rotary embedding (GQA: 32 q heads, 8 kv heads)."""

import torch
from liger_kernel.ops.rope import LigerRopeFunction

torch.manual_seed(0)
B, T, HQ, HKV, D = 2, 2048, 32, 8, 128
q = torch.randn(B, HQ, T, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(B, HKV, T, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
inv_freq = 1.0 / (500000.0 ** (torch.arange(0, D, 2, device="cuda", dtype=torch.float32) / D))
freqs = torch.outer(torch.arange(T, device="cuda", dtype=torch.float32), inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)[None]  # (1, T, D)
cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
q_out, k_out = LigerRopeFunction.apply(q, k, cos, sin)
(q_out.float().sum() + k_out.float().sum()).backward()
torch.cuda.synchronize()
print("liger rope ok", tuple(q_out.shape), tuple(k_out.shape))
