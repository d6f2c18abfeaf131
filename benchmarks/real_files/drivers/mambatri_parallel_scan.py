"""Corpus driver (kx's code): sustcsonglin/mamba-triton's parallel selective scan
(triton_parallel_scan.py: triton_selective_scan over SelectiveScan, an autograd.Function whose
forward_scan kernel runs one program per (batch, channel) over the whole sequence, packing each
step's (x, f) float32 pair into one uint64 for tl.associative_scan with a first-order-recurrence
combine function, once per state dimension, and whose backward_scan_du_delta_A kernel runs the
reverse scan for du / d_delta / dA / dB / dC) at power-of-two sequence lengths (the whole sequence
is one block), float32, output and the five gradients checked against a plain PyTorch recurrence.
The README warns of length-dependent trouble with this file; the driver states what it sees."""

import _corpus16_support as S
import torch

S.install_einops_standin()
from triton_parallel_scan import triton_selective_scan  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick([(2, 256, 512, 16), (2, 1024, 256, 16)], [(2, 8, 4, 4), (1, 16, 4, 4)])
tol = S.pick(2e-3, 1e-4)

for b, T, d, K in CASES:
    A = (-torch.rand(d, K, device=dev).exp()).requires_grad_(True)
    u = torch.randn(b, T, d, device=dev, requires_grad=True)
    delta = torch.randn(b, T, d, device=dev).sigmoid().requires_grad_(True)
    Bm = torch.randn(b, T, K, device=dev, requires_grad=True)
    Cm = torch.randn(b, T, K, device=dev, requires_grad=True)
    Dv = torch.randn(d, device=dev, requires_grad=True)
    leaves = (u, delta, A, Bm, Cm)

    y = triton_selective_scan(u, delta, A, Bm, Cm, Dv)
    dy = torch.randn_like(y)
    got_grads = torch.autograd.grad(y, leaves, dy)

    y_ref, _ = S.selective_scan_reference(u, delta, A, Bm, Cm, Dv)
    want_grads = torch.autograd.grad(y_ref, leaves, dy)

    errs = [S.rel_err(y, y_ref)] + [S.rel_err(g, w) for g, w in zip(got_grads, want_grads)]
    print(f"b {b} T {T} d {d} K {K}: rel err y / du / ddelta / dA / dB / dC " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

torch.cuda.synchronize()
print("mambatri_parallel_scan ok")
