"""Corpus driver (kx's code): MInference's block-sparse prefill attention
(minference/ops/block_sparse_flash_attention.py: block_sparse_attention -> the mean-pooled
block scores and top-k block index on the host side (torch.topk / sort), then
_triton_block_sparse_attn_fwd_kernel), as MInference's 'block_sparse' pattern calls it for a
long-context prefill of a Llama-3-8B-like layer: (batch 1, 32 heads, 8000 tokens, dim 128) fp16
with top_k=100 blocks of 64 (padding to a block multiple inside), and a bf16 call at 3000 tokens
with dim 64 and top_k=16."""

import _corpus_support
import torch

_corpus_support.minference_ops()
from minference.ops.block_sparse_flash_attention import block_sparse_attention  # noqa: E402

torch.manual_seed(0)
dev = "cuda"

q, k, v = (torch.randn(1, 32, 8000, 128, dtype=torch.float16, device=dev) for _ in range(3))
o1 = block_sparse_attention(q, k, v, top_k=100)

q, k, v = (torch.randn(1, 16, 3000, 64, dtype=torch.bfloat16, device=dev) for _ in range(3))
o2 = block_sparse_attention(q, k, v, top_k=16)
torch.cuda.synchronize()
print(
    "minference block sparse ok", tuple(o1.shape), tuple(o2.shape), round(float(o1.float().abs().mean()), 4)
)
