"""Corpus driver (kx's code): the per-layer small kernels of lmdeploy's PyTorch engine for a
Qwen2-style decoder step, as its CUDA backends call them (backends/cuda/norm.py,
apply_rotary_emb.py, multinomial_sampling.py): rms_norm (rms_norm.py: grid from the SM count and
warps per SM of the device, with and without the fused residual add), apply_rotary_pos_emb
(apply_rotary_pos_emb.py: a kernel declared do_not_specialize=('seq_len',), launched for a
prefill of 1000 tokens and for decode steps of 1 token, rotate-half and complex (interleaved)
modes, q and k with different head counts, partial rotary dim), silu_and_mul (activation.py),
and the sampler's tail (engine/logits_process.py: sort by score, top-k 40 / top-p 0.9 filter
restated, softmax, multinomial_sampling with per-sequence seeds and offsets)."""

import _corpus_support
import torch

_corpus_support.lmdeploy_kernels()
from lmdeploy.pytorch.kernels.cuda.activation import silu_and_mul  # noqa: E402
from lmdeploy.pytorch.kernels.cuda.apply_rotary_pos_emb import apply_rotary_pos_emb  # noqa: E402
from lmdeploy.pytorch.kernels.cuda.multinomial_sampling import multinomial_sampling  # noqa: E402
from lmdeploy.pytorch.kernels.cuda.rms_norm import rms_norm  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
dtype = torch.bfloat16
HID, H, HKV, D, FFN, V = 1536, 12, 2, 128, 8960, 151936
w = torch.ones(HID, dtype=dtype, device=dev)
inv_freq = 1.0 / (1000000.0 ** (torch.arange(0, D, 2, device=dev).float() / D))


def rope_tables(pos, dim):
    freqs = pos[:, None].float() * inv_freq[None, : dim // 2]
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def layer(T, residual=None):
    x = torch.randn(T, HID, dtype=dtype, device=dev)
    if residual is None:
        h = rms_norm(x, w, 1e-6)
        residual = x
    else:
        h, residual = rms_norm(x, w, 1e-6, residual=residual)
    q = torch.randn(T, H, D, dtype=dtype, device=dev)
    k = torch.randn(T, HKV, D, dtype=dtype, device=dev)
    pos = torch.arange(T, device=dev) if T > 1 else torch.tensor([T + 517], device=dev)
    cos, sin = rope_tables(pos, D)
    q, k = apply_rotary_pos_emb(q, k, cos, sin, q, k)  # in place, as the backend does
    # partial rotary (half the head dim) and complex (interleaved) mode
    cos2, sin2 = rope_tables(pos, D // 2)
    apply_rotary_pos_emb(q, k, cos2, sin2)
    cos3, sin3 = cos[:, : D // 2].contiguous(), sin[:, : D // 2].contiguous()
    apply_rotary_pos_emb(q, k, cos3, sin3, complex_mode=True)
    gate_up = torch.randn(T, 2 * FFN, dtype=dtype, device=dev)
    act = silu_and_mul(gate_up)
    return h, act, residual


h, act, res = layer(1000)  # prefill
for step in range(3):  # decode steps of one token per sequence
    h, act, res = layer(1, residual=None if step == 0 else res)

# sampler tail for a batch of 4 sequences
B, TOPK, TOPP = 4, 40, 0.9
logits = torch.randn(B, V, dtype=torch.float32, device=dev)
scores, indices = logits.topk(TOPK, dim=1)
probs = scores.softmax(1)
cum = probs.cumsum(1)
scores = scores.masked_fill((cum - probs) > TOPP, float("-inf"))
softmax_scores = scores.softmax(1)
seeds = torch.randint(0, 2**31 - 1, (B,), device=dev)
offsets = torch.arange(B, device=dev) + 100
tokens = multinomial_sampling(softmax_scores, seeds, offsets, indices)
torch.cuda.synchronize()
print("lmdeploy rope/norm/sampling ok", tuple(h.shape), tuple(act.shape), tokens.tolist())
