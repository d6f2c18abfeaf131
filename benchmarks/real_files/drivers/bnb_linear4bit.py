"""Corpus driver (kx's code): bitsandbytes QLoRA-style 4-bit layers on its Triton backend
(bitsandbytes/backends/triton, registered for cuda as bitsandbytes registers it for xpu, since
the CUDA C library is not built here). bnb.nn.Linear4bit NF4 with double quantization
(compress_statistics: absmax re-quantized by the 8-bit blockwise kernel) and FP4 without;
moving Params4bit to the GPU runs the 4-bit quantize kernels. Inference (no grad) goes through
the gemm_4bit op (nested absmax dequantize_blockwise + dequantize_4bit), training through
MatMul4Bit forward + backward (dequantize_4bit twice). Then bitsandbytes.functional
quantize_blockwise / dequantize_blockwise (dynamic 8-bit map, blocksizes 4096 and 256) and
quantize_4bit / dequantize_4bit with blocksize 128 and a uint8-viewed bf16 quant_storage."""

import _corpus_support
import torch

_corpus_support.bitsandbytes_triton_cuda()
import bitsandbytes as bnb  # noqa: E402
import bitsandbytes.functional as F  # noqa: E402

torch.manual_seed(0)


def linear4bit(base, quant_type, compress_statistics, compute_dtype):
    layer = bnb.nn.Linear4bit(
        base.in_features,
        base.out_features,
        bias=True,
        compute_dtype=compute_dtype,
        compress_statistics=compress_statistics,
        quant_type=quant_type,
        device="meta",
    )
    layer.weight = bnb.nn.Params4bit(data=base.weight.data, quant_type=quant_type, requires_grad=False)
    layer.bias = torch.nn.Parameter(base.bias.data)
    return layer.to("cuda")


base = torch.nn.Linear(4096, 2048, dtype=torch.bfloat16)
nf4 = linear4bit(base, "nf4", True, torch.bfloat16)
fp4 = linear4bit(torch.nn.Linear(2048, 4096, dtype=torch.float16), "fp4", False, torch.float16)

with torch.no_grad():
    y_dec = nf4(torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16))
    y_pre = nf4(torch.randn(8, 128, 4096, device="cuda", dtype=torch.bfloat16))
x = torch.randn(4, 64, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = nf4(x)
y.float().square().mean().backward()
x2 = torch.randn(256, 2048, device="cuda", dtype=torch.float16, requires_grad=True)
y2 = fp4(x2)
y2.sum().backward()

w = torch.randn(3000, 1000, device="cuda")
for bs in (4096, 256):
    q, state = F.quantize_blockwise(w, blocksize=bs)
    w_dq = F.dequantize_blockwise(q, state)
wb = torch.randn(1024, 768, device="cuda", dtype=torch.bfloat16)
q4, st4 = F.quantize_4bit(wb, blocksize=128, quant_type="nf4", quant_storage=torch.bfloat16)
wb_dq = F.dequantize_4bit(q4, st4)
torch.cuda.synchronize()
print(
    "bnb linear4bit ok",
    tuple(y_dec.shape),
    tuple(y_pre.shape),
    tuple(x.grad.shape),
    tuple(x2.grad.shape),
    round((w - w_dq).abs().mean().item(), 4),
    round((wb - wb_dq).float().abs().mean().item(), 4),
)
