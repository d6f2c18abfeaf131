"""Corpus driver (kx's code): dluo96/triton-kernels' Flash Attention (tk/flash_attention.py:
the original Triton-tutorial causal FlashAttention with a forward kernel that keeps running
max / sum in float32 scratch (tmp, L, m) and an in-kernel causal mask, and a backward made of a
preprocess kernel (do scaled by the softmax denominator, delta) and one kernel per (batch,
head) looping over key blocks that accumulates dq in float32 with read-modify-write; block 128,
num_warps from the head size) called through FlashAttention.apply on (batch, heads, seq,
head_dim) fp16 tensors with seq a multiple of 128, forward and backward. Checked against
PyTorch causal SDPA in float32 (output and dq / dk / dv)."""

import _corpus20_support as S
import torch
import torch.nn.functional as F
from tk.flash_attention import FlashAttention

torch.manual_seed(0)
dev = S.device()
CASES = S.pick([(4, 16, 1024, 64), (2, 8, 2048, 64), (8, 12, 512, 32)], [(1, 2, 128, 16)])
DT = torch.float16 if dev == "cuda" else torch.float32

worst = [0.0] * 4
for b, h, n, d in CASES:
    q, k, v = (torch.randn(b, h, n, d, device=dev, dtype=DT).requires_grad_() for _ in range(3))
    g = torch.randn(b, h, n, d, device=dev, dtype=DT)
    scale = d**-0.5
    o = FlashAttention.apply(q, k, v, scale)
    o.backward(g)
    got = [o.detach(), q.grad, k.grad, v.grad]
    qf, kf, vf = (t.detach().float().requires_grad_() for t in (q, k, v))
    ref = F.scaled_dot_product_attention(qf, kf, vf, is_causal=True, scale=scale)
    ref.backward(g.float())
    want = [ref.detach(), qf.grad, kf.grad, vf.grad]
    worst = [max(w, S.rel_err(a.float(), c)) for w, a, c in zip(worst, got, want)]
print(
    f"causal flash attention ({DT}) on {len(CASES)} shapes up to seq {max(c[2] for c in CASES)}, head dim "
    f"{sorted({c[3] for c in CASES})}: out / dq / dk / dv rel err " + " / ".join(f"{e:.1e}" for e in worst)
)
assert max(worst) < 5e-2, worst
S.sync()
print("dluo96_flash_attention ok")
