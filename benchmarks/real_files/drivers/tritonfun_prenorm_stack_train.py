"""Corpus driver (kx's code): GiftedNovaHD/triton-fun's two fused norms (ops/rmsnorm.py's
FusedRMSNorm and ops/ssnorm.py's SSNorm) as the pre-norms of a small residual MLP stack in the
Mamba style their docstrings describe (hidden_states, residual = norm(x, residual, prenorm=True,
residual_in_fp32=True); the first block has no residual yet; a final norm with prenorm=False),
RMSNorm and SSNorm alternating, trained for a few AdamW steps with loss.backward() in bf16; the
first step's loss and gradients checked against the same stack with PyTorch norms."""

import copy

import _corpus15_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F
from ops.rmsnorm import FusedRMSNorm
from ops.ssnorm import SSNorm

torch.manual_seed(0)
dev = "cuda"
dtype = S.pick(torch.bfloat16, torch.float32)
B, T, D, LAYERS, STEPS = S.pick((8, 512, 1024, 6, 4), (2, 8, 64, 2, 2))
tol = S.pick(5e-2, 1e-4)


class Stack(nn.Module):
    def __init__(self, reference=False):
        super().__init__()
        self.reference = reference
        self.norms = nn.ModuleList(
            [FusedRMSNorm(D, device=dev, dtype=dtype) if i % 2 == 0 else SSNorm(D) for i in range(LAYERS)]
        )
        self.mlps = nn.ModuleList(
            [nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D)) for _ in range(LAYERS)]
        )
        self.final = FusedRMSNorm(D, device=dev, dtype=dtype)
        self.head = nn.Linear(D, D)

    def norm(self, mod, x, residual, prenorm):
        if not self.reference:
            return mod(x, residual=residual, prenorm=prenorm, residual_in_fp32=True)
        res = x.float() if residual is None else residual + x.float()
        u = res.float()
        if isinstance(mod, SSNorm):
            y = F.normalize(u, p=2, dim=-1, eps=mod.eps) * D**0.5 * (mod.g.float() + 1)
        else:
            y = u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + mod.eps) * mod.weight.float()
        y = y.to(x.dtype)
        return (y, res) if prenorm else y

    def forward(self, x):
        residual = None
        for norm, mlp in zip(self.norms, self.mlps):
            h, residual = self.norm(norm, x, residual, True)
            x = mlp(h)
        return self.head(self.norm(self.final, x, residual, False))


model = Stack().to(dev, dtype)
reference = copy.deepcopy(model)
reference.reference = True
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(B, T, D, device=dev, dtype=dtype)
target = torch.randn(B, T, D, device=dev, dtype=dtype)
F.mse_loss(reference(x).float(), target.float()).backward()
for step in range(STEPS):
    loss = F.mse_loss(model(x).float(), target.float())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if step == 0:
        ref = dict(reference.named_parameters())
        gerr = max(S.rel_err(p.grad.float(), ref[n].grad.float()) for n, p in model.named_parameters())
        print(f"step 0 worst grad rel err vs PyTorch norms {gerr:.1e}")
        assert gerr < tol, gerr
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

torch.cuda.synchronize()
print("tritonfun_prenorm_stack_train ok")
