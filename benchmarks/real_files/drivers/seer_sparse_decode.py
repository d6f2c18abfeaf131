"""Corpus driver (kx's code): microsoft/SeerAttention's block-sparse flash-decoding kernel for
left-padded batches (seer_attn/kernels/varlen/block_sparse_flash_decode_varlen_mask_leftpad.py:
block_sparse_flash_decode_leftpad_gqa_mask, a split-KV _split_kernel that skips the KV blocks
whose mask bit is off, then _merge_kernel over the splits' log-sum-exps, both under
@triton.autotune over num_warps x num_stages; the split count from kernels/varlen/utils.py's
num_splits_heuristic) in a token-by-token decode loop, called as
seer_attn/decode_sparse/attention_forward_sparse.py calls it for SeerAttention-R decoding
(query [batch, heads, dim], left-padded K / V caches [batch, max_len, kv_heads, dim],
cache_seqlens, a [batch, kv_heads, blocks] block mask, first_block_unmasked=True). Qwen3-8B-like
attention shapes (32 query heads over 8 KV heads of 128, bf16), 8 sequences of 1000 .. 8000
cached tokens left-padded to the longest, block size 64; each of 32 steps appends one token's K /
V, grows cache_seqlens and picks blocks with a stand-in for the learned AttnGate (kx's code:
block-pooled keys scored against the grouped query, top-k under a 2048-token budget plus the
newest block, as the token-budget mode does), so the mask and the split count change as the
caches cross block boundaries. A dense mask (every block on) is checked against an SDPA-style
reference first, in fp16 and bf16. A decode-style loop of Triton launches."""

import math

import _corpus7_support as S
import torch
import torch.nn.functional as F

# the module imports einops at top level for its reference programs only: a stand-in here
S.stub_module("einops", rearrange=S._unavailable("einops.rearrange"), einsum=S._unavailable("einops.einsum"))
S.bare_package("seer_attn")
S.bare_package("seer_attn.kernels")
S.bare_package("seer_attn.kernels.varlen")
from seer_attn.kernels.varlen.block_sparse_flash_decode_varlen_mask_leftpad import (  # noqa: E402
    block_sparse_flash_decode_leftpad_gqa_mask,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, H, KVH, D = S.pick((8, 32, 8, 128), (2, 4, 2, 32))
BLOCK = S.pick(64, 16)
lens = S.pick([8000, 1000, 4096, 2500, 7777, 64, 3000, 6001], [50, 23])
budget = S.pick(2048, 32)
steps = S.pick(32, 3)
L = max(lens)
cache_seqlens = torch.tensor(lens, device=dev, dtype=torch.int32)
k_cache = torch.randn(B, L, KVH, D, device=dev, dtype=dt)
v_cache = torch.randn(B, L, KVH, D, device=dev, dtype=dt)
pad = (L - cache_seqlens).long()
valid = torch.arange(L, device=dev)[None, :] >= pad[:, None]  # left padding
k_cache *= valid[:, :, None, None]
v_cache *= valid[:, :, None, None]


def reference(q, k, v, valid):
    g = H // KVH
    k, v = (
        k.repeat_interleave(g, 2).transpose(1, 2).float(),
        v.repeat_interleave(g, 2).transpose(1, 2).float(),
    )
    s = (q.float()[:, :, None] @ k.transpose(-1, -2)).squeeze(2) / math.sqrt(D)
    s = s.masked_fill(~valid[:, None], float("-inf"))
    return (s.softmax(-1)[:, :, None] @ v).squeeze(2)


nb = (L + BLOCK - 1) // BLOCK
dense = torch.ones(B, KVH, nb, device=dev, dtype=torch.bool)
for cdt in (torch.float16, dt):
    q = torch.randn(B, H, D, device=dev, dtype=cdt)
    kc, vc = k_cache.to(cdt), v_cache.to(cdt)
    out = block_sparse_flash_decode_leftpad_gqa_mask(q, kc, vc, cache_seqlens, dense, block_size=BLOCK)
    err = (out.float() - reference(q, kc, vc, valid)).abs().max().item()
    print("dense", cdt, tuple(out.shape), "max err", round(err, 4))


def gate(q, k_cache, valid):
    """Stand-in for AttnGate: block-pooled keys scored against the grouped query."""
    nb = (k_cache.shape[1] + BLOCK - 1) // BLOCK
    padded = F.pad(k_cache.float(), (0, 0, 0, 0, 0, nb * BLOCK - k_cache.shape[1]))
    vm = F.pad(valid, (0, nb * BLOCK - valid.shape[1])).float()
    pooled = (padded * vm[:, :, None, None]).view(B, nb, BLOCK, KVH, D).sum(2)
    pooled = pooled / vm.view(B, nb, BLOCK).sum(2).clamp(min=1)[:, :, None, None]
    qg = q.float().view(B, KVH, H // KVH, D).mean(2)
    scores = torch.einsum("bhd,bnhd->bhn", qg, pooled)
    has_tokens = vm.view(B, nb, BLOCK).sum(2) > 0
    scores = scores.masked_fill(~has_tokens[:, None], float("-inf"))
    k = min(budget // BLOCK, nb)
    mask = torch.zeros(B, KVH, nb, device=dev, dtype=torch.bool)
    mask.scatter_(2, scores.topk(k, dim=-1).indices, True)
    mask[:, :, -1] = True  # the newest block
    return mask & has_tokens[:, None]


for step in range(steps):
    k_new = torch.randn(B, 1, KVH, D, device=dev, dtype=dt)
    v_new = torch.randn(B, 1, KVH, D, device=dev, dtype=dt)
    k_cache = torch.cat([k_cache, k_new], 1)
    v_cache = torch.cat([v_cache, v_new], 1)
    valid = torch.cat([valid, torch.ones(B, 1, device=dev, dtype=torch.bool)], 1)
    cache_seqlens += 1
    q = torch.randn(B, H, D, device=dev, dtype=dt)
    mask = gate(q, k_cache, valid)
    out = block_sparse_flash_decode_leftpad_gqa_mask(
        q, k_cache, v_cache, cache_seqlens, mask, block_size=BLOCK, first_block_unmasked=True
    )
    if step % 8 == 0:
        print("step", step, "cache", k_cache.shape[1], "blocks on", round(mask.float().mean().item(), 3))
torch.cuda.synchronize()
print("seerattention sparse decode ok", tuple(out.shape), cache_seqlens.tolist()[:4])
