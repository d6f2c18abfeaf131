"""Corpus driver (kx's code): gemlite microscaling (MX) linear layers from a bf16 nn.Linear:
A16W4_MXFP (packed e2m1 weights with e8m0 group-32 scales, bf16 activations) at M=1 and M=128,
and A8W8_MXFP_dynamic with post_scale=False (mxfp8 weights, activations quantized to mxfp8 on
the fly by gemlite's Triton scale_activations_mxfp8 kernel) at M=16. MX dtypes always take
gemlite's GEMM_SPLITK path below 65 rows and GEMM above (tl.dot_scaled kernels), through the
gemlite::forward_functional custom op and gemlite's default "fast" autotuning."""

import torch
from gemlite.helper import A16W4_MXFP, A8W8_MXFP_dynamic

torch.manual_seed(0)
device = "cuda:0"
K, N = 4096, 2048
linear = torch.nn.Linear(K, N, bias=False, device=device, dtype=torch.bfloat16)
with torch.no_grad():
    linear.weight.div_(10)

w4 = A16W4_MXFP(device=device, dtype=torch.bfloat16).from_linear(linear, del_orig=False)
w8a8 = A8W8_MXFP_dynamic(device=device, dtype=torch.bfloat16, post_scale=False).from_linear(
    linear, del_orig=False
)

res = []
for layer, m in [(w4, 1), (w4, 128), (w8a8, 16)]:
    x = torch.randn(m, K, device=device, dtype=torch.bfloat16) / 10
    y = layer(x)
    res.append((m, tuple(y.shape), round((y.float() - linear(x).float()).abs().mean().item(), 5)))
torch.cuda.synchronize()
print("gemlite MXFP ok", res)
