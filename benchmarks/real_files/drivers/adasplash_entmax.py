"""Corpus driver (kx's code): deep-spin/adasplash's row-wise entmax kernels
(adasplash/triton_entmax_v2.py: _fwd_entmax with histogram initialisation of the threshold and
hybrid Halley / bisection updates, _bwd_entmax; both autotuned) through the package's public
helpers triton_entmax15 and triton_sparsemax, plus the v1 kernels (triton_entmax.py through
triton_entmax_v1, fast_math on) on attention-score-shaped rows, 16 x 1024 rows of 4096 in fp32; every output and the input gradient of a random upstream
gradient vs kx's float64 bisection entmax with its closed-form backward."""

import _corpus14_support as S
import torch
from adasplash import triton_entmax15, triton_entmax_v1, triton_sparsemax  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
R, N = S.pick((16 * 1024, 4096), (8, 64))

cases = [
    ("entmax15", 1.5, lambda x: triton_entmax15(x)),
    ("sparsemax", 2.0, lambda x: triton_sparsemax(x)),
    ("entmax15 v1", 1.5, lambda x: triton_entmax_v1(x, alpha=1.5)),
]
for name, alpha, fn in cases:
    x = (torch.randn(R, N, device=dev) * 3).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    y = fn(x)
    want = S.entmax_ref(xr, alpha)
    g = torch.randn_like(want)
    y.backward(g)
    want.backward(g)
    nnz = (y > 0).float().sum(-1).mean().item()
    print(
        f"{name}: out rel err {S.rel_err(y, want):.1e}, dx rel err {S.rel_err(x.grad, xr.grad):.1e}, "
        f"row sums within {(y.sum(-1) - 1).abs().max().item():.1e} of 1, mean support {nnz:.1f} of {N}"
    )
torch.cuda.synchronize()
print("adasplash_entmax ok")
