"""Corpus driver (kx's code): lmdeploy's W8A8 (SmoothQuant) Triton path
(lmdeploy/pytorch/kernels/cuda/w8a8_triton_kernels.py) as a quantised decoder layer uses it:
weights quantised per channel (per_channel_quant from kernels/default/w8a8_kernels.py), then
for each token batch rms_norm_dynamic_quant (per-token int8 with scales, with and without a
residual: add_rms_norm_quant_kernel), matmul_kernel_dynamic_quant (the autotuned _linear /
_linear_add kernels declared do_not_specialize=['M'], with bias and residual),
per_token_quant_int8 of an activation, for M = 1, 7, 64, 512 tokens (the decode and prefill
sizes a serving engine sees; M=1 is the value Triton specialises when it may), hidden 2048,
intermediate 5632 (TinyLlama), fp16 outputs; an fp8 (float8_e4m3fn) per-token quantisation
as the fp8 W8A8 path does."""

import _corpus_support
import torch

_corpus_support.lmdeploy_kernels()
from lmdeploy.pytorch.kernels.cuda.w8a8_triton_kernels import (  # noqa: E402
    matmul_kernel_dynamic_quant,
    per_channel_quant,
    per_token_quant_int8,
    rms_norm_dynamic_quant,
)

torch.manual_seed(0)
dev = "cuda"
HID, FFN = 2048, 5632
rms_w = torch.ones(HID, dtype=torch.float16, device=dev)
w_qkv = torch.randn(3 * HID, HID, dtype=torch.float16, device=dev) * 0.02
w_up = torch.randn(FFN, HID, dtype=torch.float16, device=dev) * 0.02
w_down = torch.randn(HID, FFN, dtype=torch.float16, device=dev) * 0.02
qkv_q, qkv_s = per_channel_quant(w_qkv, torch.int8)
up_q, up_s = per_channel_quant(w_up, torch.int8)
down_q, down_s = per_channel_quant(w_down, torch.int8)
bias = torch.randn(3 * HID, dtype=torch.float16, device=dev) * 0.01

for M in (1, 7, 64, 512):
    x = torch.randn(M, HID, dtype=torch.float16, device=dev)
    residual = torch.randn(M, HID, dtype=torch.float16, device=dev)
    xq, xs = rms_norm_dynamic_quant(x, rms_w, 1e-6)
    qkv = matmul_kernel_dynamic_quant(xq, qkv_q, xs, qkv_s, bias=bias, output_dtype=torch.float16)
    hq, hs, res = rms_norm_dynamic_quant(x, rms_w, 1e-6, residual=residual)
    up = matmul_kernel_dynamic_quant(hq, up_q, hs, up_s, output_dtype=torch.float16)
    aq, as_ = per_token_quant_int8(torch.nn.functional.silu(up), 1e-7)
    out = matmul_kernel_dynamic_quant(aq, down_q, as_, down_s, residual=res, output_dtype=torch.float16)

fq, fs = per_token_quant_int8(x, 1e-7, quant_dtype=torch.float8_e4m3fn)
torch.cuda.synchronize()
print(
    "lmdeploy w8a8 ok",
    tuple(qkv.shape),
    tuple(out.shape),
    fq.dtype,
    round(float(out.float().abs().mean()), 4),
)
