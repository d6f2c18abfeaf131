"""Corpus driver (kx's code): open-lm-engine/cute-kernels' multi-head RNN in Triton
(fma/modules/rnn: rnn() and the RNN module, an autograd.Function over the Triton kernels in
triton_implementation/ (forward.py / backward.py, autotuned over block sizes and warps, and the
varlen pair reading cu_seqlens and a device max_seqlen), h' = tanh(h @ W + x) per head, the
state gradient clipped in backward) as a small recurrent language model trains: the RNN module
(input projection, 32 heads of 32, output projection) between an embedding and a head, fp32
(the kernels' tl.dot takes the state and weight in one dtype, so no autocast), AdamW, 4 steps on 16 x 512 random tokens of a fixed random "teacher" sequence rule (the
loss falls), then one step on 24 packed documents (cu_seqlens), and a comparison of one
forward + backward in bf16 with the package's torch backend in fp32."""

import _corpus10_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F

S.bare_package("fma")
S.bare_package("fma.modules")
from fma.kernel_backend import KernelBackend  # noqa: E402
from fma.modules.rnn import RNN, rnn  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
VOCAB, D, N, H, B, SEQ, STEPS, DOCS = S.pick((4096, 1024, 32, 32, 16, 512, 4, 24), (64, 32, 2, 16, 2, 8, 2, 3))


class RecurrentLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.rnn = RNN(input_size=D, state_size=N * H, output_size=D, num_heads=N, add_bias=False, gradient_clipping=1.0)
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, tokens, cu_seqlens=None, max_seqlen=None):
        h = self.emb(tokens)
        if cu_seqlens is None:
            h = h + self.rnn(h)[0]
        else:
            h = h + self.rnn(h, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)[0]
        return self.head(self.norm(h))


model = RecurrentLM().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
perm = torch.randperm(VOCAB, device=dev)
for step in range(STEPS):
    tokens = torch.randint(0, VOCAB, (B, SEQ + 1), device=dev)
    tokens[:, 1:] = perm[tokens[:, :-1]]  # next token = a fixed permutation of the previous one
    loss = F.cross_entropy(model(tokens[:, :-1]).flatten(0, 1), tokens[:, 1:].flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

lengths = torch.randint(SEQ // 4, SEQ, (DOCS,))
cu = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)]).to(torch.int32).to(dev)
tokens = torch.randint(0, VOCAB, (int(lengths.sum()),), device=dev)
logits = model(tokens, cu_seqlens=cu, max_seqlen=lengths.max().to(dev))
loss = F.cross_entropy(logits[:-1], perm[tokens[:-1]])
opt.zero_grad(set_to_none=True)
loss.backward()
opt.step()
print("packed step", f"{DOCS} documents, {tokens.numel()} tokens, loss {loss.item():.4f}")

# the functional form against the torch backend (unclipped: with clipping the two backends clip
# the state gradient at different points and their gradients differ by design)
x = torch.randn(B, SEQ, N, H, device=dev).to(dt).requires_grad_()
w = (torch.randn(N, H, H, device=dev) * H**-0.5).to(dt).requires_grad_()
s0 = torch.randn(B, N, H, device=dev).to(dt)
out = rnn(x, w, s0, gradient_clipping=None, kernel_backend=KernelBackend.triton)
g = torch.randn_like(out)
gx, gw = torch.autograd.grad((out.float() * g.float()).sum(), [x, w])
xr, wr = x.detach().float().requires_grad_(), w.detach().float().requires_grad_()
ref = rnn(xr, wr, s0.float(), gradient_clipping=None, kernel_backend=KernelBackend.torch)
rx, rw = torch.autograd.grad((ref * g.float()).sum(), [xr, wr])
print("rnn vs torch", f"out rel err {S.rel_err(out, ref):.1e}", f"grads {S.rel_err(gx, rx):.1e} {S.rel_err(gw, rw):.1e}")
torch.cuda.synchronize()
print("cute-kernels rnn ok")
