"""Corpus driver (kx's code): GPTQModel's fused GGUF Triton matmuls
(gptqmodel/nn_modules/qlinear/gguf_triton.py: fused_q4_k_matmul, fused_q5_k_matmul,
fused_q6_k_matmul, fused_q1_0_g128_matmul, the launch functions GGUFTritonKernel._forward_triton
calls). Each kernel dequantizes llama.cpp K-quant super-blocks (256 values: 8 x 32 or 16 x 16
sub-blocks with fp16 scale / min, 4-bit low nibbles, Q5_K's extra high bit, Q6_K's 2 high bits)
or Q1_0_g128 sign bits inside the K loop and feeds tl.dot. Launches go through GPTQModel's own
autotuner (triton_utils/custom_autotune.CustomizedTritonAutoTuner, a triton.KernelInterface
subclass: key M / N rounded to the nearest power of two, configs timed with
triton.testing.do_bench(rep=40), then fn.run(..., grid, warmup, num_warps, num_stages)), the
small-config set picked on the host when a row has fewer than 16 super-blocks.

Weights are the cached layouts GGUFTritonKernel._build_triton_cache produces from a GGUF tensor
(quant bytes permuted to (blocks, bytes, out_features) uint8, scales pre-multiplied to fp16),
filled with random bytes / scales here: the Q4_K gate / up projections of a 2048-wide model
(2048 -> 5632, SiLU-gated on the host), Q5_K and Q6_K 2048 -> 2048 projections and a Q1_0_g128
(1-bit, Bonsai-style) 1536 -> 1024 projection, each for a prefill chunk (M=64) and a decode
step (M=1), fp16 activations as GGUFTritonKernel.forward casts them."""

import _corpus_support
import torch

_corpus_support.gptqmodel_triton()
from gptqmodel.nn_modules.qlinear.gguf_triton import (  # noqa: E402
    fused_q1_0_g128_matmul,
    fused_q4_k_matmul,
    fused_q5_k_matmul,
    fused_q6_k_matmul,
)

torch.manual_seed(0)
dev = "cuda"


def qbytes(nb, nbytes, n):
    return torch.randint(0, 256, (nb, nbytes, n), device=dev, dtype=torch.uint8)


def scales(*shape):
    return (torch.rand(*shape, device=dev) * 0.02).to(torch.float16)


K = 2048  # in_features: 8 K-quant super-blocks (< 16 -> the small autotune config set)
NB = K // 256
N_UP = 5632
q4 = dict(qs=qbytes(NB, 128, N_UP), scale=scales(NB, 8, N_UP), min_value=scales(NB, 8, N_UP))
q5 = dict(qs=qbytes(NB, 128, K), qh=qbytes(NB, 32, K), scale=scales(NB, 8, K), min_value=scales(NB, 8, K))
q6 = dict(ql=qbytes(NB, 128, K), qh=qbytes(NB, 64, K), scale=scales(NB, 16, K))
K1 = 1536  # Q1_0_g128: 12 blocks of 128
q1 = dict(sign_bytes=qbytes(K1 // 128, 16, 1024), scale=scales(K1 // 128, 1024))

outs = []
for m in (64, 1):  # prefill chunk, then one decode token
    x = torch.randn(m, K, device=dev, dtype=torch.float16)
    gate = fused_q4_k_matmul(x, **q4)
    up = fused_q4_k_matmul(x, **q4)
    outs.append(torch.nn.functional.silu(gate) * up)
    outs.append(fused_q5_k_matmul(x, **q5))
    outs.append(fused_q6_k_matmul(x, **q6))
    outs.append(fused_q1_0_g128_matmul(torch.randn(m, K1, device=dev, dtype=torch.float16), **q1))

torch.cuda.synchronize()
print("gptqmodel gguf triton ok", [tuple(o.shape) for o in outs])
