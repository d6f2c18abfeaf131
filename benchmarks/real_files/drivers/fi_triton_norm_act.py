"""Corpus driver (kx's code): FlashInfer's Triton normalization and activation helpers
(flashinfer.triton.norm, flashinfer.triton.activation): rms_norm into a bf16 output and into an
fp8 e4m3 output with a static output scale (scale_and_clamp on the target dtype), with an input
scale; rms_norm_add_residual in place (residual updated, x overwritten) and into a separate fp8
output; silu_and_mul to bf16, and with input / output scales to fp8. Hidden size 4096 (a
two-pass loop over BLOCK_SIZE chunks) and 5120 (non-power-of-two, masked tail)."""

import _corpus_support
import torch

_corpus_support.flashinfer_triton_package()
from flashinfer.triton.activation import silu_and_mul  # noqa: E402
from flashinfer.triton.norm import rms_norm, rms_norm_add_residual  # noqa: E402

torch.manual_seed(0)
fp8 = torch.float8_e4m3fn
res = []
for n in (4096, 5120):
    x = torch.randn(64, n, device="cuda", dtype=torch.bfloat16)
    w = torch.rand(n, device="cuda", dtype=torch.bfloat16) + 0.5
    out = torch.empty_like(x)
    rms_norm(x, w, out, 1e-6)
    out8 = torch.empty(64, n, device="cuda", dtype=fp8)
    rms_norm(
        x,
        w,
        out8,
        1e-6,
        in_scale=torch.tensor([0.5], device="cuda"),
        out_scale=torch.tensor([4.0], device="cuda"),
    )
    residual = torch.randn_like(x)
    xr = x.clone()
    rms_norm_add_residual(xr, residual, w, 1e-6)
    out8r = torch.empty(64, n, device="cuda", dtype=fp8)
    rms_norm_add_residual(
        x.clone(), residual, w, 1e-6, x_out=out8r, x_out_scale=torch.tensor([2.0], device="cuda")
    )
    ref = x.float() * torch.rsqrt(x.float().square().mean(-1, keepdim=True) + 1e-6) * w.float()
    res.append((n, round((out.float() - ref).abs().max().item(), 3)))

g = torch.randn(256, 2 * 11008, device="cuda", dtype=torch.bfloat16)
act = silu_and_mul(g)
act8 = silu_and_mul(
    g, x_scale=torch.tensor([0.5], device="cuda"), o_scale=torch.tensor([8.0], device="cuda"), dtype=fp8
)
torch.cuda.synchronize()
print("flashinfer triton norm/act ok", res, tuple(act.shape), act8.dtype)
