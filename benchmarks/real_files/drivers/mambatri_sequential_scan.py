"""Corpus driver (kx's code): sustcsonglin/mamba-triton's sequential selective scan
(triton_sequential_scan.py: triton_selective_scan_sequential over SelectiveScan, an
autograd.Function whose forward runs the fwd_recurrence kernel (one program per batch x 32- or
64-channel block, a [BV, K] state carried over the T steps, every step's state kept in H) and a
TorchScript reduce(H, C), and whose backward runs the bwd_recurrence kernel backwards in time for
du / d_delta / dA / dB / dC) as Mamba's inner SSM uses it: float32 u / delta / A / B / C / D with
an initial state, at a batch over 16 (BV 64, 4 warps) and a batch of 2 (BV 32, 2 warps), output,
final state and all five gradients checked against a plain PyTorch recurrence."""

import _corpus16_support as S
import torch

S.install_einops_standin()
from triton_sequential_scan import triton_selective_scan_sequential  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
# (batch, T, d_inner, d_state): the first batch is over 16 (BV 64), the second is not (BV 32).
CASES = S.pick([(20, 256, 512, 16), (2, 1024, 1024, 16)], [(17, 4, 64, 16), (2, 8, 64, 16)])
tol = S.pick(2e-3, 1e-4)

for b, T, d, K in CASES:
    A = (-torch.rand(d, K, device=dev).exp()).requires_grad_(True)
    u = torch.randn(b, T, d, device=dev, requires_grad=True)
    delta = torch.randn(b, T, d, device=dev).sigmoid().requires_grad_(True)
    Bm = torch.randn(b, T, K, device=dev, requires_grad=True)
    Cm = torch.randn(b, T, K, device=dev, requires_grad=True)
    Dv = torch.randn(d, device=dev, requires_grad=True)
    h0 = torch.randn(b, d, K, device=dev)
    leaves = (u, delta, A, Bm, Cm)

    y, h_last = triton_selective_scan_sequential(u, delta, A, Bm, Cm, Dv, h0)
    dy = torch.randn_like(y)
    got_grads = torch.autograd.grad(y, leaves, dy)

    y_ref, h_ref = S.selective_scan_reference(u, delta, A, Bm, Cm, Dv, h0)
    want_grads = torch.autograd.grad(y_ref, leaves, dy)

    errs = [S.rel_err(y, y_ref), S.rel_err(h_last, h_ref)]
    errs += [S.rel_err(g, w) for g, w in zip(got_grads, want_grads)]
    print(f"b {b} T {T} d {d} K {K}: rel err y / h_T / du / ddelta / dA / dB / dC " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

torch.cuda.synchronize()
print("mambatri_sequential_scan ok")
