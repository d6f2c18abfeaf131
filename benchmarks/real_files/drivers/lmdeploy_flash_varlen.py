"""Corpus driver (kx's code): lmdeploy's varlen prefill attention
(lmdeploy/pytorch/kernels/cuda/flashattention.py: flash_attn_varlen_func ->
_flash_prefill_fwd_kernel, block sizes from the device capability), as the PyTorch engine's
prefill calls it: packed q (tokens, heads, dim), packed k/v in the 'shd' layout, GQA,
cu_seqlens for a batch of 5 prompts of different lengths, causal. Three calls:
Llama (32/8 heads, dim 128, bf16), a sliding window with softcapping (Gemma-2: dim 256,
window 4096 -> only (w, -1) used), and attention sinks (gpt-oss: 64/8 heads, dim 64, window
128, fp16); one chunked-prefill call with q shorter than kv (a cached prefix)."""

import _corpus_support
import torch

_corpus_support.lmdeploy_kernels()
from lmdeploy.pytorch.kernels.cuda.flashattention import flash_attn_varlen_func  # noqa: E402

torch.manual_seed(0)
dev = "cuda"


def packed(seqlens, H, HKV, D, dtype, kv_lens=None):
    kv_lens = kv_lens or seqlens
    q = torch.randn(sum(seqlens), H, D, dtype=dtype, device=dev)
    k = torch.randn(sum(kv_lens), HKV, D, dtype=dtype, device=dev)
    v = torch.randn(sum(kv_lens), HKV, D, dtype=dtype, device=dev)
    cq = torch.zeros(len(seqlens) + 1, dtype=torch.int32, device=dev)
    cq[1:] = torch.tensor(seqlens, device=dev).cumsum(0)
    ck = torch.zeros(len(kv_lens) + 1, dtype=torch.int32, device=dev)
    ck[1:] = torch.tensor(kv_lens, device=dev).cumsum(0)
    return q, k, v, cq, ck


lens = [513, 17, 1024, 200, 77]
q, k, v, cq, ck = packed(lens, 32, 8, 128, torch.bfloat16)
o1 = flash_attn_varlen_func(
    q, k, v, cq, ck, max_seqlen_q=max(lens), max_seqlen_k=max(lens), causal=True, kv_layout="shd"
)

q, k, v, cq, ck = packed(lens, 8, 4, 256, torch.bfloat16)
o2 = flash_attn_varlen_func(
    q,
    k,
    v,
    cq,
    ck,
    max_seqlen_q=max(lens),
    max_seqlen_k=max(lens),
    causal=True,
    window_size=(64, -1),
    softcap=50.0,
    kv_layout="shd",
)

q, k, v, cq, ck = packed(lens, 64, 8, 64, torch.float16)
sinks = torch.randn(64, dtype=torch.float32, device=dev)
o3 = flash_attn_varlen_func(
    q,
    k,
    v,
    cq,
    ck,
    max_seqlen_q=max(lens),
    max_seqlen_k=max(lens),
    causal=True,
    window_size=(128, -1),
    sinks=sinks,
    kv_layout="shd",
)

# chunked prefill: 64 new tokens per sequence over a cached prefix
qlens, kvlens = [64, 64, 64], [64 + 300, 64 + 1000, 64]
q, k, v, cq, ck = packed(qlens, 32, 8, 128, torch.bfloat16, kv_lens=kvlens)
o4 = flash_attn_varlen_func(
    q, k, v, cq, ck, max_seqlen_q=64, max_seqlen_k=max(kvlens), causal=True, kv_layout="shd"
)
torch.cuda.synchronize()
print("lmdeploy flash varlen ok", tuple(o1.shape), tuple(o2.shape), tuple(o3.shape), tuple(o4.shape))
