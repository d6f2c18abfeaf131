"""Corpus driver (kx's code): lucidrains/ring-attention-pytorch's Triton flash attention
(ring_attention_pytorch/triton_flash_attn.py: Tri Dao's flash_attn_triton extended for ring
passes: a forward kernel under @triton.heuristics (EVEN_M / EVEN_N / EVEN_HEADDIM) that can load
and keep accumulating o / m / lse across calls (load_accumulated), normalize at the last pass,
mask the diagonal block causally, soft-clamp the logits; an autotuned backward (init_to_zero
pre-hooks on dq) with a cached delta) through the repo's autograd function
(ring_attention_pytorch/ring_flash_attention_cuda.py: ring_flash_attn_cuda, one process: ring size
1) as a long-context model calls it: bf16 2 x 4096 tokens x 16 query heads / 4 kv heads x 64
(grouped-query: kv heads repeated per pass in einops' '(g h)' order), causal, forward + backward vs SDPA in fp32; then a key
padding mask (bias path) non-causal with soft-clamped logits; then the ring itself driven by hand
as each rank would: 4 key / value shards passed to flash_attn_forward in turn, accumulating into
one o / m / lse (the first pass not loading, the last normalizing), vs SDPA."""

import _corpus11_support as S
import torch

S.install_beartype_standin()
S.install_triton_nightly_version()
S.bare_package("ring_attention_pytorch")  # not its __init__ (the full RingTransformer stack)
from ring_attention_pytorch.ring_flash_attention_cuda import ring_flash_attn_cuda  # noqa: E402
from ring_attention_pytorch.triton_flash_attn import flash_attn_forward  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, N, HQ, HKV, D = S.pick((2, 4096, 16, 4, 64), (1, 256, 4, 2, 16))
SHARDS = 4


def sdpa(q, k, v, causal=False, mask=None, softclamp=None):
    q, k, v = (t.float().transpose(1, 2) for t in (q, k, v))
    k, v = (t.repeat(1, q.shape[1] // t.shape[1], 1, 1) for t in (k, v))  # the repo's '(g h)' head order
    s = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    if softclamp is not None:
        s = (s / softclamp).tanh() * softclamp
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask[:, None, None, :], float("-inf"))
    return (s.softmax(-1) @ v).transpose(1, 2)


def check(name, causal, mask=None, softclamp=False):
    q = torch.randn(B, N, HQ, D, device=dev, dtype=dt, requires_grad=True)
    k, v = (torch.randn(B, N, HKV, D, device=dev, dtype=dt, requires_grad=True) for _ in range(2))
    out = ring_flash_attn_cuda(q, k, v, mask, causal, softclamp_qk_sim=softclamp, softclamp_value=50.0)
    do = torch.randn_like(out)
    grads = torch.autograd.grad((out.float() * do.float()).sum(), (q, k, v))
    ref_in = [t.detach().float().requires_grad_() for t in (q, k, v)]
    ref = sdpa(*ref_in, causal=causal, mask=mask, softclamp=50.0 if softclamp else None)
    rgrads = torch.autograd.grad((ref * do.float()).sum(), ref_in)
    print(
        name, tuple(out.shape), f"out rel err {S.rel_err(out, ref):.1e}",
        "grads q k v " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )


check("causal gqa", causal=True)
mask = torch.ones(B, N, dtype=torch.bool, device=dev)
mask[0, N - N // 3 :] = False  # the first sequence is padded
check("key padding, softclamp", causal=False, mask=mask, softclamp=True)

# the ring by hand: one query block against 4 key / value shards, accumulated pass by pass
q = torch.randn(B, N, HQ, D, device=dev, dtype=dt)
k, v = (torch.randn(B, N, HQ, D, device=dev, dtype=dt) for _ in range(2))
o = m = lse = None
shard = N // SHARDS
for r in range(SHARDS):
    ks, vs = k[:, r * shard : (r + 1) * shard], v[:, r * shard : (r + 1) * shard]
    o, m, lse = flash_attn_forward(
        q, ks, vs, o=o, m=m, lse=lse, load_accumulated=r > 0, return_normalized_output=r == SHARDS - 1
    )
ref = sdpa(q, k, v)
print(f"ring of {SHARDS} shards", tuple(o.shape), f"out rel err {S.rel_err(o, ref):.1e}")
torch.cuda.synchronize()
print("ring attention triton flash ok")
