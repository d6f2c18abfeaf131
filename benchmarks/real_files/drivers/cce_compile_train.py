"""Corpus driver (kx's code): apple/ml-cross-entropy's linear_cross_entropy as the loss of a
torch.compile'd training step, as its README's "training" use (the classifier matmul and the
cross-entropy fused, the logits never materialised) with both of its implementations:
impl='torch_compile' (cut_cross_entropy/torch_compile.py: a @torch.compile(fullgraph=True)
matmul + cross_entropy, compiled fwd + bwd, with softcap and shift) and impl='cce' (the Triton
kernels inside an autograd Function, called after the compiled trunk). The trunk is a small
Llama-like decoder (kx's code: 4 layers, d 1024, 16 heads of 64, SDPA causal, RMSNorm, SwiGLU
2816, vocab 32000, bf16 autocast, batch 4 x 512) compiled with torch.compile; 3 AdamW steps per
implementation (fwd + bwd through the compiled model, clip_grad_norm, loss.item()), then an eval
loss with reduction='none' under no_grad at another sequence length (a recompile). A
torch.compile program with a backward pass."""

import _corpus6_support as S
import torch
import torch.nn.functional as F
from cut_cross_entropy import linear_cross_entropy
from torch import nn


class Block(nn.Module):
    def __init__(self, d, h, f):
        super().__init__()
        self.h = h
        self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.up, self.down = nn.Linear(d, 2 * f, bias=False), nn.Linear(f, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, self.h, d // self.h).transpose(1, 3).unbind(2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        g, u = self.up(self.n2(x)).chunk(2, -1)
        return x + self.down(F.silu(g) * u)


class Trunk(nn.Module):
    def __init__(self, vocab, d, h, f, n):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, h, f) for _ in range(n))
        self.norm = nn.RMSNorm(d)

    def forward(self, idx):
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


torch.manual_seed(0)
vocab, d, h, f, n = S.pick((32000, 1024, 16, 2816, 4), (500, 64, 2, 96, 2))
B, T = S.pick((4, 512), (2, 32))
trunk = Trunk(vocab, d, h, f, n).cuda()
head = nn.Linear(d, vocab, bias=False).cuda()
params = list(trunk.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=3e-4, weight_decay=0.1)
model = torch.compile(trunk)

for impl, softcap in (("torch_compile", 30.0), ("cce", None)):
    for step in range(3):
        idx = torch.randint(0, vocab, (B, T), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            hidden = model(idx)
            loss = linear_cross_entropy(
                hidden.to(torch.bfloat16),
                head.weight.to(torch.bfloat16),
                idx,
                shift=1,
                softcap=softcap,
                impl=impl,
            )
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        print(impl, step, round(loss.item(), 4))

with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    idx = torch.randint(0, vocab, (B, T // 2 + 3), device="cuda")
    hidden = model(idx)
    per_tok = linear_cross_entropy(
        hidden.bfloat16(), head.weight.to(torch.bfloat16), idx, shift=1, reduction="none"
    )
torch.cuda.synchronize()
print("cce compile train ok", tuple(per_tok.shape), per_tok.dtype)
