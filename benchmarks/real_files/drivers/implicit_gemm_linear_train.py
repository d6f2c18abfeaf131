"""Corpus driver (kx's code): l1351868270/implicit_gemm.triton's Triton linear layer
(triton_kernel/linear.py: ld_linear, a torch.autograd.Function whose forward and both backward
GEMMs go through one @triton.autotune'd kernel (16 configs keyed on M, N, K) with a bias pointer
that is None in the backward launches (a None-specialised argument), grad_input / grad_weight by
swapping strides instead of transposing, and a second Triton kernel summing grad_output's rows
for the bias gradient) used as the layers of a 3-layer float32 MLP trained for a few SGD steps on
a regression target. Each step's loss and every gradient are checked against the same MLP with
torch.nn.functional.linear (kept in sync by copying weights)."""

import _corpus18_support as S
import torch
import torch.nn.functional as F

S.install_pytest_standin()
from triton_kernel.linear import ld_linear  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, DIMS, STEPS = S.pick((1024, (1024, 4096, 4096, 256), 3), (32, (32, 64, 64, 16), 2))

params = []
for din, dout in zip(DIMS[:-1], DIMS[1:]):
    w = (torch.randn(dout, din, device=dev) / din**0.5).requires_grad_()
    b = torch.zeros(dout, device=dev).requires_grad_()
    params += [w, b]
ref_params = [p.detach().clone().requires_grad_() for p in params]


def mlp(x, ps, linear):
    n = len(ps) // 2
    for i in range(n):
        x = linear(x, ps[2 * i], ps[2 * i + 1])
        if i < n - 1:
            x = torch.relu(x)
    return x


x = torch.randn(B, DIMS[0], device=dev)
target = torch.randn(B, DIMS[-1], device=dev)
for step in range(STEPS):
    loss = F.mse_loss(mlp(x, params, ld_linear), target)
    loss.backward()
    loss_ref = F.mse_loss(mlp(x, ref_params, F.linear), target)
    loss_ref.backward()
    errs = [S.rel_err(p.grad, q.grad) for p, q in zip(params, ref_params)]
    print(
        f"step {step}: loss {loss.item():.5f} (ref {loss_ref.item():.5f}), worst grad rel err {max(errs):.1e}"
    )
    # tl.dot on float32 runs in TF32 on the GPU (F.linear does not): loose tolerances
    assert abs(loss.item() - loss_ref.item()) <= 1e-2 * abs(loss_ref.item()) and max(errs) < 3e-2, errs
    with torch.no_grad():
        for p, q in zip(params, ref_params):
            p -= 0.1 * p.grad
            q.copy_(p)
            p.grad = q.grad = None
torch.cuda.synchronize()
print("implicit_gemm_linear_train ok")
