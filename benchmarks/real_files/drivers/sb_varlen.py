"""Corpus driver (kx's code): shawntan/stickbreaking-attention's variable-length stick-breaking
attention (stickbreaking_attention/sb_varlen: sb_attn_varlen, the counterpart of
flash_attn_varlen_func, README "Variable Length Attention") as its README and tests/test_varlen.py
call it: q, k, v of shape (heads, total_length, head_dim) for a packed batch of documents,
cu_seqlens = cumsum(lengths), max_seqlens, zero_start=False, o + rem[..., None] * v, then the
backward of a random output gradient. Inside: varlen_fwd / varlen_bwd (the autotuned _forward /
_backward Triton kernels; the backward accumulates dK/dV across row blocks with a spin lock,
locked_add) reached through stickbreaking's custom_op wrapper (eager here: the plain functions;
calculate_programs_needed builds the program offsets on the device). bf16, 8 and 12 heads of 64
and 128, documents of lengths 1000/3000/517/2048 and 256 x 4, attend_current False and True."""

import math

import torch
from stickbreaking_attention.sb_varlen import sb_attn_varlen

torch.manual_seed(1337)
for num_heads, head_dim, lengths, attend_current in [
    (8, 64, [1000, 3000, 517, 2048], False),
    (12, 128, [256, 256, 256, 256], True),
    (8, 64, [4096], True),
]:
    lengths = torch.tensor(lengths, device="cuda")
    total_length = int(lengths.sum())
    input_dims = (num_heads, total_length, head_dim)
    v = 0.25 * torch.randn(input_dims, device="cuda")
    q = 0.25 * (torch.randn(input_dims, device="cuda") + 1)
    k = 0.25 * (torch.randn(input_dims, device="cuda") - 1)
    q, k, v = (t.to(torch.bfloat16).requires_grad_() for t in (q, k, v))
    do = torch.randn(input_dims, device="cuda", dtype=torch.bfloat16)
    cu_seqlens = torch.cumsum(lengths, dim=-1)
    o, rem = sb_attn_varlen(
        q,
        k,
        v,
        inv_temp=1 / math.sqrt(q.size(-1)),
        cu_seqlens=cu_seqlens,
        max_seqlens=int(lengths.max()),
        zero_start=False,
        attend_current=attend_current,
    )
    o = o + rem[..., None] * v
    o.backward(do)
    print(num_heads, head_dim, lengths.tolist(), attend_current, tuple(o.shape), q.grad.abs().max().item())
torch.cuda.synchronize()
print("stickbreaking varlen ok")
