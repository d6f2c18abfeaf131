"""Corpus driver (kx's code): FBGEMM's Triton grouped GEMM for MoE (device-side TMA
descriptors, autotuned with early config pruning; the warp-specialized variant builds host
descriptors stock Triton 3.6 lacks): bf16 and fp8 rowwise, per-expert token counts m_sizes."""

import _corpus_support
import torch

_corpus_support.fbgemm_package()
from fbgemm_gpu.experimental.gemm.triton_gemm.fp8_gemm import quantize_fp8_row  # noqa: E402
from fbgemm_gpu.experimental.gemm.triton_gemm.grouped_gemm import grouped_gemm, grouped_gemm_fp8_rowwise  # noqa: E402

torch.manual_seed(0)
G, N, K = 16, 2048, 5120
m_sizes = torch.tensor(
    [512, 0, 128, 1024, 256, 64, 512, 512, 256, 128, 0, 384, 128, 64, 512, 1024],
    device="cuda",
    dtype=torch.int32,
)
M = 6144  # sum(m_sizes)
x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(G * N, K, device="cuda", dtype=torch.bfloat16)
y = grouped_gemm(x, w, m_sizes, _use_warp_specialization=False)
xq, x_scale = quantize_fp8_row(x)
wq, w_scale = quantize_fp8_row(w)
y8 = grouped_gemm_fp8_rowwise(xq, wq, m_sizes, x_scale, w_scale, _use_warp_specialization=False)
torch.cuda.synchronize()
print("fbgemm grouped gemm ok", tuple(y.shape), tuple(y8.shape))
