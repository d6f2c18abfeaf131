"""Corpus driver (kx's code): gemlite 4-bit weight-only linear layers (HQQ-style asymmetric
quantization, group 128, fp16) built with gemlite.helper.A16Wn: the Triton bit-packing kernel,
then the gemlite::forward_functional custom op, whose batch-size dispatch picks GEMV_REVSPLITK
(M=1), GEMM_SPLITK (M=16) and GEMM (M=200, a 3-D input) under gemlite's default "fast"
autotuning (prune_configs_by pruner, per-M-bucket keys); plus the plain GEMV kernel through
forward_manual, as gemlite's tests call it, and a 2-bit group-64 bf16 layer."""

import torch
from gemlite.helper import A16Wn

torch.manual_seed(0)
device = "cuda:0"


def hqq_like(out_features, in_features, nbits, group_size, dtype):
    """uint8 codes in [0, 2**nbits), one (scale, zero) per group of group_size weights."""
    W_q = torch.randint(0, 2**nbits, (out_features, in_features), device=device, dtype=torch.uint8)
    n_groups = W_q.numel() // group_size
    scales = torch.rand((n_groups, 1), device=device, dtype=dtype) * 2e-3 + 1e-3
    zeros = torch.full((n_groups, 1), (2**nbits - 1) / 2, device=device, dtype=dtype)
    zeros += torch.randn_like(zeros) * 0.1
    return W_q, scales, zeros


K, N = 4096, 2048
W_q, scales, zeros = hqq_like(N, K, 4, 128, torch.float16)
layer = A16Wn(device=device, dtype=torch.float16).from_weights(W_q, scales, zeros, W_nbits=4, group_size=128)
ref_w = ((W_q.view(-1, 128).half() - zeros) * scales).view(N, K)

outs = []
for shape in [(1, K), (16, K), (2, 100, K)]:
    x = torch.randn(shape, device=device, dtype=torch.float16) / 10
    y = layer(x)
    err = (y - x @ ref_w.T).abs().mean().item()
    outs.append((tuple(y.shape), round(err, 5)))
y_gemv = layer.forward_manual(torch.randn(1, K, device=device, dtype=torch.float16) / 10, matmul_type="GEMV")

W2, s2, z2 = hqq_like(1024, 2048, 2, 64, torch.bfloat16)
layer2 = A16Wn(device=device, dtype=torch.bfloat16).from_weights(W2, s2, z2, W_nbits=2, group_size=64)
y2 = layer2(torch.randn(8, 2048, device=device, dtype=torch.bfloat16))
torch.cuda.synchronize()
print("gemlite A16W4 ok", outs, tuple(y_gemv.shape), tuple(y2.shape), y2.dtype)
