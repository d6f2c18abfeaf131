"""Corpus driver (kx's code): DeepSpeed's Triton grouped GEMM (deepspeed.ops.triton_ops.
group_gemm_triton, the autograd drop-in for torch._grouped_mm used by AutoEP experts on sm8x)
and its fused SwiGLU, forward + backward: a SwiGLU expert MLP over 8 experts with uneven and
empty token groups in bf16 (expert weights in their native [E, N, K] layout, trans_b=True),
then fp32 and fp16 2-D x 3-D products with trans_b=False. Exercises the @triton.autotune'd
forward kernel (constexpr NUM_GROUPS loop mapping M-tiles to groups), the autotuned
weight-gradient kernel and the group-metadata kernel."""

import _corpus_support
import torch

_corpus_support.deepspeed_package()
from deepspeed.ops.triton_ops import group_gemm_triton, swiglu  # noqa: E402

torch.manual_seed(0)
E, D, F = 8, 1024, 2048
counts = torch.tensor([96, 0, 250, 17, 128, 300, 64, 1], device="cuda")
offs = torch.cumsum(counts, 0).to(torch.int32)
M = int(counts.sum())

x = torch.randn(M, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w1 = (torch.randn(E, F, D, device="cuda", dtype=torch.bfloat16) * 0.02).requires_grad_()
w3 = (torch.randn(E, F, D, device="cuda", dtype=torch.bfloat16) * 0.02).requires_grad_()
w2 = (torch.randn(E, D, F, device="cuda", dtype=torch.bfloat16) * 0.02).requires_grad_()
h = swiglu(group_gemm_triton(x, w1, offs, trans_b=True), group_gemm_triton(x, w3, offs, trans_b=True))
y = group_gemm_triton(h, w2, offs, trans_b=True)
y.float().square().mean().backward()

for dtype in (torch.float32, torch.float16):
    a = torch.randn(M, 512, device="cuda", dtype=dtype, requires_grad=True)
    b = torch.randn(E, 512, 384, device="cuda", dtype=dtype, requires_grad=True)
    out = group_gemm_triton(a, b, offs, trans_b=False)
    out.sum().backward()
torch.cuda.synchronize()
print("deepspeed group_gemm ok", tuple(y.shape), tuple(w1.grad.shape), tuple(b.grad.shape), out.dtype)
