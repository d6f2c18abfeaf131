"""Corpus driver (kx's code): SmallDoges/flash-dmattn's Triton flash sparse (dynamic-mask)
attention (flash_sparse_attn/flash_sparse_attn_triton.py: triton_sparse_attn_func ->
FlashDMAttnFunc: _fwd_kernel (autotuned BLOCK_M / BLOCK_N and warps keyed on seqlen // 32,
causal / mask / bias flags and head dim; EVEN_M / EVEN_N / EVEN_HEADDIM heuristics; a bool
keep-mask and an additive bias per KV head or per query head, GQA head mapping), then
_bwd_preprocess_do_o_dot and _bwd_kernel (autotuned SEQUENCE_PARALLEL on / off, pre_hook zeroing
dq and dbias, ACCUM_DBIAS heuristic), the bias gradient summed over the query heads of a group
on the host) as the Doge model's dynamic mask attention uses it: bf16 batch 2, 2048 tokens,
16 query heads / 4 KV heads, head dim 128, causal, a bias from a per-key gate (the Doge "dt"
projection, one row per KV head) and a top-1024 keep-mask over it, forward + backward incl.
d(bias); then a non-causal case with 1000 tokens, head dim 96 (padded head block), a per-head
mask and no bias. Compared with the same attention in fp32 PyTorch (repeat_kv, masked softmax)."""

import math

import _corpus12_support as S
import torch

S.bare_package("flash_sparse_attn")  # not its __init__ (it probes the CUDA extension first)
from flash_sparse_attn.flash_sparse_attn_triton import triton_sparse_attn_func  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
CASES = S.pick(
    [(2, 2048, 16, 4, 128, True, 1024, True), (2, 1000, 8, 8, 96, False, 600, False)],
    [(1, 64, 4, 2, 32, True, 32, True), (1, 40, 2, 2, 24, False, 24, False)],
)


def reference(q, k, v, mask, bias, causal, scale):
    hq, hk = q.shape[2], k.shape[2]
    q, k, v = (t.float().transpose(1, 2) for t in (q, k, v))  # (b, h, l, d)
    k, v = k.repeat_interleave(hq // hk, 1), v.repeat_interleave(hq // hk, 1)
    s = q @ k.transpose(-1, -2) * scale
    if bias is not None:
        s = s + bias.float().repeat_interleave(hq // bias.shape[1], 1)
    keep = mask.repeat_interleave(hq // mask.shape[1], 1)
    if causal:
        keep = keep & torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).tril()
    p = torch.softmax(s.masked_fill(~keep, float("-inf")), -1)
    return (p @ v).transpose(1, 2)


for b, n, hq, hk, d, causal, keep_k, with_bias in CASES:
    q = torch.randn(b, n, hq, d, device=dev, dtype=dt, requires_grad=True)
    k = torch.randn(b, n, hk, d, device=dev, dtype=dt, requires_grad=True)
    v = torch.randn(b, n, hk, d, device=dev, dtype=dt, requires_grad=True)
    gate = torch.randn(b, hk if with_bias else hq, 1, n, device=dev)  # Doge: one score per key
    bias = gate.expand(-1, -1, n, -1).to(dt).contiguous().requires_grad_() if with_bias else None
    # keep the keep_k best keys of each row (plus a causal band), as Doge's prepare_dynamic_mask does
    noise = gate.expand(-1, -1, n, -1) + 0.1 * torch.randn(b, gate.shape[1], n, n, device=dev)
    if causal:
        noise = noise.masked_fill(~torch.ones(n, n, dtype=torch.bool, device=dev).tril(), float("-inf"))
    mask = torch.zeros(b, gate.shape[1], n, n, dtype=torch.bool, device=dev)
    mask.scatter_(-1, noise.topk(keep_k, -1).indices, True)
    mask |= torch.eye(n, dtype=torch.bool, device=dev)  # every row keeps itself
    scale = 1.0 / math.sqrt(d)

    out = triton_sparse_attn_func(
        q, k, v, attn_mask=mask, attn_bias=bias, is_causal=causal, softmax_scale=scale
    )
    do = torch.randn_like(out)
    params = [q, k, v] + ([bias] if with_bias else [])
    grads = torch.autograd.grad(out, params, do)

    rp = [t.detach().float().requires_grad_() for t in params]
    ref = reference(rp[0], rp[1], rp[2], mask, rp[3] if with_bias else None, causal, scale)
    rgrads = torch.autograd.grad(ref, rp, do.float())
    print(
        f"b{b} n{n} hq{hq} hk{hk} d{d} causal={causal} keep={keep_k} bias={with_bias}",
        f"out rel err {S.rel_err(out, ref):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("fsa_triton_dynamic_mask ok")
