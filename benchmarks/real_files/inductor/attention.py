"""Inductor corpus (kx's code): a self-attention block (projections, softmax attention
written out, output projection) forward and backward under torch.compile."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, dim=512, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        mask = torch.triu(torch.ones(s, s, device=x.device, dtype=torch.bool), 1)
        probs = scores.masked_fill(mask, float("-inf")).softmax(-1)
        return self.out((probs @ v).transpose(1, 2).reshape(b, s, d))


model = torch.compile(Attention().cuda())
x = torch.randn(4, 128, 512, device="cuda", requires_grad=True)
model(x).sum().backward()
torch.cuda.synchronize()
print("attention ok", tuple(x.grad.shape))
