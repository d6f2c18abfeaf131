"""Corpus driver (kx's code): rtqichen/torchdiffeq's adjoint method (torchdiffeq/_impl/adjoint.py:
OdeintAdjointMethod, an autograd.Function whose backward integrates the augmented
state / adjoint / parameter-gradient system backwards in time with odeint and
torch.autograd.grad of the compiled right-hand side at every stage) driving an ODE-Net image
classifier block in the style of examples/odenet_mnist.py (GroupNorm - ReLU - time-concatenated
3x3 convolutions over 64 channels at 6x6, the ODE integrated from t 0 to 1 with dopri5 at
rtol / atol 1e-3), the right-hand side module under torch.compile; a downsampling stem and a
linear head, cross-entropy, loss.backward() through odeint_adjoint, SGD with momentum. The
adjoint gradients are checked against direct backpropagation through a fixed-grid rk4 solve of
the same module first."""

import _corpus17_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F

S.install_scipy_standin()
from torchdiffeq import odeint, odeint_adjoint  # noqa: E402


class ConcatConv2d(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.conv = nn.Conv2d(dim_in + 1, dim_out, 3, padding=1)

    def forward(self, t, x):
        tt = torch.ones_like(x[:, :1]) * t
        return self.conv(torch.cat([tt, x], 1))


class ODEfunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1, self.norm2, self.norm3 = (nn.GroupNorm(min(32, dim), dim) for _ in range(3))
        self.conv1, self.conv2 = ConcatConv2d(dim, dim), ConcatConv2d(dim, dim)

    def forward(self, t, x):
        out = self.conv1(t, F.relu(self.norm1(x)))
        out = self.conv2(t, F.relu(self.norm2(out)))
        return self.norm3(out)


torch.manual_seed(0)
dev = "cuda"
BATCH, DIM, ITERS = S.pick((128, 64, 4), (2, 8, 1))
stem = nn.Sequential(
    nn.Conv2d(1, DIM, 3, 1),
    nn.GroupNorm(min(32, DIM), DIM),
    nn.ReLU(),
    nn.Conv2d(DIM, DIM, 4, 2, 1),
    nn.GroupNorm(min(32, DIM), DIM),
    nn.ReLU(),
    nn.Conv2d(DIM, DIM, 4, 2, 1),
).to(dev)
func = ODEfunc(DIM).to(dev)
cfunc = torch.compile(func)
head = nn.Sequential(
    nn.GroupNorm(min(32, DIM), DIM), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(DIM, 10)
).to(dev)
params = [*stem.parameters(), *func.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
t01 = torch.tensor([0.0, 1.0], device=dev)

# Adjoint vs direct backprop on a fixed grid.
x = torch.randn(BATCH, 1, 28, 28, device=dev)
z = stem(x).detach()
grads = []
for solve in (odeint_adjoint, odeint):
    func.zero_grad()
    out = solve(cfunc, z, t01, method="rk4", options=dict(step_size=0.02))[1]
    out.pow(2).mean().backward()
    grads.append(torch.cat([p.grad.flatten() for p in func.parameters()]))
err = S.rel_err(grads[0], grads[1])
print(f"adjoint vs direct rk4 parameter grads rel err {err:.1e}")
assert err < 5e-2, err  # continuous adjoint vs discrete backprop: agree to the solver error

for itr in range(ITERS):
    x = torch.randn(BATCH, 1, 28, 28, device=dev)
    y = torch.randint(0, 10, (BATCH,), device=dev)
    opt.zero_grad()
    z = odeint_adjoint(cfunc, stem(x), t01, rtol=1e-3, atol=1e-3)[1]
    loss = F.cross_entropy(head(z), y)
    loss.backward()
    opt.step()
    print(f"iter {itr}: loss {loss.item():.4f}")
    assert torch.isfinite(loss)
torch.cuda.synchronize()
print("torchdiffeq_adjoint_compile_train ok")
