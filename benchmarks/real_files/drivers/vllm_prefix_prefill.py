"""Corpus driver (kx's code): vLLM's Triton prefix-prefill attention (context_attention_fwd)
over a paged cache in the [blocks, kv_heads, D/8, block, 8] layout made by permute: bf16,
an fp8 cache with scales, a sliding window, and ALiBi."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.v1.attention.ops.prefix_prefill import context_attention_fwd  # noqa: E402

torch.manual_seed(0)
HQ, HKV, D, BLOCK, NBLOCKS = 32, 8, 128, 16, 1024
query_lens = [300, 17, 1024, 1, 511]
ctx_lens = [1000, 64, 16, 2047, 333]
seq_lens = [a + b for a, b in zip(query_lens, ctx_lens)]
T = sum(query_lens)
b_start_loc = torch.tensor([0] + query_lens, device="cuda").cumsum(0).to(torch.int32)
b_seq_len = torch.tensor(seq_lens, device="cuda", dtype=torch.int32)
block_table = torch.randperm(NBLOCKS, device="cuda", dtype=torch.int32)[: 5 * 160].view(5, 160)
q = torch.randn(T, HQ, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
k_cache = (
    torch.randn(NBLOCKS, BLOCK, HKV, D // 8, 8, device="cuda", dtype=torch.bfloat16)
    .permute(0, 2, 3, 1, 4)
    .contiguous()
)
v_cache = (
    torch.randn(NBLOCKS, BLOCK, HKV, D, device="cuda", dtype=torch.bfloat16).permute(0, 2, 3, 1).contiguous()
)
one = torch.tensor(1.0, device="cuda")
o = torch.empty_like(q)

args = (b_start_loc, b_seq_len, max(seq_lens), max(query_lens))
context_attention_fwd(q, k, v, o, "auto", k_cache, v_cache, block_table, *args, one, one)
context_attention_fwd(q, k, v, o, "auto", k_cache, v_cache, block_table, *args, one, one, sliding_window=512)
fp8 = torch.float8_e4m3fn
scale = torch.tensor(0.05, device="cuda")
context_attention_fwd(q, k, v, o, "fp8", k_cache.to(fp8), v_cache.to(fp8), block_table, *args, scale, scale)
slopes = torch.exp2(-torch.arange(1, HQ + 1, device="cuda", dtype=torch.float32) * 8 / HQ)
context_attention_fwd(q, k, v, o, "auto", k_cache, v_cache, block_table, *args, one, one, alibi_slopes=slopes)
torch.cuda.synchronize()
print("vllm prefix prefill ok", tuple(o.shape))
