"""An autotuned RMSNorm forward in the style of the fused-kernel libraries: one row per
program, the block size and warps tuned over 16 configs (what a real autotuner compiles
on first launch), then a second kernel for the backward's weight-gradient reduction."""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()

SCALE = tl.constexpr(1.0)  # benchmarks/bench_first_stages.py rewrites this line so nothing is a cache hit


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": block}, num_warps=warps)
        for block in (1024, 2048, 4096, 8192)
        for warps in (2, 4, 8, 16)
    ],
    key=["n_cols"],
)
@triton.jit
def rms_norm_fwd(x_ptr, w_ptr, y_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    y = x * rstd * w * SCALE
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_dw(dy_ptr, x_ptr, rstd_ptr, dw_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for row in range(n_rows):
        dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        acc += dy * x * tl.load(rstd_ptr + row)
    tl.store(dw_ptr + cols, acc, mask=mask)


def rms_norm(x, w, eps=1e-6):
    y = torch.empty_like(x)
    rstd = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    rms_norm_fwd[(x.shape[0],)](x, w, y, rstd, x.stride(0), x.shape[1], eps)
    return y, rstd


if __name__ == "__main__":
    x = torch.randn(4096, 4096, device=DEVICE, dtype=torch.bfloat16)
    w = torch.randn(4096, device=DEVICE, dtype=torch.bfloat16)
    y, rstd = rms_norm(x, w)
    dw = torch.empty(4096, device=DEVICE, dtype=torch.float32)
    rms_norm_dw[(triton.cdiv(4096, 256),)](
        torch.ones_like(y), x, rstd, dw, x.stride(0), 4096, 4096, BLOCK=256
    )
