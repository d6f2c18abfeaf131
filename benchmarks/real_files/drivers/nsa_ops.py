"""Corpus driver (kx's code): XunhaoLai/native-sparse-attention-triton's ops, exactly the
README's "Functions" example (native_sparse_attention/ops: linear_compress of key and value with
the intra-block position embedding, compressed_attention returning the top-k block indices,
topk_sparse_attention) at the README's head configuration (64 query heads, 4 KV heads,
head_dim 128, kernel 32 / stride 16, block 64, top-16, init 1 / local 2 blocks, bf16) on three
packed documents (cu_seqlens [0, 1024, 4096, 8192]; the README's 16384 halved), followed by
the backward of the summed outputs through every Triton backward kernel; then the other
trainable ops of the package on the same inputs: weightedpool_compress / avgpool_compress and
flash_attention_varlen (causal, fwd + bwd), and a fp16 run of the three README calls.
einops is stood in where absent (nsa_package())."""

import _corpus_support
import torch

_corpus_support.nsa_package()
from native_sparse_attention.ops import (  # noqa: E402
    avgpool_compress,
    compressed_attention,
    flash_attention_varlen,
    linear_compress,
    topk_sparse_attention,
    weightedpool_compress,
)

num_q_heads, num_kv_heads, head_dim = 64, 4, 128
kernel_size, kernel_stride, block_size, topk = 32, 16, 64, 16


def readme_example(dtype):
    cu_seqlens = torch.Tensor([0, 1024, 4096, 8192]).to(torch.int32).cuda()
    n = 8192
    query = torch.randn(n, num_q_heads, head_dim).to(dtype).cuda().requires_grad_()
    key = torch.randn(n, num_kv_heads, head_dim).to(dtype).cuda().requires_grad_()
    value = torch.randn(n, num_kv_heads, head_dim).to(dtype).cuda().requires_grad_()
    w = torch.randn(num_kv_heads, kernel_size * head_dim, head_dim).to(dtype).cuda().requires_grad_()
    pe = torch.randn(num_kv_heads, kernel_size, head_dim).to(dtype).cuda().requires_grad_()

    compressed_key, compressed_cu_seqlens = linear_compress(
        key, w, cu_seqlens, kernel_size, kernel_stride, pe
    )
    compressed_value, _ = linear_compress(value, w, cu_seqlens, kernel_size, kernel_stride, None)
    compressed_attn_output, topk_idx = compressed_attention(
        query,
        compressed_key,
        compressed_value,
        kernel_size,
        kernel_stride,
        block_size,
        topk,
        cu_seqlens,
        compressed_cu_seqlens,
        init_blocks=1,
        local_blocks=2,
    )
    sparse_attn_output = topk_sparse_attention(query, key, value, topk_idx, block_size, cu_seqlens)
    (compressed_attn_output.float().sum() + sparse_attn_output.float().sum()).backward()
    return cu_seqlens, query, key, value, topk_idx


torch.manual_seed(0)
cu_seqlens, query, key, value, topk_idx = readme_example(torch.bfloat16)

q, k, v = (t.detach().requires_grad_() for t in (query, key, value))
wp = torch.randn(num_kv_heads, kernel_size, device="cuda", dtype=torch.bfloat16, requires_grad=True)
ck, ccu = weightedpool_compress(k, wp, cu_seqlens, kernel_size, kernel_stride)
cv, _ = avgpool_compress(v, None, cu_seqlens, kernel_size, kernel_stride)
o = flash_attention_varlen(q, k, v, cu_seqlens, cu_seqlens, 4096, 4096, causal=True)
(o.float().sum() + ck.float().sum() + cv.float().sum()).backward()

readme_example(torch.float16)
torch.cuda.synchronize()
print("nsa ops ok", tuple(topk_idx.shape), tuple(o.shape), tuple(q.grad.shape), tuple(wp.grad.shape))
