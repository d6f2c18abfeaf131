"""Corpus driver (kx's code): rtqichen/torchdiffeq's odeint (torchdiffeq/_impl/odeint.py with
_check_inputs' tuple / time handling, the adaptive dopri5 solver of rk_common.py with its
interpolating dense output, error-ratio step control and mixed-norm, and the fixed-grid rk4)
differentiated straight through, with the ODE right-hand side compiled: examples/ode_demo.py's
spiral-fitting setup (true dynamics y' = (y^3) A, an MLP ODEFunc 2 -> 50 -> tanh -> 2 on y^3,
random windows of 10 of 1000 time points, batch 20, RMSprop, L1 loss), then a wider latent
ODE (256-dim state, a 1024-wide SiLU MLP with time input, batch 512) trained with dopri5 and
rk4 under torch.compile; each model's compiled solve is checked against the eager solve at the
same weights."""

import _corpus17_support as S
import torch
import torch.nn as nn

S.install_scipy_standin()
from torchdiffeq import odeint  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DATA_SIZE, ITERS, WIDE, WIDE_BATCH, WIDE_ITERS = S.pick(
    (1000, 20, (256, 1024), 512, 4), (100, 2, (8, 16), 4, 1)
)

true_y0 = torch.tensor([[2.0, 0.0]], device=dev)
t = torch.linspace(0.0, 25.0, DATA_SIZE, device=dev)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], device=dev)


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y**3, true_A)


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y**3)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t, method="dopri5")


def get_batch(batch_time=10, batch_size=20):
    s = torch.randperm(DATA_SIZE - batch_time, device=dev)[:batch_size]
    return true_y[s], t[:batch_time], torch.stack([true_y[s + i] for i in range(batch_time)], dim=0)


func = ODEFunc().to(dev)
cfunc = torch.compile(func)
optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-3)
for itr in range(ITERS):
    optimizer.zero_grad()
    batch_y0, batch_t, batch_y = get_batch()
    pred_y = odeint(cfunc, batch_y0, batch_t).to(dev)
    loss = torch.mean(torch.abs(pred_y - batch_y))
    loss.backward()
    optimizer.step()
    assert torch.isfinite(loss)
with torch.no_grad():
    err = S.rel_err(odeint(cfunc, true_y0, t[:200]), odeint(func, true_y0, t[:200]))
print(f"spiral: {ITERS} iterations, last loss {loss.item():.4f}, compiled vs eager solve rel err {err:.1e}")
assert err < 1e-3, err


class LatentODEFunc(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim + 1, hidden),
            nn.SiLU(),
            nn.Linear(hidden, hidden),
            nn.SiLU(),
            nn.Linear(hidden, dim),
        )

    def forward(self, t, y):
        return self.net(torch.cat([y, t.expand(y.shape[0], 1)], dim=-1))


dim, hidden = WIDE
lfunc = LatentODEFunc(dim, hidden).to(dev)
clfunc = torch.compile(lfunc)
opt = torch.optim.Adam(lfunc.parameters(), lr=1e-3)
ts = torch.linspace(0, 1, 8, device=dev)
for method, options in (("dopri5", None), ("rk4", dict(step_size=0.05))):
    for itr in range(WIDE_ITERS):
        y0 = torch.randn(WIDE_BATCH, dim, device=dev)
        target = torch.sin(y0)[None] * ts[:, None, None]
        pred = odeint(clfunc, y0, ts, method=method, options=options, rtol=1e-5, atol=1e-6)
        loss = (pred - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        assert torch.isfinite(loss)
    with torch.no_grad():
        y0 = torch.randn(WIDE_BATCH, dim, device=dev)
        err = S.rel_err(
            odeint(clfunc, y0, ts, method=method, options=options),
            odeint(lfunc, y0, ts, method=method, options=options),
        )
    print(f"latent ODE {method}: loss {loss.item():.4f}, compiled vs eager solve rel err {err:.1e}")
    assert err < 1e-3, err
torch.cuda.synchronize()
print("torchdiffeq_compile_train ok")
