"""Corpus driver (kx's code): ridgerchu/matmulfreellm's chunked HGRN recurrence in Triton
(mmfreelm/ops/hgrn/chunk.py: chunk_hgrn, ChunkHGRNFunction: an autotuned per-chunk scan kernel
(12 configs keyed on D) then a cross-chunk carry kernel, and the reverse pair for backward; an
optional initial state and final state) as the MatMul-free LM's HGRN token mixer uses it: bf16
x and log-forget-gates g (x = (1 - sigmoid(f)) * i, g = logsigmoid(f)) of 4 x 4 heads x 2048 tokens
x 256, forward + backward with an initial state, compared with the repo's naive recurrence
(mmfreelm/ops/hgrn/naive.py, which takes the gates themselves: exp(g)) in fp32; then a second length (1000, not a multiple of the 128-token
chunk) and a narrower head (D 128: a new autotune key)."""

import _corpus11_support as S
import torch
import torch.nn.functional as F

S.bare_package("mmfreelm")  # not its __init__ (the HF model classes, transformers)
from mmfreelm.ops.hgrn.chunk import chunk_hgrn  # noqa: E402
from mmfreelm.ops.hgrn.naive import naive_recurrent_hgrn  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, H = S.pick((4, 4), (1, 2))
CASES = S.pick([(2048, 256), (1000, 256), (2048, 128)], [(40, 32), (23, 32), (40, 16)])

for T, D in CASES:
    i = torch.randn(B, H, T, D, device=dev)
    f = torch.randn(B, H, T, D, device=dev)
    x = ((1 - f.sigmoid()) * i).to(dt).requires_grad_()
    g = F.logsigmoid(f).to(dt).requires_grad_()
    h0 = torch.randn(B, H, D, device=dev, dtype=dt)
    o, ht = chunk_hgrn(x, g, h0, output_final_state=True)
    do = torch.randn_like(o)
    dx, dg = torch.autograd.grad((o.float() * do.float()).sum(), (x, g))

    xr, gr = (t.detach().float().requires_grad_() for t in (x, g))
    ref, ref_ht = naive_recurrent_hgrn(xr, gr.exp(), h0.float(), output_final_state=True)  # chunk takes log gates
    rdx, rdg = torch.autograd.grad((ref * do.float()).sum(), (xr, gr))
    print(
        f"T={T} D={D}", tuple(o.shape), f"out {S.rel_err(o, ref):.1e} final state {S.rel_err(ht, ref_ht):.1e}",
        f"dx {S.rel_err(dx, rdx):.1e} dg {S.rel_err(dg, rdg):.1e}",
    )
torch.cuda.synchronize()
print("mmfree hgrn chunk ok")
