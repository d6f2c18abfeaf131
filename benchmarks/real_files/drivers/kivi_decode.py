"""Corpus driver (kx's code): jy-yuan/KIVI's 2-bit KV-cache kernels in a token-by-token decode loop
(quant/new_pack.py: triton_quantize_and_pack_along_last_dim, a _minmax_along_last_dim kernel for
per-group min / max then a _pack_along_last_dim kernel packing 16 two-bit codes per int32, launched
inside `torch.cuda.device(...)`; quant/matmul.py: triton_bmm_fA_qB_outer, the qbvm_kernel that
multiplies fp16 rows by a packed, group-quantised matrix, dequantising in registers, with the
bit width a runtime argument and block sizes / warps / stages picked on the host from N and K),
wired as models/llama_kivi.py's LlamaAttention_KIVI wires them (its CUDA gemv, kivi_gemv, is the
only path the model calls; the Triton kernel it replaces is called here, and the kivi_gemv
extension imported at the top of matmul.py is a stand-in): keys quantised per channel (the cache
transposed, groups along tokens), values per token (groups along the head dim), the most recent
tokens kept in fp16 up to residual_length, the full-precision key residual re-quantised and
appended whenever it reaches residual_length, one value token quantised per step once the value
residual overflows. A Llama-like decoder (kx's code: 4 layers, d 2048, 16 heads of 128, SwiGLU
5632, vocab 32000, fp16, rotary) prefills 4 prompts of 300 tokens with SDPA and KIVI's prefill
split, then decodes 96 greedy tokens (`.tolist()` each step; the key residual crosses the
128-token boundary once), group size 64, residual 128, 2-bit keys and values. A final check
compares one layer's KIVI attention with full-precision attention over the same cache."""

import math

import _corpus8_support as S
import torch
import torch.nn.functional as F

# quant/matmul.py imports its CUDA gemv extension at the top; only the Triton path is used here
S.stub_module("kivi_gemv", gemv_forward_cuda_outer_dim=S.unavailable("kivi_gemv.gemv_forward_cuda_outer_dim"))
S.bare_package("quant")
from quant.matmul import triton_bmm_fA_qB_outer  # noqa: E402
from quant.new_pack import triton_quantize_and_pack_along_last_dim  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
V, D, H, FF, L = S.pick((32000, 2048, 16, 5632, 4), (300, 128, 2, 160, 2))
HD = D // H
BATCH, PROMPT, STEPS = S.pick((4, 300, 96), (2, 120, 10))
GROUP, RESIDUAL, K_BITS, V_BITS = 64, S.pick(128, 64), 2, 2

inv_freq = 1.0 / (10000 ** (torch.arange(0, HD, 2, device=dev).float() / HD))


def rotary(x, pos):
    freqs = torch.outer(pos.float(), inv_freq)
    cos, sin = torch.cat([freqs.cos()] * 2, -1).to(x.dtype), torch.cat([freqs.sin()] * 2, -1).to(x.dtype)
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat([-x2, x1], -1) * sin


def w(*shape):
    return torch.randn(*shape, device=dev, dtype=dt) / shape[-1] ** 0.5


emb = torch.randn(V, D, device=dev, dtype=dt) * 0.5
layers = [dict(qkv=w(3 * D, D), o=w(D, D), gate_up=w(2 * FF, D), down=w(D, FF)) for _ in range(L)]
lm_head = w(V, D)


class KiviCache:
    """One layer's KIVI cache, the eight fields LlamaAttention_KIVI keeps in past_key_value."""

    def prefill(self, k, v):
        T = k.shape[-2]
        if T % RESIDUAL != 0:
            k_quant, self.k_full = (
                (k[:, :, : T - T % RESIDUAL], k[:, :, T - T % RESIDUAL :]) if T >= RESIDUAL else (None, k)
            )
        else:
            k_quant, self.k_full = k, None
        self.k_q = self.k_scale = self.k_mn = None
        if k_quant is not None:
            self.k_q, self.k_scale, self.k_mn = triton_quantize_and_pack_along_last_dim(
                k_quant.transpose(2, 3).contiguous(), GROUP, K_BITS
            )
        if T <= RESIDUAL:
            self.v_q = self.v_scale = self.v_mn = None
            self.v_full = v
        else:
            self.v_full = v[:, :, -RESIDUAL:].contiguous()
            self.v_q, self.v_scale, self.v_mn = triton_quantize_and_pack_along_last_dim(
                v[:, :, :-RESIDUAL].contiguous(), GROUP, V_BITS
            )

    def decode(self, q, k, v):
        att_quant = None
        if self.k_q is not None:
            att_quant = triton_bmm_fA_qB_outer(GROUP, q, self.k_q, self.k_scale, self.k_mn, K_BITS)
        self.k_full = k if self.k_full is None else torch.cat([self.k_full, k], dim=2)
        att_full = q @ self.k_full.transpose(2, 3)
        att = att_full if att_quant is None else torch.cat([att_quant, att_full], dim=-1)
        att = (att / math.sqrt(HD)).softmax(-1, dtype=torch.float32).to(dt)
        if self.k_full.shape[-2] == RESIDUAL:  # the key residual is full: quantise and append it
            new = triton_quantize_and_pack_along_last_dim(
                self.k_full.transpose(2, 3).contiguous(), GROUP, K_BITS
            )
            if self.k_q is None:
                self.k_q, self.k_scale, self.k_mn = new
            else:
                self.k_q, self.k_scale, self.k_mn = (
                    torch.cat([a, b], dim=3)
                    for a, b in zip((self.k_q, self.k_scale, self.k_mn), new, strict=True)
                )
            self.k_full = None
        self.v_full = torch.cat([self.v_full, v], dim=2)
        n_full = self.v_full.shape[-2]
        if self.v_q is None:
            out = att @ self.v_full
        else:
            out = triton_bmm_fA_qB_outer(GROUP, att[..., :-n_full], self.v_q, self.v_scale, self.v_mn, V_BITS)
            out = out + att[..., -n_full:] @ self.v_full
        if n_full > RESIDUAL:  # quantise the oldest full-precision value token
            new = triton_quantize_and_pack_along_last_dim(self.v_full[:, :, :1].contiguous(), GROUP, V_BITS)
            self.v_full = self.v_full[:, :, 1:].contiguous()
            if self.v_q is None:
                self.v_q, self.v_scale, self.v_mn = new
            else:
                self.v_q, self.v_scale, self.v_mn = (
                    torch.cat([a, b], dim=2)
                    for a, b in zip((self.v_q, self.v_scale, self.v_mn), new, strict=True)
                )
        return out


caches = [KiviCache() for _ in range(L)]


@torch.no_grad()
def forward(tokens, start):
    x = emb[tokens]
    B, T, _ = x.shape
    pos = torch.arange(start, start + T, device=dev)
    for p, cache in zip(layers, caches, strict=True):
        h = F.rms_norm(x, (D,))
        q, k, v = F.linear(h, p["qkv"]).view(B, T, 3, H, HD).permute(2, 0, 3, 1, 4)
        q, k = rotary(q, pos), rotary(k, pos)
        if start == 0:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            cache.prefill(k, v)
        else:
            y = cache.decode(q, k, v)
        x = x + F.linear(y.transpose(1, 2).reshape(B, T, D), p["o"])
        g, u = F.linear(F.rms_norm(x, (D,)), p["gate_up"]).chunk(2, -1)
        x = x + F.linear(F.silu(g) * u, p["down"])
    return F.linear(F.rms_norm(x[:, -1], (D,)), lm_head)


prompts = torch.randint(V, (BATCH, PROMPT), device=dev)
next_tok = forward(prompts, 0).argmax(-1)
out_tokens = [next_tok.tolist()]
for step in range(STEPS):
    logits = forward(next_tok[:, None], PROMPT + step)
    next_tok = logits.argmax(-1)
    out_tokens.append(next_tok.tolist())
    if step % 16 == 0:
        c = caches[0]
        print(
            f"step {step} tokens {out_tokens[-1]} k quantised {c.k_q.shape[-1] * 32 // K_BITS if c.k_q is not None else 0}",
            f"k full {c.k_full.shape[-2] if c.k_full is not None else 0} v quantised {c.v_q.shape[-2]}",
        )

# KIVI attention against fp16 attention over the same keys / values (dequantised cache error only)
with torch.no_grad():
    T = PROMPT + 40
    q = torch.randn(BATCH, H, 1, HD, device=dev, dtype=dt)
    k = torch.randn(BATCH, H, T, HD, device=dev, dtype=dt)
    v = torch.randn(BATCH, H, T, HD, device=dev, dtype=dt)
    check = KiviCache()
    check.prefill(k[:, :, :-1], v[:, :, :-1])
    got = check.decode(q, k[:, :, -1:], v[:, :, -1:])
    want = F.scaled_dot_product_attention(q, k, v)
    print(
        "kivi vs fp16 attention: max err",
        f"{(got - want).abs().max().item():.3f}",
        "scale",
        f"{want.abs().max().item():.3f}",
    )
torch.cuda.synchronize()
print("kivi decode ok", len(out_tokens), "steps")
