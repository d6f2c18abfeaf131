"""Corpus driver (kx's code): lessw2020's fused softmax (lessw2020/
triton_kernels_for_fun_and_profit, kernels/fused_softmax.py: _softmax_kernel_fwd, one
program per row with the row padded to the next power of two (masked loads of -inf), the max
subtracted before exp, warps 4 / 8 / 16 from the block size) called through the autograd
Function fused_softmax on attention-score shaped tensors (rows of several widths, including
non-powers of two, fp32 and fp16), under torch.no_grad: the file's backward returns two
gradients for one input and passes its pointers in swapped order, so only the forward is run.
Checked against torch.softmax in fp32."""

import _corpus20_support as S
import torch
from kernels.fused_softmax import fused_softmax

torch.manual_seed(0)
dev = S.device()
CASES = S.pick(
    [((4, 16, 1024, 1024), torch.float32), ((8, 12, 512, 512), torch.float16), ((2048, 3000), torch.float32), ((64, 8192), torch.float16)],
    [((2, 3, 16, 16), torch.float32), ((5, 100), torch.float32)],
)

errs = []
with torch.no_grad():
    for shape, dt in CASES:
        x = (torch.randn(shape, device=dev) * 4).to(dt)
        out = fused_softmax(x)
        errs.append(S.rel_err(out.float(), torch.softmax(x.float(), -1)))
print(
    f"fused softmax forward on {len(CASES)} (shape, dtype) cases, rows up to {max(c[0][-1] for c in CASES)}: rel err "
    + " / ".join(f"{e:.1e}" for e in errs)
)
assert max(errs) < 2e-2, errs
S.sync()
print("lessw_fused_softmax ok")
