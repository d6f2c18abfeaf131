"""Corpus driver (kx's code): hpcaitech/ColossalAI's prefill attention over unpadded sequences
(colossalai/kernel/triton/context_attn_unpad.py: context_attention_unpadded, which also writes
each sequence's K / V into the blocked (paged) KV cache) called as colossalai/inference's
TritonAttentionBackend.prefill and CudaAttentionBackend.prefill (the new K-cache layout) call it,
followed by copy_kv_to_blocked_cache / copy_k_to_blocked_cache (kvcache_copy.py) for one decoding
token as the decode path does. A batch of 8 packed prompts of uneven lengths (1 .. 1000 tokens),
block size 32, shuffled block tables; four modes: Llama-7B-like MHA (32 heads of 128, fp16),
GQA (32 query heads over 8 KV heads, bf16), ALiBi (Baichuan-13B-like: 40 heads of 128 with
get_alibi_slopes' slopes, _alibi_fwd_context_paged_attention_kernel) and the new K-cache layout
(use_new_kcache_layout=True: K cache [blocks, kv_heads, head_dim // x, block, x] with x = 16 //
element size, _fwd_context_paged_attention_kernel_v2), block sizes 16 / 32 / 64, head dims 64 /
128. Each output is compared with a causal SDPA reference on the packed sequences and the
cache contents with the K / V written. Exercises: grids from next_power_of_2(num_seqs) and
cdiv(max_seq_len, BLOCK_M) where max_seq_len comes from `context_lengths.max().item()`,
per-sequence offsets from a cumulative sum inside the kernel, GQA groups, the ALiBi bias."""

import math

import _corpus7_support as S
import torch

S.bare_package("colossalai")
S.bare_package("colossalai.kernel")
from colossalai.kernel.triton import context_attention_unpadded, copy_k_to_blocked_cache  # noqa: E402
from colossalai.kernel.triton.kvcache_copy import copy_kv_to_blocked_cache  # noqa: E402

torch.manual_seed(0)
dev = "cuda"


def alibi_slopes(n):
    # as colossalai/inference/modeling/models/nopadding_baichuan.py's get_alibi_slopes
    closest = 2 ** math.floor(math.log2(n))
    base = 2 ** (-(2 ** -(math.log2(closest) - 3)))
    slopes = [base ** (i + 1) for i in range(closest)]
    if closest != n:
        extra = 2 ** (-(2 ** -(math.log2(2 * closest) - 3)))
        slopes += [extra ** (i + 1) for i in range(0, 2 * (n - closest), 2)]
    return torch.tensor(slopes, dtype=torch.float32, device=dev)


def reference(q, k, v, lens, slopes=None):
    outs, start = [], 0
    groups = q.shape[1] // k.shape[1]
    for n in lens:
        qs, ks, vs = (t[start : start + n].transpose(0, 1).float() for t in (q, k, v))
        ks, vs = ks.repeat_interleave(groups, 0), vs.repeat_interleave(groups, 0)
        s = qs @ ks.transpose(1, 2) / q.shape[-1] ** 0.5
        if slopes is not None:
            pos = torch.arange(n, device=dev)
            s = s + slopes[:, None, None] * (pos[None, :] - pos[:, None])[None]
        s = s.masked_fill(torch.ones(n, n, device=dev, dtype=torch.bool).triu(1), float("-inf"))
        outs.append((s.softmax(-1) @ vs).transpose(0, 1))
        start += n
    return torch.cat(outs).flatten(1)


def run(name, lens, H, KVH, HD, block, dtype, slopes=False, new_layout=False):
    bsz = len(lens)
    total = sum(lens)
    per_seq = (max(lens) + 1 + block - 1) // block
    nblocks = bsz * per_seq
    q = torch.randn(total, H, HD, device=dev, dtype=dtype)
    k = torch.randn(total, KVH, HD, device=dev, dtype=dtype)
    v = torch.randn(total, KVH, HD, device=dev, dtype=dtype)
    x = 16 // torch.tensor([], dtype=dtype).element_size()
    if new_layout:
        k_cache = torch.zeros(nblocks, KVH, HD // x, block, x, device=dev, dtype=dtype)
    else:
        k_cache = torch.zeros(nblocks, KVH, block, HD, device=dev, dtype=dtype)
    v_cache = torch.zeros(nblocks, KVH, block, HD, device=dev, dtype=dtype)
    tables = torch.randperm(nblocks, device=dev, dtype=torch.int32).view(bsz, per_seq).contiguous()
    ctx = torch.tensor(lens, device=dev, dtype=torch.int32)
    sl = alibi_slopes(H) if slopes else None
    out = context_attention_unpadded(
        q, k, v, k_cache, v_cache, ctx, tables, block, alibi_slopes=sl, use_new_kcache_layout=new_layout
    )
    err = (out.float() - reference(q, k, v, lens, sl)).abs().max().item()
    # the first block of sequence 0 holds its first tokens' keys
    n0 = min(block, lens[0])
    if new_layout:
        cached_k = k_cache[tables[0, 0].long()].permute(2, 0, 1, 3).reshape(block, KVH, HD)[:n0]
    else:
        cached_k = k_cache[tables[0, 0].long()].transpose(0, 1)[:n0]
    ok_cache = torch.equal(cached_k, k[:n0])
    # one decoding token per sequence, copied into the cache as the decode path does
    kd, vd = (
        torch.randn(bsz, KVH, HD, device=dev, dtype=dtype),
        torch.randn(bsz, KVH, HD, device=dev, dtype=dtype),
    )
    if new_layout:
        copy_kv_to_blocked_cache(kd, vd, k_cache, v_cache, ctx + 1, tables, use_new_kcache_layout=True)
    else:
        copy_k_to_blocked_cache(kd, k_cache, ctx + 1, tables)
        copy_k_to_blocked_cache(vd, v_cache, ctx + 1, tables)
    print(name, tuple(out.shape), "max err", round(err, 4), "cache", ok_cache)


lens = S.pick([1000, 17, 256, 511, 1, 64, 333, 768], [40, 3, 17, 1])
run("mha fp16", lens, *S.pick((32, 32, 128), (2, 2, 32)), 32, torch.float16)
run("gqa bf16", lens, *S.pick((32, 8, 128), (4, 2, 32)), 16, torch.bfloat16)
run("alibi fp16", lens, *S.pick((40, 40, 128), (3, 3, 32)), 32, torch.float16, slopes=True)
run("new kcache layout", lens, *S.pick((32, 8, 128), (4, 2, 64)), 64, torch.float16, new_layout=True)
run("head 64 block 16", S.pick([300, 1200, 5], [20, 9]), *S.pick((16, 4, 64), (2, 1, 64)), 16, torch.float16)
torch.cuda.synchronize()
print("colossalai context attention ok")
