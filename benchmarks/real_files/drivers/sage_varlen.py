"""Corpus driver (kx's code): SageAttention's variable-length Triton path,
sageattention.core.sageattn_varlen, on packed sequences described by cu_seqlens: Triton
per-block INT8 quantization over the packed Q / K (sageattention/triton/quant_per_block_varlen.py;
the per-sequence scale offsets are a cumsum of ceil(len / block), and the scale buffers are
sized with a 0-d GPU tensor, cu_seqlens_*_scale[-1], i.e. a host read), then the varlen
attention kernels (attn_qk_int8_block_varlen.py, non-causal; attn_qk_int8_per_block_causal_varlen.py,
causal), forward only.

1. a prefill batch of 5 packed prompts (lengths 1..1500), bf16, GQA 28/4 heads (Qwen2-7B),
   head_dim 128, causal, max_seqlen from the host list;
2. a cross-attention style call: 3 query sequences against longer key/value sequences,
   fp16, 16/16 heads, head_dim 64, non-causal, int64 cu_seqlens, smooth_k=False."""

import _corpus_support
import torch

_corpus_support.sageattention_package()
from sageattention.core import sageattn_varlen  # noqa: E402

torch.manual_seed(0)
dev = "cuda"


def cu(lens, dtype=torch.int32):
    return torch.tensor([0] + lens, device=dev).cumsum(0).to(dtype)


# 1. packed prefill, causal, GQA
lens = [1500, 1, 333, 1024, 77]
tot = sum(lens)
q = torch.randn(tot, 28, 128, device=dev, dtype=torch.bfloat16)
k = torch.randn(tot, 4, 128, device=dev, dtype=torch.bfloat16)
v = torch.randn(tot, 4, 128, device=dev, dtype=torch.bfloat16)
cu1 = cu(lens)
o1 = sageattn_varlen(q, k, v, cu1, cu1, max(lens), max(lens), is_causal=True)

# 2. different query / key lengths, non-causal
lq, lk = [64, 200, 129], [512, 1000, 2048]
q2 = torch.randn(sum(lq), 16, 64, device=dev, dtype=torch.float16)
k2 = torch.randn(sum(lk), 16, 64, device=dev, dtype=torch.float16)
v2 = torch.randn(sum(lk), 16, 64, device=dev, dtype=torch.float16)
o2 = sageattn_varlen(
    q2, k2, v2, cu(lq, torch.int64), cu(lk, torch.int64), max(lq), max(lk), is_causal=False, smooth_k=False
)

torch.cuda.synchronize()
print("sage varlen ok", tuple(o1.shape), tuple(o2.shape), bool(torch.isfinite(o1.float()).all()))
