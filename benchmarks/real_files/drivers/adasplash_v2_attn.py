"""Corpus driver (kx's code): deep-spin/adasplash's AdaSplash-2 causal entmax-1.5 attention
(adasplash/adasplash_v2.py through the package's adasplash_v2 / adasplash dispatcher: histogram
threshold initialisation (_get_tau_v2 / _get_tau_v3 with popc / float2int_rd), the block mask,
_get_output over the non-zero blocks, transpose_bmask and the autotuned _bwd_q_kernel /
_bwd_kv_kernel) in fp32: batch 2, 16 query heads over 4 key / value heads (grouped-query), 2048
tokens, head dim 64, then a varlen batch (lengths 2048 and 1111); output and q / k / v gradients
vs kx's dense entmax-1.5 attention (float64 bisection, closed-form backward)."""

import _corpus14_support as S
import torch
from adasplash import adasplash, adasplash_v2  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, H, HKV, N, D = S.pick((2, 16, 4, 2048, 64), (1, 2, 1, 256, 32))

for name, fn, varlen in (
    ("adasplash (dispatcher)", lambda q, k, v, vl: adasplash(q, k, v), None),
    ("adasplash_v2 varlen", lambda q, k, v, vl: adasplash_v2(q, k, v, niter=1, varlen=vl), (N, N * 17 // 32)),
):
    q = torch.randn(B, H, N, D, device=dev)
    k, v = (torch.randn(B, HKV, N, D, device=dev) for _ in range(2))
    vl = None if varlen is None else torch.tensor(varlen[:B], device=dev, dtype=torch.int32)
    qs = [t.clone().requires_grad_() for t in (q, k, v)]
    rs = [t.clone().requires_grad_() for t in (q, k, v)]
    out = fn(*qs, vl)
    want = S.entmax_attention_ref(*rs, alpha=1.5, causal=True, varlen=vl)
    g = torch.randn_like(want)
    out.backward(g)
    want.backward(g)
    errs = ", ".join(f"d{n} {S.rel_err(a.grad, b.grad):.1e}" for n, a, b in zip("qkv", qs, rs))
    print(f"{name}: out rel err {S.rel_err(out, want):.1e}, {errs}")
torch.cuda.synchronize()
print("adasplash_v2_attn ok")
