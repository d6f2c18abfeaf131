"""Corpus driver (kx's code): FlagAttention's Triton paged (vLLM-layout) decode attention,
flag_attn.paged_attention, as its test builds the inputs: random context lengths (max read
back with .item()), random block tables into a 1000-block fp16 KV cache. The host-side
split heuristic (SM count, max_context_len) picks the single-pass kernel or the
partitioned _paged_attn_kernel + _paged_attn_v2_reduce_kernel; _paged_attn_kernel's
@triton.heuristics sets num_warps / num_stages from the query-group and block sizes.
Cases: MHA 64 heads, head 128, 16-token blocks, 4096 context (partitioned); GQA group 8,
head 64, 128-token blocks, 512 context (single pass); GQA group 8 with num_splits=4."""

import flag_attn
import torch

torch.manual_seed(0)
NUM_BLOCKS = 1000


def paged(num_seqs, q_heads, group, head, block, max_seq, num_splits=0):
    kv_heads = q_heads // group
    context_lens = torch.randint(1, max_seq, (num_seqs,), device="cuda", dtype=torch.int32)
    context_lens[0] = max_seq
    max_context_len = context_lens.max().item()
    blocks_per_seq = (max_context_len + block - 1) // block
    scale = head**-0.5
    q = torch.empty(num_seqs, q_heads, head, device="cuda", dtype=torch.float16).uniform_(-scale, scale)
    k_cache = torch.empty(NUM_BLOCKS, kv_heads, block, head, device="cuda", dtype=torch.float16).uniform_(
        -scale, scale
    )
    v_cache = torch.empty_like(k_cache).uniform_(-scale, scale)
    block_tables = torch.randint(0, NUM_BLOCKS, (num_seqs, blocks_per_seq), device="cuda", dtype=torch.int32)
    return flag_attn.paged_attention(
        q,
        k_cache,
        v_cache,
        context_lens,
        block_tables,
        scale,
        max_context_len,
        num_splits,
    )


outs = [
    paged(32, 64, 1, 128, 16, 4096),
    paged(32, 64, 8, 64, 128, 512),
    paged(8, 32, 8, 128, 16, 2048, num_splits=4),
]
torch.cuda.synchronize()
print("flag_attn paged ok", [tuple(o.shape) for o in outs])
