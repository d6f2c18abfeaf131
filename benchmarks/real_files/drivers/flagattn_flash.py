"""Corpus driver (kx's code): FlagAttention's Triton FlashAttention-2 (flag_attn.
flash_attention -> FlashAttention autograd.Function), forward and backward: a bf16 causal
GQA training step (16 q heads over 4 kv heads, head 128) with dropout, whose Philox seed and
offset are read from and advanced in the CUDA generator state on the host, returning the
log-normalizer; an fp16 non-causal step with a longer key cache (P_SEQ > 0), head 64,
returning total attention (_total_attention_kernel); and a one-token fp16 decode batch that
the split-KV heuristic (SM count) sends to _fwd_split_kv_kernel + _fwd_combine_kv_splits.
Backward: _bwd_preprocess, _bwd_kv_kernel, _bwd_q_kernel (with dropout mask regeneration).
"""

import flag_attn
import torch

torch.manual_seed(0)


def qkv(b, h, hk, m, n, d, dtype, grad=True):
    q = torch.randn(b, h, m, d, device="cuda", dtype=dtype, requires_grad=grad)
    k = torch.randn(b, hk, n, d, device="cuda", dtype=dtype, requires_grad=grad)
    v = torch.randn(b, hk, n, d, device="cuda", dtype=dtype, requires_grad=grad)
    return q, k, v


q, k, v = qkv(2, 16, 4, 2048, 2048, 128, torch.bfloat16)
o, logz, _, seed, offset = flag_attn.flash_attention(
    q,
    k,
    v,
    causal=True,
    dropout_p=0.1,
    return_log_normalizer=True,
    return_seed_offset=True,
)
o.backward(torch.randn_like(o))

q, k, v = qkv(2, 8, 8, 1000, 1500, 64, torch.float16)
o2, _, tot_attn, _, _ = flag_attn.flash_attention(q, k, v, causal=False, return_total_attention=True)
o2.float().square().mean().backward()

q, k, v = qkv(2, 32, 8, 1, 4096, 128, torch.float16, grad=False)
with torch.no_grad():
    o3 = flag_attn.flash_attention(q, k, v, causal=True)
torch.cuda.synchronize()
print(
    "flag_attn flash ok",
    tuple(o.shape),
    tuple(logz.shape),
    seed is not None,
    tuple(tot_attn.shape),
    tuple(o3.shape),
)
