"""Corpus driver (kx's code): attention-gym's paged-attention decode latency benchmark
(examples/paged_attention/latency.py, `python3 latency.py --setting change_max_seq_len`): for
each attention type of its loop ("noop", "causal", "rel", "head_bias") torch._dynamo.reset(),
then its benchmark(): PagedAttention (examples/paged_attention/paged_attention.py) with pages
reserved round-robin for 5 rounds of sequence lengths (random_init_paged_attention; reserve()
reads the page table on the host), a block mask (gen_offset for "causal", noop_mask otherwise)
converted to the paged layout (convert_logical_block_mask) and the score mod (relative / head
bias) wrapped by get_score_mod(); then benchmark_layer(): NonPagedAttentionLayer and
PagedAttentionLayer (examples/paged_attention/model.py: QKV projection, RoPE, the KV cache update
-- PagedAttention.assign for the paged one -- and flex_attention decoding one token) each
torch.compile(fullgraph=True), 10 warm-up calls under no_grad and Inductor's
benchmarker.benchmark_gpu. Sizes: the script's n_heads 16, head_dim 64, page size 128, bf16,
with batch 8 and max_seq_len 2048 (its smallest setting is batch 32, 2048 ... 32768)."""

import _corpus_support  # noqa: F401
import latency  # noqa: E402
import torch

n_heads, head_dim = 16, 64
for attn_type in ["noop", "causal", "rel", "head_bias"]:
    print(f"\nattn_type:{attn_type}")
    torch._dynamo.reset()
    latency.benchmark(attn_type, 128, 8, 2048, n_heads, head_dim)
torch.cuda.synchronize()
print("attention-gym paged decode ok")
