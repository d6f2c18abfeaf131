"""Corpus driver (kx's code): ELS-RD/kernl's inference attention kernels in Triton, as a decoder runs
them for generation with a KV cache: src/kernl/implementations/attention.py (attention_forward: a
flash-attention forward with causal masking, load masks when lengths are not multiples of 128)
for the prompt,
attention_skinny.py (skinny_attention_forward: a split-K two-kernel attention for a few query
rows against a long key set) for a short continuation chunk, and attention_vec_mat.py
(attention_vec_mat_forward: two vector x matrix kernels, q k^T then softmax(.) v) for the
token-by-token decode loop: fp16, 4 sequences x 32 heads x 128, a 1000-token prompt,
then a 8-token chunk, then 48 decode steps each appending one key / value to the cache (a new
n_size every step), every output compared with SDPA in fp32."""

import math

import _corpus10_support as S
import torch
import torch.nn.functional as F
from kernl.implementations.attention import attention_forward
from kernl.implementations.attention_skinny import skinny_attention_forward
from kernl.implementations.attention_vec_mat import attention_vec_mat_forward

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
B, H, D = S.pick((4, 32, 128), (2, 2, 32))
PROMPT, CHUNK, STEPS = S.pick((1000, 8, 48), (40, 4, 3))
scale = 1 / math.sqrt(D)


def rand(n):
    return torch.randn(B, H, n, D, device=dev, dtype=dt)


def sdpa(q, k, v, mask=None, causal=False):
    return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=mask, is_causal=causal, scale=scale)


worst = {}

# prompt: causal (kernl's attention_forward; its additive-mask path is left out: its kernel builds
# the mask's batch index as a 1-tuple, which current Triton rejects)
q, k, v = rand(PROMPT), rand(PROMPT), rand(PROMPT)
out = attention_forward(q, k, v, torch.empty_like(q), scale, is_causal=True)
worst["prompt causal"] = S.rel_err(out, sdpa(q, k, v, causal=True))
k_cache, v_cache = k, v

# a short chunk of CHUNK new tokens attending to the whole cache (skinny attention)
q, k, v = rand(CHUNK), rand(CHUNK), rand(CHUNK)
k_cache, v_cache = torch.cat([k_cache, k], 2), torch.cat([v_cache, v], 2)
out = skinny_attention_forward(q, k_cache, v_cache, torch.empty_like(q), scale)
worst["chunk (skinny)"] = S.rel_err(out, sdpa(q, k_cache, v_cache))

# decode loop: one query row per step, the cache growing by one token each time
err = 0.0
for _ in range(STEPS):
    q, k, v = rand(1), rand(1), rand(1)
    k_cache, v_cache = torch.cat([k_cache, k], 2), torch.cat([v_cache, v], 2)
    out = attention_vec_mat_forward(q, k_cache, v_cache, torch.empty_like(q), scale)
    err = max(err, S.rel_err(out, sdpa(q, k_cache, v_cache)))
worst[f"decode x{STEPS} (vec-mat)"] = err

for name, e in worst.items():
    print(name, f"rel err {e:.1e}")
print("cache length", k_cache.shape[2])
torch.cuda.synchronize()
print("kernl attention decode ok")
