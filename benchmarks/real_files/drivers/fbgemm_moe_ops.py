"""Corpus driver (kx's code): FBGEMM gen_ai MoE token ops called as torch.ops.fbgemm.*, each
declared with torch.library.define and given its Triton kernel by torch.library.impl(...,
"CUDA") (Meta impls alongside): gather+scale tokens per expert, silu_mul, combine/split
shuffling over an expert-parallel token-count table, scatter-add back."""

import _corpus_support
import torch

_corpus_support.fbgemm_package()
import fbgemm_gpu.experimental.gen_ai.moe.activation  # noqa: E402, F401
import fbgemm_gpu.experimental.gen_ai.moe.gather_scatter  # noqa: E402, F401
import fbgemm_gpu.experimental.gen_ai.moe.shuffling  # noqa: E402, F401

torch.manual_seed(0)
T, D, E, K, EP = 2048, 5120, 16, 1, 4
x = torch.randn(T, D, device="cuda", dtype=torch.bfloat16)
scores = torch.rand(T, E, device="cuda", dtype=torch.float32)
expert_indices = torch.randint(0, E, (T * K,), device="cuda", dtype=torch.int32)
token_indices = torch.arange(T, device="cuda", dtype=torch.int32)
valid = torch.tensor(T - 48, device="cuda", dtype=torch.int32)  # padded tail not routed
routed = torch.ops.fbgemm.gather_scale_dense_tokens(x, token_indices, expert_indices, scores, valid)
h = torch.ops.fbgemm.silu_mul(routed, routed, valid)
counts = torch.randint(0, 64, (EP, E), device="cuda", dtype=torch.int32)
shuffled, shuffled_counts = torch.ops.fbgemm.combine_shuffling(h, counts, 4, 8, False)
back = torch.ops.fbgemm.split_shuffling(shuffled, counts, 4, 8, False)
out = torch.zeros(T, D, device="cuda", dtype=torch.bfloat16)
torch.ops.fbgemm.scatter_add_dense_tokens(out, back, token_indices, valid)
torch.cuda.synchronize()
print("fbgemm moe ops ok", tuple(out.shape), tuple(shuffled_counts.shape))
