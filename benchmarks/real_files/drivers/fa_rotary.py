"""Corpus driver (kx's code): flash-attention's Triton rotary embedding (ApplyRotaryEmb
autograd.Function over apply_rotary): batched with per-sequence KV-cache offsets, varlen
packed with cu_seqlens / max_seqlen, interleaved (GPT-J) and partial rotary_dim, forward
and backward."""

import _corpus_support
import torch

_corpus_support.flash_attn_package()
from flash_attn.layers.rotary import apply_rotary_emb  # noqa: E402

torch.manual_seed(0)
B, T, H, D, MAXPOS = 4, 1024, 32, 128, 8192
inv = 1.0 / 10000 ** (torch.arange(0, D, 2, device="cuda", dtype=torch.float32) / D)
freqs = torch.outer(torch.arange(MAXPOS, device="cuda", dtype=torch.float32), inv)
cos, sin = freqs.cos().to(torch.bfloat16), freqs.sin().to(torch.bfloat16)
x = torch.randn(B, T, H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
offsets = torch.tensor([0, 17, 4096, 100], device="cuda", dtype=torch.int32)
y = apply_rotary_emb(x, cos, sin, seqlen_offsets=offsets)
y.float().sum().backward()

lens = [700, 1, 2048, 333]
cu = torch.tensor([0] + lens, device="cuda").cumsum(0).to(torch.int32)
xp = torch.randn(sum(lens), H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
yp = apply_rotary_emb(xp, cos, sin, cu_seqlens=cu, max_seqlen=max(lens))
yp.float().sum().backward()
yi = apply_rotary_emb(x.detach(), cos[:, :32], sin[:, :32], interleaved=True, inplace=True)  # rotary_dim 64
torch.cuda.synchronize()
print("flash_attn rotary ok", tuple(y.shape), tuple(yp.shape), tuple(yi.shape))
