"""Corpus driver (kx's code): torchao's INT8 training matmul, torch.ops.torchao.scaled_int8_mm,
defined with Library("torchao", "FRAGMENT").define and given its CUDA kernel by
torch.library.impl(lib, ..., "CUDA"): an autotuned Triton kernel, row and tensor scales."""

import _corpus_support
import torch

_corpus_support.torchao_package("prototype.quantized_training")
from torchao.prototype.quantized_training.int8_mm import scaled_int8_mm  # noqa: E402

torch.manual_seed(0)
M, K, N = 4096, 4096, 1024
A = torch.randint(-128, 127, (M, K), device="cuda", dtype=torch.int8)
B = torch.randint(-128, 127, (N, K), device="cuda", dtype=torch.int8).T  # column-major weight
row_scale = torch.rand(M, device="cuda", dtype=torch.bfloat16)
col_scale = torch.rand(N, device="cuda", dtype=torch.bfloat16)
C = scaled_int8_mm(A, B, row_scale, col_scale)
C2 = scaled_int8_mm(A[:128], B, row_scale[:128], torch.tensor(0.01, device="cuda", dtype=torch.bfloat16))
torch.cuda.synchronize()
print("torchao scaled_int8_mm ok", tuple(C.shape), tuple(C2.shape))
