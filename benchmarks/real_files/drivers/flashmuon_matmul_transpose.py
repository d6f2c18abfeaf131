"""Corpus driver (kx's code): flash-muon's Triton X @ X.T kernel (nil0x9/flash-muon,
flash_muon/matmul_transpose_triton.py: mmt_kernel, the Triton matmul tutorial's grouped tiling
with one square block size, lower-triangle programs returning early, the upper tile stored twice
(direct and transposed), 36 autotune configs keyed on M and K) through the package's
matmul_transpose / matmul_transpose_assign wrappers at the shapes Muon feeds it (a GPT-2-medium /
Llama-sized weight's momentum in bfloat16: square, wide, a ragged M and K; each of the 36
configs is compiled per dtype and divisibility, so the real run keeps to bfloat16); each checked
against torch's x @ x.T. The toy sizes use float16 / float32 (Triton 3.8's interpreter gets
bfloat16 tl.dot wrong on CPU)."""

import _corpus17_support as S
import torch
from flash_muon import matmul_transpose, matmul_transpose_assign

torch.manual_seed(0)
dev = "cuda"
SHAPES = S.pick(
    [
        (1024, 1024, torch.bfloat16),
        (1024, 4096, torch.bfloat16),
        (4096, 4096, torch.bfloat16),
        (1000, 2730, torch.bfloat16),
    ],
    [(32, 32, torch.float16), (40, 72, torch.float16), (32, 64, torch.float32)],
)
for m, k, dtype in SHAPES:
    x = torch.randn(m, k, device=dev, dtype=dtype) / k**0.25
    got = matmul_transpose(x)
    want = (x.float() @ x.float().T).to(dtype)
    err = S.rel_err(got, want)
    sym = S.rel_err(got, got.T)
    print(f"({m}, {k}) {dtype}: rel err {err:.1e}, asymmetry {sym:.1e}")
    assert err < (1e-2 if dtype != torch.float32 else 2e-3) and sym == 0, (err, sym)

# The in-place form Muon's Newton-Schulz loop uses, into a preallocated buffer.
m, k, dtype = SHAPES[0]
x = torch.randn(m, k, device=dev, dtype=dtype) / k**0.25
buf = torch.empty(m, m, device=dev, dtype=dtype)
matmul_transpose_assign(x, buf)
err = S.rel_err(buf, x.float() @ x.float().T)
print(f"assign ({m}, {k}): rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("flashmuon_matmul_transpose ok")
