"""Corpus driver (kx's code): dame-cell/Triformer's Triton layers as the repository's
examples/gpt2.py puts them together in a GPT-2 (TritonSoftmax: softmax.py's causal row softmax
forward / backward kernels; TritonLayerNorm: layernorm.py's forward kernel saving mean / inverse
std): a GPT-2-small-shaped decoder (d 768, 12 heads, 6 layers, vocab 50257, context 512, batch 8)
trained 4 AdamW steps in fp32 with TritonSoftmax for the attention probabilities, then an eval forward with every LayerNorm a TritonLayerNorm vs the same
weights on torch's LayerNorm / softmax. Training uses torch's LayerNorm: upstream's
Fast_Layernorm.backward launches its kernel with the freshly allocated dX as the incoming
gradient (dY is never read), so its input gradient is uninitialised memory. TritonDropout is left
out: it always hands its kernel the seed as a tensor, which tl.random cannot take."""

import math

import _corpus14_support as S
import torch
import torch.nn.functional as F
from torch import nn
from triformer import TritonLayerNorm, TritonSoftmax  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, H, L, V, T, B, STEPS = S.pick((768, 12, 6, 50257, 512, 8, 4), (64, 2, 2, 512, 32, 2, 2))


class Block(nn.Module):  # kx's own GPT-2 block, in the layout of Triformer's examples/gpt2.py
    def __init__(self, triton_layers: bool, triton_ln: bool):
        super().__init__()
        LN = TritonLayerNorm if triton_ln else nn.LayerNorm
        self.ln1, self.ln2 = LN(D), LN(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc, self.out = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)
        self.softmax = TritonSoftmax(is_causal=True) if triton_layers else None

    def attn(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, D // H).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        if self.softmax is not None:
            p = self.softmax(s.reshape(b * H, t, t)).view(b, H, t, t)
        else:
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
        return self.proj((p @ v).transpose(1, 2).reshape(b, t, D))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, triton_layers: bool, triton_ln: bool):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, D), nn.Embedding(T, D)
        self.blocks = nn.ModuleList(Block(triton_layers, triton_ln) for _ in range(L))
        self.ln_f = TritonLayerNorm(D) if triton_ln else nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


model = GPT(True, False).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(STEPS):
    idx = torch.randint(0, V, (B, T), device=dev)
    tgt = torch.randint(0, V, (B, T), device=dev)
    loss = F.cross_entropy(model(idx).view(-1, V), tgt.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

evaluator, ref = GPT(True, True).to(dev).eval(), GPT(False, False).to(dev).eval()
evaluator.load_state_dict(model.state_dict())
ref.load_state_dict(model.state_dict())
idx = torch.randint(0, V, (B, T), device=dev)
with torch.no_grad():
    got, want = evaluator(idx), ref(idx)
print(f"eval logits (TritonLayerNorm + TritonSoftmax) vs torch layers rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("triformer_gpt2_train ok")
