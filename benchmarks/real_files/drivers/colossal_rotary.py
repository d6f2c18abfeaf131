"""Corpus driver (kx's code): hpcaitech/ColossalAI's rotary-embedding Triton kernels for unpadded
(packed) sequences (colossalai/kernel/triton/no_pad_rotary_embedding.py: rotary_embedding, its
K-cache-fused variant fused_rotary_embedding_kernel_v2, decoding_fused_rotary_embedding for the
old and the new K-cache layout; rotary_cache_copy.py: get_xine_cache in prefill and decoding
mode), called as colossalai/inference's
TritonPreAttentionBackend and nopadding_llama.py call them, with the cos / sin caches built as
colossalai/inference/utils.py's init_to_get_rotary builds them ([positions, head_dim / 2]).
Llama-2-7B-like heads (32 of 128, fp16) and GQA (32 over 8, and 64 over 8 with head_dim 64
under bf16), 6 packed sequences of uneven lengths (prefill, 2100 tokens) and one token per
sequence (decoding) against block-paged KV caches (block 16). Results are compared with a
rotate-half reference in torch; the cache writes are checked. Exercises: grid lambdas over
META["BLOCK_TOKENS"], num_warps chosen from head_dim, next_power_of_2 of the number of sequences
as a constexpr, `lengths.sum().item()` sizing an output, in-place updates of q / k.
(fused_rotary_embedding.py is left out: its upstream test is skipped as failing on CUDA and it
reads its cumulative lengths past their end.)"""

import _corpus7_support as S
import torch

S.bare_package("colossalai")
S.bare_package("colossalai.kernel")
with S.quiet_warnings():
    from colossalai.kernel.triton import (  # noqa: E402
        decoding_fused_rotary_embedding,
        get_xine_cache,
        rotary_embedding,
    )

torch.manual_seed(0)
dev = "cuda"


def caches(HD, n, dtype):
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, HD, 2, dtype=torch.float32) / HD))
    freqs = torch.outer(torch.arange(n, dtype=torch.float32), inv_freq)
    return torch.cos(freqs).to(dev, dtype), torch.sin(freqs).to(dev, dtype)


def ref_rotate(x, cos, sin):
    x0, x1 = x.float().chunk(2, -1)
    c, s = cos.float()[:, None], sin.float()[:, None]
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], -1)


def run(name, lens, H, KVH, HD, dtype, block=16):
    bsz, total = len(lens), sum(lens)
    cos_cache, sin_cache = caches(HD, max(lens) + 64, dtype)
    ln = torch.tensor(lens, device=dev, dtype=torch.int32)
    # prefill: per-token cos / sin gathered by the Triton kernel, then rotary on q and k in place
    cos, sin = get_xine_cache(ln, cos_cache, sin_cache, is_prompts=True)
    pos = torch.cat([torch.arange(n, device=dev) for n in lens])
    assert torch.equal(cos, cos_cache[pos]) and torch.equal(sin, sin_cache[pos])
    q = torch.randn(total, H, HD, device=dev, dtype=dtype)
    k = torch.randn(total, KVH, HD, device=dev, dtype=dtype)
    rq, rk = ref_rotate(q, cos, sin), ref_rotate(k, cos, sin)
    rotary_embedding(q, k, cos, sin)
    err = max((q.float() - rq).abs().max().item(), (k.float() - rk).abs().max().item())
    print(name, "prefill rotary", tuple(q.shape), "max err", round(err, 4))

    # decoding: one token per sequence, rotary fused with the copy into the blocked caches
    per_seq = (max(lens) + 2 + block - 1) // block
    nblocks = bsz * per_seq
    tables = torch.randperm(nblocks, device=dev, dtype=torch.int32).view(bsz, per_seq).contiguous()
    kv_lens = ln + 1
    dcos, dsin = get_xine_cache(kv_lens, cos_cache, sin_cache, is_prompts=False)
    assert torch.equal(dcos, cos_cache[kv_lens.long() - 1])
    for new_layout in (False, True):
        qd = torch.randn(bsz, H, HD, device=dev, dtype=dtype)
        kd = torch.randn(bsz, KVH, HD, device=dev, dtype=dtype)
        vd = torch.randn(bsz, KVH, HD, device=dev, dtype=dtype)
        x = 16 // qd.element_size()
        if new_layout:
            k_cache = torch.zeros(nblocks, KVH, HD // x, block, x, device=dev, dtype=dtype)
        else:
            k_cache = torch.zeros(nblocks, KVH, block, HD, device=dev, dtype=dtype)
        v_cache = torch.zeros(nblocks, KVH, block, HD, device=dev, dtype=dtype)
        rqd = ref_rotate(qd, dcos, dsin)
        decoding_fused_rotary_embedding(
            qd, kd, vd, dcos, dsin, k_cache, v_cache, tables, kv_lens, use_new_kcache_layout=new_layout
        )
        last = (kv_lens - 1).long()
        blk = tables[torch.arange(bsz, device=dev), last // block].long()
        cached_v = v_cache[blk, :, last % block]
        print(
            name,
            "decode rotary + cache copy",
            "new layout" if new_layout else "old layout",
            "q err",
            round((qd.float() - rqd).abs().max().item(), 4),
            "v cached",
            torch.equal(cached_v, vd),
        )
    if H != KVH:
        return
    # the deprecated path that also writes K into the blocked cache (MHA only)
    k_cache = torch.zeros(nblocks, KVH, block, HD, device=dev, dtype=dtype)
    with S.quiet_warnings():
        rotary_embedding(qd, kd, dcos, dsin, k_cache, tables, kv_lens)
    print(name, "rotary with k cache", float(k_cache.abs().sum().item()) > 0)


lens = S.pick([700, 1, 333, 512, 47, 507], [9, 1, 20])
run("llama mha fp16", lens, *S.pick((32, 32, 128), (2, 2, 32)), torch.float16)
run("gqa fp16", lens, *S.pick((32, 8, 128), (4, 2, 32)), torch.float16)
run("gqa bf16 hd64", lens, *S.pick((64, 8, 64), (4, 1, 16)), torch.bfloat16)
torch.cuda.synchronize()
print("colossalai rotary ok")
