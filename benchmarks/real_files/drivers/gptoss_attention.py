"""Corpus driver (kx's code): gpt-oss's Triton attention (gpt_oss/triton/attention.py: FlashAttention-2
with learned attention sinks and banded (sliding-window) attention, Q/K/V/O through host-side
TensorDescriptors (TMA), the query start read from a device tensor), called as gpt-oss's Triton
model calls it (gpt_oss/triton/model.py AttentionBlock.forward: q viewed (batch, n_ctx,
q-per-kv, kv_heads, 64), K/V the whole KV cache of the Cache class (zeros past the offset),
sinks a bf16 parameter per head, sm_scale 1/8, sliding_window 128 on even layers and 0 on odd
ones, start_q the cache offset tensor). gpt-oss-20b's attention shape: 64 query heads, 8 KV
heads, head_dim 64, bf16; a 4096-token cache. Calls: the prefill of a 1000-token prompt (offset
0) on a sliding and a full layer, batch 1 and 2; a second 512-token chunk at offset 1000 (start_q
> 0: the banded loop's lower bound moves); and a 100-token prompt (padded to the 64 block inside). Prompts shorter than 64 tokens are not
run: for them the model compares the kernel with attention_ref (torch.testing.assert_close) and
keeps the reference, and whether that check passes could not be told on the CPU (the Triton
interpreter's results differ from attention_ref even for upstream's own test_eq cases). pytest is stood in where absent
(gptoss_triton_attention())."""

import math

import _corpus_support
import torch

_corpus_support.gptoss_triton_attention()
from gpt_oss.triton.attention import attention  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
n_heads, n_kv_heads, head_dim, cache_len = 64, 8, 64, 4096
sm_scale = 1 / math.sqrt(head_dim)
sinks = torch.randn(n_heads, device=dev, dtype=torch.bfloat16)


def block(batch, n_ctx, offset, sliding_window, k_cache, v_cache):
    q = torch.randn(
        batch, n_ctx, n_heads // n_kv_heads, n_kv_heads, head_dim, device=dev, dtype=torch.bfloat16
    )
    # Cache.extend: the new keys / values written at [offset, offset + n_ctx)
    idx = torch.arange(0, n_ctx, device=dev, dtype=torch.long) + offset
    k_cache.index_copy_(
        1, idx, torch.randn(batch, n_ctx, n_kv_heads, head_dim, device=dev, dtype=torch.bfloat16)
    )
    v_cache.index_copy_(
        1, idx, torch.randn(batch, n_ctx, n_kv_heads, head_dim, device=dev, dtype=torch.bfloat16)
    )
    t = attention(q, k_cache, v_cache, sinks, sm_scale, sliding_window, offset)
    offset.add_(n_ctx)
    return t


outs = []
for batch in (1, 2):
    for sliding_window in (128, 0):
        k_cache = torch.zeros(batch, cache_len, n_kv_heads, head_dim, device=dev, dtype=torch.bfloat16)
        v_cache = torch.zeros_like(k_cache)
        offset = torch.zeros((1,), dtype=torch.long, device=dev)
        outs.append(block(batch, 1000, offset, sliding_window, k_cache, v_cache))
        outs.append(block(batch, 512, offset, sliding_window, k_cache, v_cache))
for n_ctx in (100,):
    k_cache = torch.zeros(1, cache_len, n_kv_heads, head_dim, device=dev, dtype=torch.bfloat16)
    v_cache = torch.zeros_like(k_cache)
    offset = torch.zeros((1,), dtype=torch.long, device=dev)
    outs.append(block(1, n_ctx, offset, 128, k_cache, v_cache))
torch.cuda.synchronize()
print("gpt-oss attention ok", [tuple(o.shape) for o in outs[:2]], tuple(outs[-1].shape), int(offset))
