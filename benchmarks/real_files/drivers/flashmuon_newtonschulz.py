"""Corpus driver (kx's code): flash-muon's fast Newton-Schulz orthogonalisation
(nil0x9/flash-muon, flash_muon/muon.py: fast_newtonschulz, Keller Jordan's quintic iteration
with both X X^T products through the package's Triton mmt_kernel (matmul_transpose_assign into
two preallocated bfloat16 buffers) and the rest as torch ops) as Muon's step applies it: to the
Nesterov momentum of every 2-D weight of a GPT-2-small-sized transformer stack (attention and MLP
matrices, tall ones transposed), 5 iterations; each result checked against the same iteration
with plain matmuls and for near-orthogonality (singular values around 0.7-1.2). The optimizer
class itself needs torch.distributed all_gather and is not run."""

import _corpus17_support as S
import torch
from flash_muon import fast_newtonschulz

torch.manual_seed(0)
dev = "cuda"
D, LAYERS = S.pick((768, 12), (32, 1))
shapes = [(D, D)] * 4 + [(4 * D, D), (D, 4 * D)]
grads = [torch.randn(s, device=dev) for _ in range(LAYERS) for s in shapes]
momentum = [torch.zeros_like(g) for g in grads]
worst = 0.0
for g, buf in zip(grads, momentum):
    buf.lerp_(g, 1 - 0.95)
    upd = g.lerp(buf, 0.95)
    got = fast_newtonschulz(upd, steps=5)
    want = S.newton_schulz_reference(upd, steps=5)
    assert got.shape == upd.shape, got.shape
    worst = max(worst, S.rel_err(got, want))
    sv = torch.linalg.svdvals(got.float())
    assert 0.5 < sv.median() < 1.3, sv
print(
    f"{len(grads)} matrices ({D}-wide, {LAYERS} layers): worst rel err vs plain-matmul iteration {worst:.1e}"
)
assert worst < 0.15, worst  # bf16 rounding compounds over 5 iterations
torch.cuda.synchronize()
print("flashmuon_newtonschulz ok")
