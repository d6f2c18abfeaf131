"""Corpus driver (kx's code): vv137/sinkhorn's differentiable unbalanced Sinkhorn
(src/sinkhorn/sinkhorn.py: with C requiring grad, sinkhorn() calls autograd.py's
sinkhorn_differentiable, a torch.autograd.Function whose forward runs the Triton iterations of
triton/forward.py (row / column streaming log-sum-exp kernels, KL-relaxed updates
f = rho f + (1 - rho) (softmin + eps log a) with rho = eps / (eps + tau)) under no_grad, and
whose backward either recomputes the whole PyTorch Sinkhorn under autograd (grad_iters 0) or
runs grad_iters truncated PyTorch iterations from the converged potentials). The driver registers
point clouds: a learnable affine map (A, t) of the source points, squared-Euclidean cost built
with torch each step, the unbalanced dual objective <f, a> + <g, b> (tau 1.0) as the loss, Adam
for 40 steps with full recomputation then 40 with grad_iters 10 on ragged batches (masks); the
first step's gradient of A is compared with the same loss through the PyTorch backend. Prints
the loss first -> last and the transport cost."""

import _corpus23_support as S
import torch
from sinkhorn import sinkhorn  # noqa: E402
from sinkhorn.autograd import sinkhorn_differentiable  # noqa: E402

torch.manual_seed(0)
dev = S.device()
B, N, M, D = S.pick((8, 384, 320, 3), (2, 16, 12, 3))
STEPS, EPS, TAU, ITERS = S.pick(40, 4), 0.05, 1.0, S.pick(100, 20)

_, x, y, ma, mb = S.point_cloud_costs(B, N, M, D, dev, seed=2)
a = ma.float() / ma.float().sum(-1, keepdim=True)
b = mb.float() / mb.float().sum(-1, keepdim=True)
A = torch.eye(D, device=dev).requires_grad_(True)
t = torch.zeros(D, device=dev).requires_grad_(True)
opt = torch.optim.Adam([A, t], lr=0.02)


def cost():
    return torch.cdist(x @ A + t, y) ** 2


def dual(f, g):
    return ((f * a).sum(-1) + (g * b).sum(-1)).mean()


grads = []
for backend in ("triton", "pytorch"):
    out = sinkhorn(cost(), a, b, EPS, TAU, TAU, ma, mb, backend=backend, max_iters=ITERS)
    grads.append(torch.autograd.grad(dual(out.f, out.g), A)[0])

losses = []
for step in range(2 * STEPS):
    C = cost()
    if step < STEPS:
        out = sinkhorn(C, a, b, EPS, TAU, TAU, ma, mb, max_iters=ITERS)
        f, g = out.f, out.g
    else:
        f, g = sinkhorn_differentiable(C, a, b, EPS, TAU, TAU, ma, mb, ITERS, 1e-6, grad_iters=10)
    loss = dual(f, g)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
with torch.no_grad():
    out = sinkhorn(cost(), a, b, EPS, TAU, TAU, ma, mb, max_iters=ITERS)
    plan_cost = (
        out.transport_plan(cost(), EPS, ma, mb) * cost().masked_fill(~ma[..., None] | ~mb[:, None], 0)
    ).sum((-2, -1))
S.sync()
print(
    f"vv137/sinkhorn unbalanced (tau {TAU}) registration B {B} N {N} M {M}: dual loss {losses[0]:.4f} -> "
    f"{losses[STEPS - 1]:.4f} (full recompute) -> {losses[-1]:.4f} (truncated grad_iters 10); "
    f"dL/dA triton-forward vs pytorch rel err {S.rel_err(grads[0], grads[1]):.1e}; transport cost mean {plan_cost.mean():.4f}"
)
