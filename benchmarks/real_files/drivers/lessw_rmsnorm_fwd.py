"""Corpus driver (kx's code): lessw2020's fused RMSNorm forward (lessw2020/
triton_kernels_for_fun_and_profit, kernels/rms_norm.py: _fwd_rms_kernel, one program per row,
a first pass over the row through a (1, block) tl.make_block_ptr advanced with tl.advance and
boundary_check for the mean square (fp32), the reciprocal RMS stored per row, then a second
masked pass applying it and the weight; rows and columns are constexpr arguments, so every
shape compiles anew; block size 128..4096 from the row width and the element size, warps from
the block (Kernl's sizing)) called through triton_rmsnorm on activations of LLaMA-like widths
in fp32 / fp16 / bf16, widths above 4096 taking several column blocks. Forward only: the
file's backward is a stub (returns None, None). Checked against the repo's own torch RMSNorm
formula (x * rsqrt(mean(x^2) + 1e-8) in fp32, times the weight)."""

import _corpus20_support as S
import torch
from kernels.rms_norm import triton_rmsnorm

torch.manual_seed(0)
dev = S.device()
CASES = S.pick(
    [((4, 2048, 4096), torch.float16), ((8, 1024, 5120), torch.bfloat16), ((2, 512, 8192), torch.float32), ((16, 4096, 1000), torch.float16)],
    [((2, 4, 64), torch.float32), ((1, 3, 300), torch.float32), ((1, 2, 5000), torch.float32)],
)

errs = []
for shape, dt in CASES:
    x = torch.randn(shape, device=dev, dtype=dt) * 2 + 0.3
    w = (1 + 0.1 * torch.randn(shape[-1], device=dev)).to(dt)
    out = triton_rmsnorm(x, w)
    xf = x.float()
    ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-8) * w.float()
    errs.append(S.rel_err(out.float(), ref))
print(
    f"fused RMSNorm forward on {len(CASES)} (shape, dtype) cases, widths {sorted({c[0][-1] for c in CASES})}: rel err "
    + " / ".join(f"{e:.1e}" for e in errs)
)
assert max(errs) < 2e-2, errs  # fp16 / bf16 outputs
S.sync()
print("lessw_rmsnorm_fwd ok")
