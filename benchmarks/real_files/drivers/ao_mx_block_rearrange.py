"""Corpus driver (kx's code): torchao's MX-format Triton kernels that run on Hopper: the
e8m0 scale swizzle (torch.library.custom_op + register_fake whose body launches through
wrap_triton) and the mxfp8 dequant (torch.library.triton_op, autotuned)."""

import _corpus_support
import torch

_corpus_support.torchao_package("prototype.mx_formats")
from torchao.prototype.mx_formats.kernels import triton_mx_block_rearrange, triton_mxfp8_dequant_dim0  # noqa: E402

torch.manual_seed(0)
M, K = 8192, 4096
data = torch.randn(M, K, device="cuda", dtype=torch.bfloat16).to(torch.float8_e4m3fn)
scales = torch.randint(118, 136, (M, K // 32), device="cuda", dtype=torch.uint8).view(torch.float8_e8m0fnu)
swizzled = triton_mx_block_rearrange(scales)
ragged = triton_mx_block_rearrange(scales[:1000, :100])  # rows and cols padded to 128 x 4
hp = triton_mxfp8_dequant_dim0(data, scales, torch.bfloat16)
torch.cuda.synchronize()
print("torchao mx rearrange/dequant ok", tuple(swizzled.shape), tuple(ragged.shape), tuple(hp.shape))
