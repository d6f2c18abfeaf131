"""Corpus driver (kx's code): dame-cell/Triformer's RoPE (rope.py, unsloth's kernel:
fast_rope_embedding -> Fast_RoPE_Embedding, one in-place Triton kernel rotating groups of 4 heads
per program, forward and backward by the sign of sin, under torch.compiler.disable) applied to
the q / k projections of a Llama-7B-shaped attention layer (d 4096, 32 heads of 128, batch 2 x
2048 tokens, bf16, rotate-half convention with base-10000 cos / sin of size head_dim / 2): q / k
and the Wq / Wk / input gradients through a causal SDPA vs the same layer with PyTorch's
rotate-half RoPE in fp32."""

import _corpus14_support as S
import torch
import torch.nn.functional as F
from triformer.rope import fast_rope_embedding  # noqa: E402

torch.manual_seed(0)
# fp16 at toy sizes: the CPU interpreter lacks bf16 here
dev, dt = "cuda", S.pick(torch.bfloat16, torch.float16)
D, H, B, T = S.pick((4096, 32, 2, 2048), (64, 4, 2, 16))
HD = D // H

inv = 1.0 / (10000 ** (torch.arange(0, HD, 2, device=dev).float() / HD))
ang = torch.arange(T, device=dev).float()[:, None] * inv[None]
cos, sin = ang.cos(), ang.sin()  # (T, HD / 2)


def rope_ref(x):  # (B, H, T, HD), fp32
    x1, x2 = x[..., : HD // 2], x[..., HD // 2 :]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


wq = (torch.randn(D, D, device=dev) / D**0.5).to(dt).requires_grad_()
wk = (torch.randn(D, D, device=dev) / D**0.5).to(dt).requires_grad_()
wv = (torch.randn(D, D, device=dev) / D**0.5).to(dt)
x = torch.randn(B, T, D, device=dev, dtype=dt, requires_grad=True)
refs = [t.detach().float().requires_grad_() for t in (wq, wk, x)]


def heads(t):
    return t.view(B, T, H, HD).transpose(1, 2)  # (B, H, T, HD) over a (B, T, H, HD) buffer


q, k = fast_rope_embedding(heads(x @ wq.t()), heads(x @ wk.t()), cos.to(dt), sin.to(dt))
out = F.scaled_dot_product_attention(q, k, heads(x @ wv.t()), is_causal=True)
rq, rk, rx = refs
q_ref, k_ref = rope_ref(heads(rx @ rq.t())), rope_ref(heads(rx @ rk.t()))
out_ref = F.scaled_dot_product_attention(q_ref, k_ref, heads(rx @ wv.float().t()), is_causal=True)
print(
    f"q rel err {S.rel_err(q, q_ref):.1e}, k {S.rel_err(k, k_ref):.1e}, attn out {S.rel_err(out, out_ref):.1e}"
)
g = torch.randn_like(out_ref)
out.backward(g.to(dt))
out_ref.backward(g)
print(
    f"grads rel err: Wq {S.rel_err(wq.grad, rq.grad):.1e}, Wk {S.rel_err(wk.grad, rk.grad):.1e}, "
    f"x {S.rel_err(x.grad, rx.grad):.1e}"
)
torch.cuda.synchronize()
print("triformer_rope ok")
