"""Corpus driver (kx's code): deep-spin/adasplash's AdaSplash-1 sparse attention
(adasplash/adasplash_block_mask.py through the package's adasplash_v1: _get_tau finds each row's
entmax threshold by Halley / bisection over K blocks, compute_bidxs_and_cubcounts turns the
block mask into per-block index lists on the device, _get_output, and the backward's
_bwd_preprocess / _bwd_kv_kernel / _bwd_q_kernel that skip zero blocks) in fp32 as the tests run
it: batch 2, 8 heads, 2048 tokens, head dim 64, alpha 1.5 causal, alpha 2.0 non-causal and a
causal varlen batch (lengths 2048 and 1500); output and q / k / v gradients vs kx's dense
entmax attention (float64 bisection, closed-form backward)."""

import _corpus14_support as S
import torch
from adasplash import adasplash_v1  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, H, N, D = S.pick((2, 8, 2048, 64), (1, 2, 128, 32))

for alpha, causal, varlen in ((1.5, True, None), (2.0, False, None), (1.5, True, (N, N * 3 // 4))):
    q, k, v = (torch.randn(B, H, N, D, device=dev) for _ in range(3))
    vl = None if varlen is None else torch.tensor(varlen[:B], device=dev, dtype=torch.int32)
    qs = [t.clone().requires_grad_() for t in (q, k, v)]
    rs = [t.clone().requires_grad_() for t in (q, k, v)]
    out = adasplash_v1(*qs, alpha=alpha, is_causal=causal, varlen=vl, niter=10)
    want = S.entmax_attention_ref(*rs, alpha=alpha, causal=causal, varlen=vl)
    g = torch.randn_like(want)
    if vl is not None:
        out = out.masked_fill(torch.arange(N, device=dev)[None, None, :, None] >= vl[:, None, None, None], 0)
    out.backward(g)
    want.backward(g)
    errs = ", ".join(f"d{n} {S.rel_err(a.grad, b.grad):.1e}" for n, a, b in zip("qkv", qs, rs))
    print(f"alpha {alpha} causal {causal} varlen {varlen}: out rel err {S.rel_err(out, want):.1e}, {errs}")
torch.cuda.synchronize()
print("adasplash_v1_attn ok")
