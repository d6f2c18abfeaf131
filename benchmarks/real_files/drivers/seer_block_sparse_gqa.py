"""Corpus driver (kx's code): microsoft/SeerAttention's token-by-block sparse attention for packed
varlen GQA batches (seer_attn/kernels/varlen/block_sparse_attn_varlen_gqa.py:
block_1d_gqa_sparse_attn_varlen_func = _block_sparse_attn_varlen.apply, a torch.autograd.Function
over _fwd_kernel_varlen (one program per query token and KV head, the GQA group's query heads
stacked into a BLOCK_H tile, KV blocks skipped by a per-token block mask) and the backward
_bwd_preprocess_use_o / _bwd_dkdv / _bwd_dq, the kernels under @triton.autotune over num_warps
keyed on the group size and block shapes; the mask from get_sparse_attn_mask_from_threshold_
grouped), the 1-D (per-token) sparsity SeerAttention-R's gate predicts for decoding, applied to
a whole training sequence. Qwen3-like heads (32 query heads over 8 KV heads of 128, bf16) on 3
packed sequences (cu_seqlens; 2048 / 777 / 1500 tokens), block size 64: first a dense causal mask
(every block up to the token's own) checked against an SDPA reference in fp16, then soft gate
scores (random, causal) thresholded at 5e-3 into a sparse mask, forward + backward to q, k, v.
Exercises: `(cu_seqlens[1:] - cu_seqlens[:-1]).cpu()` host reads, BLOCK_H = max(16, group),
autotuned forward and backward kernels, GQA accumulation of dk / dv."""

import math

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("seer_attn")
S.bare_package("seer_attn.kernels")
S.bare_package("seer_attn.kernels.varlen")
from seer_attn.kernels.varlen.block_sparse_attn_varlen_gqa import (  # noqa: E402
    block_1d_gqa_sparse_attn_varlen_func,
    get_sparse_attn_mask_from_threshold_grouped,
)

torch.manual_seed(0)
dev = "cuda"
H, KVH, D = S.pick((32, 8, 128), (4, 2, 64))
BLOCK = S.pick(64, 16)
lens = S.pick([2048, 777, 1500], [20, 7])
bsz, total, max_seqlen = len(lens), sum(lens), max(lens)
nb = math.ceil(max_seqlen / BLOCK)
cu = torch.tensor([0] + lens, device=dev).cumsum(0).to(torch.int32)
groups = H // KVH
sm_scale = 1 / math.sqrt(D)


def causal_soft(s):
    tok_block = torch.arange(s, device=dev) // BLOCK
    allowed = torch.arange(math.ceil(s / BLOCK), device=dev)[None, :] <= tok_block[:, None]
    return allowed


# dense causal mask: every KV block up to the token's own
dense = get_sparse_attn_mask_from_threshold_grouped(
    [causal_soft(s)[None].expand(KVH, -1, -1).float() for s in lens], 0.5, max_seqlen, BLOCK
)
q, k, v = (torch.randn(total, h, D, device=dev, dtype=torch.float16) for h in (H, KVH, KVH))
out = block_1d_gqa_sparse_attn_varlen_func(q, k, v, cu, cu, max_seqlen, sm_scale, dense, BLOCK)
s0 = lens[0]
ref = F.scaled_dot_product_attention(
    q[:s0].transpose(0, 1)[None].float(),
    k[:s0].repeat_interleave(groups, 1).transpose(0, 1)[None].float(),
    v[:s0].repeat_interleave(groups, 1).transpose(0, 1)[None].float(),
    is_causal=True,
)[0].transpose(0, 1)
print("dense fp16", tuple(out.shape), "max err", round((out[:s0].float() - ref).abs().max().item(), 4))

# sparse: soft gate scores (random, causal, normalised per token) thresholded
soft = []
for s in lens:
    sc = torch.rand(KVH, s, math.ceil(s / BLOCK), device=dev).masked_fill(~causal_soft(s)[None], 0)
    sc[:, torch.arange(s, device=dev), torch.arange(s, device=dev) // BLOCK] = 1.0  # own block kept
    soft.append(sc / sc.sum(-1, keepdim=True))
mask = get_sparse_attn_mask_from_threshold_grouped(soft, 5e-3, max_seqlen, BLOCK)
for dt in S.pick((torch.bfloat16, torch.float16), (torch.float16,)):
    q, k, v = (torch.randn(total, h, D, device=dev, dtype=dt).requires_grad_() for h in (H, KVH, KVH))
    out = block_1d_gqa_sparse_attn_varlen_func(q, k, v, cu, cu, max_seqlen, sm_scale, mask, BLOCK)
    out.float().pow(2).mean().backward()
    print(dt, "sparse", round(mask.float().mean().item(), 3), tuple(q.grad.shape), tuple(k.grad.shape))
torch.cuda.synchronize()
print("seerattention block sparse gqa ok")
