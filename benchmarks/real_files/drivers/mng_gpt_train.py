"""Corpus driver (kx's code): KellerJordan/modded-nanogpt's Triton kernels (triton_kernels.py at the
2026-03-07 record) inside a compiled GPT training step, as train_gpt.py uses them: the model is
`torch.compile(model, dynamic=False, fullgraph=True)` and its MLPs call
FusedLinearReLUSquareFunction.apply (an autograd.Function launching the persistent TMA
linear_relu_square_kernel forward and its backward variant, with TensorDescriptors made inside the
compiled code) and its loss is FusedSoftcappedCrossEntropy.apply (FP8 e4m3 lm head through
torch._scaled_mm, the fused softcapped-entropy forward / backward Triton kernels, an FP8 e5m2
gradient, transpose_copy for the weight gradient) with multi-token-prediction weights that change
on a schedule (3, then 2 weights: a new tensor shape, so a recompile under dynamic=False).
The hidden matrices are updated by a Muon-style step (kx's code) whose orthogonalisation is a
torch.compile(dynamic=False, fullgraph=True) function calling XXT / XTX and ba_plus_cAA (Polar
Express iterations) inside the graph, as train_gpt.py's polar_express does; embeddings and the lm
head use Adam. The GPT is kx's code (the record's model needs FlashAttention-3 from the Hugging
Face kernels hub): 4 pre-norm blocks of d 768 with 6 causal SDPA heads and a 3072-wide ReLU^2 MLP,
vocabulary 50304, bf16 weights, one packed (1, 8192) token sequence per step as the record feeds
it. 6 steps, `loss.item()` each. A torch.compile program with a backward pass through custom
autograd.Functions launching Triton kernels."""

import _corpus8_support as S
import torch
import torch.nn.functional as F
from torch import nn
from triton_kernels import XTX, XXT, FusedLinearReLUSquareFunction, FusedSoftcappedCrossEntropy, ba_plus_cAA

torch.manual_seed(0)
dev = "cuda"
VOCAB, LAYERS, D, HEADS, HID, T = S.pick((50304, 4, 768, 6, 3072, 8192), (300, 2, 64, 2, 128, 48))
STEPS = S.pick(6, 4)
X_S, W_S, GRAD_S = 100 / 448, 1.6 / 448, 0.75 / 448


def norm(x):
    return F.rms_norm(x, (x.size(-1),))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Parameter(torch.randn(3 * D, D) / D**0.5)
        self.proj = nn.Parameter(torch.zeros(D, D))
        self.fc = nn.Parameter(torch.randn(HID, D) / D**0.5)
        self.down = nn.Parameter(torch.randn(HID, D) / HID**0.5 * 0.5)

    def forward(self, x):
        B, L, _ = x.shape
        q, k, v = F.linear(norm(x), self.qkv).view(B, L, 3, HEADS, D // HEADS).unbind(2)
        y = F.scaled_dot_product_attention(
            norm(q).transpose(1, 2), norm(k).transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + F.linear(y.transpose(1, 2).reshape(B, L, D), self.proj)
        return x + FusedLinearReLUSquareFunction.apply(norm(x), self.fc, self.down)


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.lm_head = nn.Parameter(torch.randn(D, VOCAB) * 0.02)  # (in, out), as CastedLinearT stores it

    def forward(self, idx, targets, mtp_weights):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        x = norm(x)
        losses = FusedSoftcappedCrossEntropy.apply(
            x.view(-1, D), targets, mtp_weights, self.lm_head, X_S, W_S, GRAD_S
        )
        return losses.sum() / idx.numel()


COEFFS = [
    (8.157, -22.483, 15.879),
    (4.043, -2.809, 0.500),
    (3.892, -2.772, 0.506),
    (3.286, -2.368, 0.464),
    (2.347, -1.710, 0.423),
]


@torch.compile(dynamic=False, fullgraph=True)
def orthogonalise(G):
    X = G.bfloat16()
    X = X / (X.norm() * 1.02 + 1e-6)
    tall = X.size(-2) > X.size(-1)
    n = X.size(-1) if tall else X.size(-2)
    A = torch.empty(n, n, device=X.device, dtype=X.dtype)
    B = torch.empty_like(A)
    for a, b, c in COEFFS:
        if tall:
            XTX(X, out=A)
            ba_plus_cAA(A, alpha=c, beta=b, out=B)
            X = torch.addmm(X, X, B, beta=a)
        else:
            XXT(X, out=A)
            ba_plus_cAA(A, alpha=c, beta=b, out=B)
            X = torch.addmm(X, B, X, beta=a)
    return X


model = GPT().to(dev).bfloat16()
hidden = [p for b in model.blocks for p in b.parameters()]
adam = torch.optim.Adam([model.embed.weight, model.lm_head], lr=0.008, betas=(0.8, 0.95), eps=1e-10)
momentum = [torch.zeros_like(p, dtype=torch.float32) for p in hidden]
compiled = torch.compile(model, dynamic=False, fullgraph=True)
schedule = [[1.0, 0.5, 0.25]] * 3 + [[1.0, 0.5]] * 3
for step in range(STEPS):
    idx = torch.randint(VOCAB, (1, T + 1), device=dev)
    mtp_weights = torch.tensor(schedule[step % len(schedule)], device=dev)
    loss = compiled(idx[:, :-1].contiguous(), idx[0, 1:].contiguous(), mtp_weights)
    loss.backward()
    with torch.no_grad():
        for p, buf in zip(hidden, momentum, strict=True):
            buf.lerp_(p.grad.float(), 0.05)
            update = orthogonalise(p.grad.float().lerp_(buf, 0.95))
            p.add_(update.to(p.dtype), alpha=-0.02 * max(1.0, p.size(0) / p.size(1)) ** 0.5)
            p.grad = None
    adam.step()
    adam.zero_grad(set_to_none=True)
    print(f"step {step} mtp {len(schedule[step % len(schedule)])} loss {loss.item():.4f}")
torch.cuda.synchronize()
print("modded-nanogpt compiled train ok")
