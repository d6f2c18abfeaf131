"""Corpus driver (kx's code): AutoAWQ's GEMM linear on its Triton path
(awq/modules/linear/gemm.py: WQLinear_GEMM, WQLinearMMFunction; awq/modules/triton/gemm.py:
awq_gemm_kernel with split-K, awq_dequantize_kernel), as an AWQ-quantised model uses it when
the awq_ext CUDA kernels are not installed (TRITON_AVAILABLE). Two fp16 nn.Linear layers
(1024->1024 and 1024->2048, with and without bias) are quantised to 4 bits, group size 128,
zero point, with the scales/zeros of AutoAWQ's AwqQuantizer.pseudo_quantize_tensor (restated:
awq/quantize/quantizer.py imports transformers and the calibration datasets; it asserts
on torch.isnan(...).sum() == 0, host reads of GPU data) and packed by
WQLinear_GEMM.from_linear (per-column loops of GPU ops, the AWQ order map). Forward: a decode
batch (1 x 7 tokens: awq_gemm_triton with split_k_iters=8), a prefill (4 x 512 tokens >= 1024:
awq_dequantize_triton then torch.matmul), a bf16 input (cast to fp16 and back), and a
training-mode forward/backward (the backward dequantises with the Triton kernel and bmm's)."""

import _corpus_support
import torch
import torch.nn as nn

_corpus_support.awq_package()
from awq.modules.linear.gemm import WQLinear_GEMM  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
W_BIT, GROUP = 4, 128


def pseudo_quantize_tensor(w):  # AwqQuantizer.pseudo_quantize_tensor, zero_point=True
    org_w_shape = w.shape
    w = w.reshape(-1, GROUP)
    assert torch.isnan(w).sum() == 0
    max_val = w.amax(dim=1, keepdim=True)
    min_val = w.amin(dim=1, keepdim=True)
    max_int, min_int = 2**W_BIT - 1, 0
    scales = (max_val - min_val).clamp(min=1e-5) / max_int
    zeros = (-torch.round(min_val / scales)).clamp_(min_int, max_int)
    w = (torch.clamp(torch.round(w / scales) + zeros, min_int, max_int) - zeros) * scales
    zeros = zeros.view(org_w_shape[0], -1)
    assert torch.isnan(scales).sum() == 0
    assert torch.isnan(w).sum() == 0
    scales = scales.view(org_w_shape[0], -1)
    return w.reshape(org_w_shape), scales, zeros


def quantize(linear):  # AwqQuantizer._apply_quant for version "gemm"
    linear.weight.data, scales, zeros = pseudo_quantize_tensor(linear.weight.data)
    scales = scales.t().contiguous()
    zeros = zeros.t().contiguous()
    return WQLinear_GEMM.from_linear(
        linear=linear, w_bit=W_BIT, group_size=GROUP, init_only=False, scales=scales, zeros=zeros
    )


q_proj = quantize(nn.Linear(1024, 1024, bias=False).half().to(dev))
up_proj = quantize(nn.Linear(1024, 2048, bias=True).half().to(dev))

x = torch.randn(1, 7, 1024, dtype=torch.float16, device=dev)
y1 = up_proj(q_proj(x))  # split-K Triton GEMM
xp = torch.randn(4, 512, 1024, dtype=torch.float16, device=dev)
y2 = up_proj(q_proj(xp))  # dequantise + matmul
y3 = q_proj(torch.randn(2, 16, 1024, dtype=torch.bfloat16, device=dev))

# training-mode forward / backward (e.g. a LoRA adapter on top of the frozen AWQ layer)
q_proj.training = True
xt = torch.randn(2, 64, 1024, dtype=torch.float16, device=dev, requires_grad=True)
q_proj(xt).float().pow(2).mean().backward()
torch.cuda.synchronize()
print("awq triton gemm ok", tuple(y1.shape), tuple(y2.shape), y3.dtype, tuple(xt.grad.shape))
