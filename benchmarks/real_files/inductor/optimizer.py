"""Inductor corpus (kx's code): one AdamW step compiled with torch.compile (Inductor's
foreach kernels over every parameter)."""

import torch

torch.manual_seed(0)
params = [torch.randn(n, device="cuda", requires_grad=True) for n in (4096, 1024 * 1024, 333, 65536)]
for p in params:
    p.grad = torch.randn_like(p)
opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)


@torch.compile
def step():
    opt.step()


step()
torch.cuda.synchronize()
print("optimizer ok", len(opt.state))
