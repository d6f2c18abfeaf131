"""Corpus driver (kx's code): training a small Mixtral-style decoder whose feed-forward layers
are shawntan/scattermoe's GLUMLP (scattermoe/mlp.py, parallel_experts.py: "Made compileable",
README 0.2.0) under torch.compile: the whole model torch.compile'd, 4 AdamW steps in bf16 with
next-token cross-entropy (fwd + bwd), then an eval forward under no_grad. In the compiled graph:
flatten_sort_count (itself @torch.compile: sort + the scattermoe::bincount custom op with its
register_fake), the ParallelLinear autograd Function whose forward and backward call the
scattermoe::scatter2scatter / ::group / ::groupXtY custom ops (the autotuned, heuristics-masked
Triton kernels run inside them), and Inductor's kernels for the router top-k, RMSNorm, attention
(SDPA), the embedding and the loss. 4 layers, d 768, 12 heads, 8 experts top-2 of hidden 1024,
vocab 32000, batch 4 x 512 tokens of random ids. A torch.compile program with a backward pass."""

import _corpus5_support
import torch
import torch.nn.functional as F
from torch import nn

_corpus5_support.scattermoe_package()
from scattermoe.mlp import GLUMLP  # noqa: E402

torch.manual_seed(0)
vocab, d, n_heads, n_layers, n_experts, top_k, hidden = 32000, 768, 12, 4, 8, 2, 1024


class MoEBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.router = nn.Linear(d, n_experts, bias=False)
        self.moe = GLUMLP(input_size=d, hidden_size=hidden, num_experts=n_experts, top_k=top_k)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, n_heads, d // n_heads).transpose(1, 3).unbind(2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d)
        x = x + self.proj(a)
        h = self.norm2(x).view(B * T, d)
        probs = torch.softmax(self.router(h).float(), dim=-1)
        k_weights, k_idxs = torch.topk(probs, top_k)
        k_weights = (k_weights / k_weights.sum(-1, keepdim=True)).to(h.dtype)
        return x + self.moe(h, k_weights, k_idxs).view(B, T, d)


class MoELM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(MoEBlock() for _ in range(n_layers))
        self.norm, self.head = nn.RMSNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets=None):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.norm(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.float().view(-1, vocab), targets.reshape(-1))


model = MoELM().cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
cmodel = torch.compile(model)
data = torch.randint(0, vocab, (4, 513), device="cuda")
for step in range(4):
    loss = cmodel(data[:, :-1], data[:, 1:])
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    logits = cmodel(data[:2, :256])
torch.cuda.synchronize()
print("scattermoe compiled training ok", tuple(logits.shape))
