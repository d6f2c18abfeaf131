"""Corpus driver (kx's code): unsloth's fast RoPE on Q and K (Llama layout B, H, T, D).

See unsloth_rms_layernorm.py for how the module is imported without unsloth's __init__.
"""

import _corpus_support
import torch

_corpus_support.unsloth_kernels()
from unsloth.kernels.rope_embedding import fast_rope_embedding  # noqa: E402

torch.manual_seed(0)
B, T, HQ, HKV, D = 2, 2048, 32, 8, 128
Q = torch.randn(B, HQ, T, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
K = torch.randn(B, HKV, T, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
inv_freq = 1.0 / (10000.0 ** (torch.arange(0, D, 2, device="cuda", dtype=torch.float32) / D))
freqs = torch.outer(torch.arange(T, device="cuda", dtype=torch.float32), inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)
cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
Q2, K2 = fast_rope_embedding(Q, K, cos, sin)
(Q2.float().sum() + K2.float().sum()).backward()
torch.cuda.synchronize()
print("unsloth rope ok", tuple(Q2.shape), tuple(K2.shape))
