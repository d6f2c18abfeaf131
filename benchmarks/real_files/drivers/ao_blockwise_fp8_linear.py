"""Corpus driver (kx's code): torchao's blockwise-fp8 training linear forward
(fp8_blockwise_mm, an autograd.Function) with use_triton=True: the 1x128 activation quantize,
the transposed 128x128 weight quantize and the blockwise GEMM are torch.library.triton_ops
launching autotuned kernels through wrap_triton. (The backward's three more quantizers of 45
configs each would take this file past a minute of autotuning on an H200.)"""

import _corpus_support
import torch

_corpus_support.torchao_package()
from torchao.prototype.blockwise_fp8_training.linear import fp8_blockwise_mm  # noqa: E402

torch.manual_seed(0)
M, K, N = 8192, 4096, 4096
x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    y = fp8_blockwise_mm.apply(x, w, 128, torch.bfloat16, True)
    y2 = fp8_blockwise_mm.apply(x[:2048], w, 128, torch.bfloat16, True)  # another M: the GEMM's key has no M
torch.cuda.synchronize()
print("torchao blockwise fp8 linear ok", tuple(y.shape), tuple(y2.shape))
