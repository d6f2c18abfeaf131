"""Corpus driver (kx's code): vv137/sinkhorn's Triton Jacobian-vector product for implicit
differentiation of Sinkhorn (src/sinkhorn/triton/jvp_kernel.py: jvp_triton launches
_jvp_row_kernel on a (B, N) grid, each program streaming a row of the transport plan P with
v_g in BLOCK_SIZE_M blocks for sum(P v) / sum(P) (denominator clamped at 1e-38), and
_jvp_col_kernel on (B, M) walking a strided column of P with v_f; the unbalanced mixing
rho v + (1 - rho) jvp in torch). The driver solves balanced and unbalanced problems with
triton/forward.py's sinkhorn_forward_triton, builds P with pytorch/implicit_diff.py's
compute_transport_plan and applies jvp_triton with block sizes 64, 128 and 256 (three
specialisations of the constexpr) to random tangent vectors, on (8, 512, 512) and (2, 1500, 900)
plans; compared with pytorch/implicit_diff.py's jvp_sinkhorn (bmm with P)."""

import _corpus23_support as S
import torch
from sinkhorn.pytorch.implicit_diff import compute_transport_plan, jvp_sinkhorn  # noqa: E402
from sinkhorn.triton.forward import sinkhorn_forward_triton  # noqa: E402
from sinkhorn.triton.jvp_kernel import jvp_triton  # noqa: E402

torch.manual_seed(0)
dev = S.device()
SIZES = S.pick([(8, 512, 512), (2, 1500, 900)], [(2, 20, 12)])
BLOCKS = S.pick([64, 128, 256], [16, 32])
EPS = 0.05

errs = []
for i, (b, n, m) in enumerate(SIZES):
    C, _, _, _, _ = S.point_cloud_costs(b, n, m, 3, dev, seed=10 + i, ragged=False)
    for tau in (None, 0.5):
        f, g, _, _ = sinkhorn_forward_triton(C, epsilon=EPS, tau_a=tau, tau_b=tau, max_iters=S.pick(200, 20))
        P = compute_transport_plan(C, f, g, EPS)
        rho = 0.0 if tau is None else EPS / (EPS + tau)
        v_f, v_g = torch.randn(b, n, device=dev), torch.randn(b, m, device=dev)
        ref_f, ref_g = jvp_sinkhorn(v_f, v_g, P, EPS, rho, rho)
        for bs in BLOCKS:
            out_f, out_g = jvp_triton(v_f, v_g, P, rho, rho, block_size=bs)
            errs.append(max(S.rel_err(out_f, ref_f), S.rel_err(out_g, ref_g)))
S.sync()
print(
    f"vv137/sinkhorn jvp_triton on {len(SIZES)} plans x 2 (balanced, tau 0.5) x block sizes {BLOCKS}: "
    f"rel err vs jvp_sinkhorn max {max(errs):.1e}"
)
