"""Corpus driver (kx's code): torchao's MoE-training float8 rowwise casts, each a
torch.library.custom_op with register_fake: 3D expert weights transposed and cast (atomic
and fused-reduction variants), a column-major 3D cast, and the 2D activation cast."""

import _corpus_support
import torch

_corpus_support.torchao_package("prototype.moe_training", "prototype.moe_training.kernels")
from torchao.prototype.moe_training.kernels.float8_rowwise import (  # noqa: E402
    triton_fp8_colwise_3d_scale_and_cast,
    triton_fp8_rowwise_2d_scale_and_cast,
    triton_fp8_rowwise_3d_transpose_rhs,
    triton_fp8_rowwise_3d_transpose_rhs_fused_reduction,
)

torch.manual_seed(0)
E, K, N, T = 16, 2048, 1408, 8192
w = torch.randn(E, K, N, device="cuda", dtype=torch.bfloat16)
w_fp8, w_scale = triton_fp8_rowwise_3d_transpose_rhs(w, round_scales_to_power_of_2=True)
w_fp8b, w_scaleb = triton_fp8_rowwise_3d_transpose_rhs_fused_reduction(w)
w_col = torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16).transpose(-2, -1)  # (E, K, N) column-major
c_fp8, c_scale = triton_fp8_colwise_3d_scale_and_cast(w_col)
a = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
a_fp8, a_scale = triton_fp8_rowwise_2d_scale_and_cast(a)
torch.cuda.synchronize()
print("torchao moe float8 rowwise ok", tuple(w_fp8.shape), tuple(c_fp8.shape), tuple(a_fp8.shape))
