"""Corpus driver (kx's code): vLLM's chunked-prefill + paged-decode Triton attention (the
prefill rows go to context_attention_fwd, the decode rows to the paged decode kernel), on
a mixed varlen batch with attention sinks, bf16 and fp8 caches."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.v1.attention.ops.chunked_prefill_paged_decode import chunked_prefill_paged_decode  # noqa: E402

torch.manual_seed(0)
HQ, HKV, D, BLOCK, NBLOCKS = 64, 8, 64, 16, 2048
query_lens = [1, 1, 1, 1, 400, 1, 96]
ctx_lens = [4000, 17, 1023, 2900, 0, 511, 700]
seq_lens = [a + b for a, b in zip(query_lens, ctx_lens)]
T = sum(query_lens)
query_start_loc = torch.tensor([0] + query_lens, device="cuda").cumsum(0).to(torch.int32)
seq_lens_t = torch.tensor(seq_lens, device="cuda", dtype=torch.int32)
block_table = torch.randperm(NBLOCKS, device="cuda", dtype=torch.int32)[: 7 * 256].view(7, 256)
q = torch.randn(T, HQ, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(T, HKV, D, device="cuda", dtype=torch.bfloat16)
k_cache = torch.randn(NBLOCKS, HKV, D // 8, BLOCK, 8, device="cuda", dtype=torch.bfloat16)
v_cache = torch.randn(NBLOCKS, HKV, D, BLOCK, device="cuda", dtype=torch.bfloat16)
sinks = torch.randn(HQ, device="cuda", dtype=torch.float32)
one = torch.tensor(1.0, device="cuda")
o = torch.empty_like(q)
args = (query_start_loc, seq_lens_t, max(seq_lens), max(query_lens))
chunked_prefill_paged_decode(q, k, v, o, "auto", k_cache, v_cache, block_table, *args, one, one, sinks=sinks)
chunked_prefill_paged_decode(
    q, k, v, o, "auto", k_cache, v_cache, block_table, *args, one, one, sliding_window=128
)
fp8 = torch.float8_e4m3fn
scale = torch.tensor(0.05, device="cuda")
chunked_prefill_paged_decode(
    q, k, v, o, "fp8", k_cache.to(fp8), v_cache.to(fp8), block_table, *args, scale, scale
)
torch.cuda.synchronize()
print("vllm chunked prefill paged decode ok", tuple(o.shape))
