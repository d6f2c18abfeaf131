"""Corpus driver (kx's code): gemlite dynamic-activation 8-bit linear layers converted from bf16
nn.Linear with gemlite.helper: A8W8_fp8_dynamic (fp8 e4m3 weights, per-token fp8 activation
quantization by gemlite's Triton scale_activations_per_token kernel, channel-wise post-scaling)
at M=1 (GEMV_SPLITK, the 8-bit default GEMV), M=512 (GEMM) and a (4, 8, K) input (GEMM_SPLITK),
and A8W8_int8_dynamic (int8 x int8 with int32 accumulation, rounding quantizer) at M=32, all
through the gemlite::forward_functional custom op and gemlite's default "fast" autotuning."""

import torch
from gemlite.helper import A8W8_fp8_dynamic, A8W8_int8_dynamic

torch.manual_seed(0)
device = "cuda:0"
K, N = 4096, 4096
linear = torch.nn.Linear(K, N, bias=True, device=device, dtype=torch.bfloat16)
with torch.no_grad():
    linear.weight.div_(10)

fp8_layer = A8W8_fp8_dynamic(device=device, dtype=torch.bfloat16).from_linear(linear, del_orig=False)
int8_layer = A8W8_int8_dynamic(device=device, dtype=torch.bfloat16).from_linear(linear, del_orig=False)

res = []
for layer, shape in [
    (fp8_layer, (1, K)),
    (fp8_layer, (512, K)),
    (fp8_layer, (4, 8, K)),
    (int8_layer, (32, K)),
]:
    x = torch.randn(shape, device=device, dtype=torch.bfloat16) / 4
    y = layer(x)
    err = (y.float() - linear(x).float()).abs().mean().item()
    res.append((tuple(y.shape), round(err, 4)))
torch.cuda.synchronize()
print("gemlite A8W8 dynamic ok", res)
