"""Corpus driver (kx's code): fattorib/fusedswiglu's fp16 fast-accumulation fused SwiGLU (fused_swiglu/swiglu_f16.py:
FastAccumFusedSwiGLU, a torch.autograd.Function under torch.cuda.amp custom_fwd(cast_inputs=float16) /
custom_bwd; fused_swiglu/kernels/kernels_fp16.py: fused_swiglu_fwd(fast_accum=True) launches swiglu_kernel
through triton.autotune (eight configs, key dim_m / dim_n / dim_k), two block-pointer matmuls
x @ W_gate and x @ W_up with tl.dot(out_dtype=fp16) accumulation (an accumulator dtype chosen
from a constexpr flag), silu in fp32 on the gate and the product stored with both
pre-activations saved; the backward's elementwise_backward_kernel (numel constexpr, grid
numel // 128) and fused_bmm's autotuned bmm_kernel with fp16 accumulators computing both weight
gradients per batch, reduced over the batch; einops.rearrange for the transpose). The driver runs LLaMa-style MLP shapes (d 1024 -> 2816 at batch 2 x 1024 tokens, 4096 -> 11008 at
batch 4 x 512) forward and backward; compared with torch in fp32 (output and
the three gradients). einops is a stand-in (a pattern-based rearrange)."""

import _corpus22_support as S

S.install_einops_standin()
import torch  # noqa: E402
from fused_swiglu import FastAccumFusedSwiGLU  # noqa: E402

dev = S.device()
SHAPES = S.pick([(2, 1024, 1024, 2816), (4, 512, 4096, 11008)], [(1, 32, 32, 64), (2, 16, 64, 32)])
res = S.swiglu_check(FastAccumFusedSwiGLU.apply, torch.float16, SHAPES, dev)
S.sync()
print(
    "fusedswiglu FastAccumFusedSwiGLU (fp16) fwd/bwd rel err out/dx/dWg/dWu vs fp32: "
    + "; ".join(f"{s}: " + "/".join(f"{e:.1e}" for e in errs) for s, errs in res)
)
