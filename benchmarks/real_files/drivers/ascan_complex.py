"""Corpus driver (kx's code): proger/accelerated-scan's complex-valued Triton scan
(accelerated_scan/complex.py: forward_scan / backward_scan on the view_as_real of complex64
gates, complex multiply inside tl.associative_scan, the Scan autograd Function) as its
tests/tests_eq_complex.py exercises it: polar gates with radius near 1 ("hard mode") or in
[0.4, 1], complex and real inputs (a real input is promoted, its gradient returned real), the
three test losses (real mean, last-step sum, |x|^2 mean) backpropagated, at sequence lengths
4096, 8000 and 16323 (one full block, several, a ragged tail), batch 1 x 512 channels."""

import torch
from accelerated_scan.complex import scan as scan_complex

losses = [
    lambda out: out.real.mean(),
    lambda out: out[:, :, -1].real.sum() + out[:, :, -1].imag.sum(),
    lambda out: out.abs().square().mean(),
]


def init(seed, seqlen, hard_mode, real_inputs, batch_size=1, dim=512):
    torch.manual_seed(seed)
    angle = 2 * torch.pi * torch.rand(batch_size, dim, seqlen, dtype=torch.float32, device="cuda")
    radius = 0.99 + 0.01 * torch.rand_like(angle) if hard_mode else 0.4 + 0.6 * torch.rand_like(angle)
    forget = torch.polar(radius, angle).to(torch.complex64).requires_grad_(True)
    if real_inputs:
        inputs = torch.randn(batch_size, dim, seqlen, device="cuda", requires_grad=True)
    else:
        inputs = torch.randn(
            batch_size, dim, seqlen, dtype=torch.complex64, device="cuda", requires_grad=True
        )
    return forget, inputs


for i, seqlen in enumerate((4096, 8000, 16323)):
    for hard_mode in (False, True):
        forget, inputs = init(11 * i + hard_mode, seqlen, hard_mode, real_inputs=hard_mode)
        out = scan_complex(forget, inputs)
        losses[i](out).backward()
        print(seqlen, hard_mode, out.dtype, inputs.grad.dtype, forget.grad.abs().max().item())
torch.cuda.synchronize()
print("accelerated-scan complex ok")
