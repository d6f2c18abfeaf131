"""Inductor corpus (kx's code): residual add + dropout + LayerNorm in bf16, forward and
backward under torch.compile (Inductor's fused norm and its philox dropout)."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


@torch.compile
def add_dropout_norm(x, residual, weight, bias):
    h = residual + F.dropout(x, p=0.1, training=True)
    return F.layer_norm(h, (h.shape[-1],), weight, bias), h


x = torch.randn(8, 256, 1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
residual = torch.randn_like(x, requires_grad=True)
weight = torch.ones(1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
bias = torch.zeros(1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y, h = add_dropout_norm(x, residual, weight, bias)
(y.float().sum() + h.float().mean()).backward()
torch.cuda.synchronize()
print("layernorm ok", tuple(weight.grad.shape))
