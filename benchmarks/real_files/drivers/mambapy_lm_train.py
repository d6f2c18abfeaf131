"""Corpus driver (kx's code): alxndrTL/mamba.py's pure-PyTorch Mamba language model (mambapy/lm.py:
LM over mambapy/mamba.py's Mamba / ResidualBlock / MambaBlock: in_proj, depthwise causal conv1d,
x_proj / dt_proj with softplus, the selective scan run by mambapy/pscan.py's PScan, a Blelloch-
style parallel scan written as a torch.autograd.Function with its own backward (up-sweep / down-
sweep over log2(L) levels on in-place views, the sequence padded to a power of two), SiLU gating,
RMSNorm) trained as its README and examples/trainMamba.py train it (`config = MambaConfig(d_model,
n_layers)`, `model = LM(config, vocab_size)`, LM.configure_optimizers's AdamW groups, cross-entropy
on next-token targets), here with `model = torch.compile(model)`: mamba-130m's shape (d_model 768,
24 layers, vocab 50257 padded to a multiple of 64 by pad_vocab_size_multiple), batch 8 x 512
random tokens (the example reads a text corpus), bf16 autocast, 4 steps of forward + backward +
clip_grad_norm + step, `loss.item()`; then a 3-step run at sequence length 300 (not a power of
two: pscan's padding path, a recompile) and LM.generate's greedy loop (8 tokens, the full prefix
re-run each step) on the uncompiled module. A torch.compile program with a backward pass."""

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.stub_module("einops", rearrange=S._unavailable("einops.rearrange"), repeat=S._unavailable("einops.repeat"))
from mambapy.lm import LM  # noqa: E402
from mambapy.mamba import MambaConfig  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
d_model, n_layers, V = S.pick((768, 24, 50257), (32, 2, 300))
config = MambaConfig(d_model=d_model, n_layers=n_layers)
lm = LM(config, vocab_size=V, pad_vocab_size_multiple=64).to(dev)
optim = lm.configure_optimizers(weight_decay=0.1, learning_rate=3e-4, betas=(0.9, 0.95), device_type="cuda")
model = torch.compile(lm)
B, L = S.pick((8, 512), (2, 16))


def train_step(L):
    tokens = torch.randint(1, V, (B, L + 1), device=dev)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optim.step()
    optim.zero_grad(set_to_none=True)
    return loss.item()


for step in range(4):
    print("step", step, round(train_step(L), 4))
for step in range(3):
    print("len 300 step", step, round(train_step(S.pick(300, 12)), 4))

prompt = torch.randint(1, V, (2, S.pick(32, 4)), device=dev)
out = lm.generate(prompt, num_tokens=8, sample=False)
torch.cuda.synchronize()
print("mamba.py lm train ok", tuple(out.shape))
