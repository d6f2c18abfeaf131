"""Corpus driver (kx's code): attention-gym's compressed sparse attention example
(examples/compressed_sparse_attention.py: CSA(), DeepSeek-V4-style: interleaved block
compression of the KV stream with learned softmax weights, a ReLU indexer over compressed
blocks with top-k selection, and attn_gym.sparse.selected_attention's Triton backend -- one
softmax over a sliding window of local keys plus the selected compressed blocks, with a
learned attention sink; forward kernels autotuned with prune_configs_by, backward kernels
autotuned). Run as the example's main() builds its inputs, but at a model's size in fp32 instead of
its toy fp64 one (bf16 stops in the example's apply_rope: torch.polar has no bf16): batch 2, 16 heads, 4096 tokens, head_dim 128 (64 rope dims), 4 indexer
heads of dim 128, compression rate 4, top-64 blocks, sliding window 128, shared KV
(share_kv=True), all projections requiring grad; then the backward of a loss on the output
(through selected_attention's Triton backward and the compression / indexer torch ops), and a
second call with share_kv=False (per-head KV)."""

import _corpus_support  # noqa: F401
import torch
from examples.compressed_sparse_attention import CSA  # noqa: E402

torch.manual_seed(0)
device, dtype = torch.device("cuda"), torch.float32
batch_size, num_heads, num_index_heads = 2, 16, 4
sequence_length, head_dim, index_head_dim = 4096, 128, 128
compression_rate, num_topk_blocks, sliding_window_size, rope_dims = 4, 64, 128, 64
num_blocks = (sequence_length + compression_rate - 1) // compression_rate


def run(share_kv):
    h_kv, h_ikv = (1, 1) if share_kv else (num_heads, num_index_heads)

    def randn(*shape, scale=1.0):
        return (torch.randn(*shape, device=device, dtype=dtype) * scale).requires_grad_()

    inputs = dict(
        Q=randn(batch_size, num_heads, sequence_length, head_dim),
        Q_I=randn(batch_size, num_index_heads, sequence_length, index_head_dim),
        KV=randn(batch_size, h_kv, sequence_length, head_dim),
        C_a=randn(batch_size, h_kv, sequence_length, head_dim),
        C_b=randn(batch_size, h_kv, sequence_length, head_dim),
        Z_a=randn(batch_size, h_kv, sequence_length, 1),
        Z_b=randn(batch_size, h_kv, sequence_length, 1),
        B_a=randn(1, num_heads, num_blocks, 1, 1),
        B_b=randn(1, num_heads, num_blocks, 1, 1),
        W_I=randn(batch_size, sequence_length, num_index_heads),
        K_Ia=randn(batch_size, h_ikv, sequence_length, index_head_dim),
        K_Ib=randn(batch_size, h_ikv, sequence_length, index_head_dim),
        Z_Ia=randn(batch_size, h_ikv, sequence_length, 1),
        Z_Ib=randn(batch_size, h_ikv, sequence_length, 1),
        B_Ia=randn(1, num_index_heads, num_blocks, 1, 1),
        B_Ib=randn(1, num_index_heads, num_blocks, 1, 1),
        KV_norm_weight=torch.ones(head_dim, device=device, dtype=dtype, requires_grad=True),
        compressed_indices_norm_weight=torch.ones(
            index_head_dim, device=device, dtype=dtype, requires_grad=True
        ),
        compressed_kv_norm_weight=torch.ones(head_dim, device=device, dtype=dtype, requires_grad=True),
        attention_sink=torch.zeros(num_heads, device=device, dtype=torch.float32, requires_grad=True),
    )
    output = CSA(
        **inputs,
        compression_rate=compression_rate,
        num_topk_blocks=num_topk_blocks,
        sliding_window_size=sliding_window_size,
        rope_dims=rope_dims,
        share_kv=share_kv,
    )
    output.float().pow(2).mean().backward()
    return output, inputs


out1, inp1 = run(share_kv=True)
out2, inp2 = run(share_kv=False)
torch.cuda.synchronize()
print(
    "attention-gym CSA ok",
    tuple(out1.shape),
    tuple(out2.shape),
    tuple(inp1["KV"].grad.shape),
    tuple(inp2["Q"].grad.shape),
)
