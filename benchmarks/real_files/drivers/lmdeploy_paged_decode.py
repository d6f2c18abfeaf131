"""Corpus driver (kx's code): lmdeploy's PyTorch-engine paged KV cache, as its attention layer
uses it for a Llama-style model with GQA (32 query heads, 8 KV heads, head_dim 128, block size
64, bf16): prefill a batch of 4 sequences of different lengths into the cache with
fill_kv_cache (lmdeploy/pytorch/kernels/cuda/fill_kv_cache.py), then 8 decode steps, each
filling one new token per sequence and running flash_attn_with_kvcache
(pagedattention.py: split-K grouped decode kernel + reduce kernel, SPLIT_K from the device's SM
count and warps per SM), with the page table of a block allocator (blocks scattered). Then the
same decode with an int8 KV cache (quant_policy=INT8: fill with per-token scales/zeros, the
quantised decode kernel), and with a sliding window and logit softcapping (Gemma-2 style)."""

import _corpus_support
import torch

_corpus_support.lmdeploy_kernels()
from lmdeploy.messages import QuantPolicy  # noqa: E402
from lmdeploy.pytorch.kernels.cuda.fill_kv_cache import fill_kv_cache  # noqa: E402
from lmdeploy.pytorch.kernels.cuda.pagedattention import flash_attn_with_kvcache  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
dtype = torch.bfloat16
H, HKV, D, BS = 32, 8, 128, 64
seqlens = [300, 77, 512, 129]
B = len(seqlens)
max_blocks = 12
num_blocks = B * max_blocks + 8


def make_cache(quant: bool):
    if quant:
        kc = torch.zeros(num_blocks, BS, HKV, D, dtype=torch.int8, device=dev)
        vc = torch.zeros(num_blocks, BS, HKV, D, dtype=torch.int8, device=dev)
        ksz = torch.zeros(num_blocks, BS, HKV, 2, dtype=dtype, device=dev)
        vsz = torch.zeros(num_blocks, BS, HKV, 2, dtype=dtype, device=dev)
        return kc, vc, ksz, vsz
    kc = torch.zeros(num_blocks, BS, HKV, D, dtype=dtype, device=dev)
    vc = torch.zeros(num_blocks, BS, HKV, D, dtype=dtype, device=dev)
    return kc, vc, None, None


# page table of a block allocator: each sequence gets non-contiguous blocks
perm = torch.randperm(num_blocks - 8)[: B * max_blocks].view(B, max_blocks)
block_offsets = perm.to(torch.int32).to(dev)


def run(quant_policy, window=None, softcap=None, steps=8):
    quant = quant_policy != QuantPolicy.NONE
    kc, vc, ksz, vsz = make_cache(quant)
    # prefill: packed (sum(seqlens), HKV, D) states
    q_seq = torch.tensor(seqlens, dtype=torch.int32, device=dev)
    q_start = torch.cumsum(q_seq, 0) - q_seq
    total = sum(seqlens)
    k = torch.randn(total, HKV, D, dtype=dtype, device=dev)
    v = torch.randn(total, HKV, D, dtype=dtype, device=dev)
    fill_kv_cache(
        k,
        v,
        kc,
        vc,
        q_start,
        q_seq,
        q_seq.clone(),
        max(seqlens),
        block_offsets,
        k_scales_zeros=ksz,
        v_scales_zeros=vsz,
        quant_policy=quant_policy,
    )
    kv_len = q_seq.clone()
    out = None
    for _ in range(steps):
        kv_len = kv_len + 1
        one = torch.ones(B, dtype=torch.int32, device=dev)
        start = torch.arange(B, dtype=torch.int32, device=dev)
        k1 = torch.randn(B, HKV, D, dtype=dtype, device=dev)
        v1 = torch.randn(B, HKV, D, dtype=dtype, device=dev)
        fill_kv_cache(
            k1,
            v1,
            kc,
            vc,
            start,
            one,
            kv_len,
            1,
            block_offsets,
            k_scales_zeros=ksz,
            v_scales_zeros=vsz,
            quant_policy=quant_policy,
        )
        q = torch.randn(B, H, D, dtype=dtype, device=dev)
        out = flash_attn_with_kvcache(
            q,
            kc,
            vc,
            cache_seqlens=kv_len,
            page_table=block_offsets,
            max_seqlen_q=1,
            window_size=window,
            softcap=softcap,
            k_scales_zeros=ksz,
            v_scales_zeros=vsz,
            quant_policy=quant_policy,
        )
    return out


o1 = run(QuantPolicy.NONE)
o2 = run(QuantPolicy.INT8)
o3 = run(QuantPolicy.NONE, window=256, softcap=50.0, steps=3)
torch.cuda.synchronize()
print(
    "lmdeploy paged decode ok",
    tuple(o1.shape),
    tuple(o2.shape),
    tuple(o3.shape),
    round(float(o1.float().abs().mean()), 4),
)
