"""Corpus driver (kx's code): FBGEMM's fp8 GEMMs as Llama inference uses them:
torch.ops.triton.quantize_fp8_row (torch.library.custom_op) on activations and weights, then
matmul_fp8_row (torch._library.triton_op launching the autotuned persistent kernel through
capture_triton) (autotuned over 100 configs at the prefill shape); and the 128x128 block-scaled pair,
quantize_fp8_block + matmul_fp8_block (custom_op). The host-TMA-descriptor variants need
fill_1d_tma_descriptor, which stock Triton 3.6 does not have, so tma_persistent=False."""

import _corpus_support
import torch

_corpus_support.fbgemm_package()
from fbgemm_gpu.experimental.gemm.triton_gemm.fp8_gemm import (  # noqa: E402
    matmul_fp8_block,
    matmul_fp8_row,
    quantize_fp8_block,
    quantize_fp8_row,
)

torch.manual_seed(0)
N, K = 8192, 4096
w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
wq, w_scale = quantize_fp8_row(w)
x = torch.randn(4096, K, device="cuda", dtype=torch.bfloat16)  # one prefill shape: 100 configs tuned
xq, x_scale = quantize_fp8_row(x)
y = matmul_fp8_row(xq, wq, x_scale, w_scale, tma_persistent=False)
xb, xb_scale = quantize_fp8_block(x, 128, 128)
wb, wb_scale = quantize_fp8_block(w, 128, 128)
yb = matmul_fp8_block(xb, wb, xb_scale, wb_scale, 128, 128, 128)
torch.cuda.synchronize()
print("fbgemm fp8 gemm ok", tuple(y.shape), tuple(yb.shape))
