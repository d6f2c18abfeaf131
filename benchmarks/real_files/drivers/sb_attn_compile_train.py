"""Corpus driver (kx's code): training a small decoder whose attention is
shawntan/stickbreaking-attention's batched stick-breaking attention (stickbreaking_attention
sb_attn: q, k, v of shape (batch, heads, length, head_dim); output o + rem[..., None] * v as its
tests and dolomite's integration use it) under torch.compile: inside the compiled graph
stickbreaking's custom_op wrapper dispatches (torch.compiler.is_compiling()) to the
torch.library custom ops stickbreaking_attention::attn_fwd / ::attn_bwd around the autotuned
Triton _forward / _backward kernels (the eager run of the same model calls the plain
functions). 4 layers, d 768, 12 heads of 64, SwiGLU MLP, vocab 32000, bf16, batch 4 x 1024
random token ids; 3 AdamW steps (fwd + bwd through the compiled model), an eval forward with
attend_current=True layers, and one eager training step for comparison. A torch.compile program
with a backward pass."""

import math

import torch
import torch.nn.functional as F
from stickbreaking_attention.sb_attn import sb_attn
from torch import nn

torch.manual_seed(0)
vocab, d, n_heads, n_layers = 32000, 768, 12, 4
head_dim = d // n_heads


class Block(nn.Module):
    def __init__(self, attend_current):
        super().__init__()
        self.attend_current = attend_current
        self.norm1, self.norm2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.up, self.down = nn.Linear(d, 2 * 2048, bias=False), nn.Linear(2048, d, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, n_heads, head_dim).permute(2, 0, 3, 1, 4).unbind(0)
        o, rem = sb_attn(q, k, v, inv_temp=1 / math.sqrt(head_dim), attend_current=self.attend_current)
        o = o + rem[..., None] * v
        x = x + self.proj(o.transpose(1, 2).reshape(B, T, d))
        g, u = self.up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


class SBLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(attend_current=i % 2 == 1) for i in range(n_layers))
        self.norm, self.head = nn.RMSNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets=None):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.norm(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.float().view(-1, vocab), targets.reshape(-1))


model = SBLM().cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
cmodel = torch.compile(model)
data = torch.randint(0, vocab, (4, 1025), device="cuda")
for step in range(3):
    loss = cmodel(data[:, :-1], data[:, 1:])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
with torch.no_grad():
    logits = cmodel(data[:2, :512])
loss = model(data[:, :-1], data[:, 1:])  # eager: the plain Triton launch path
loss.backward()
torch.cuda.synchronize()
print("stickbreaking compiled training ok", tuple(logits.shape), round(loss.item(), 4))
