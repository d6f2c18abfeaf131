"""Corpus driver (kx's code): vv137/sinkhorn's Triton Sinkhorn for balanced entropic optimal
transport (src/sinkhorn/sinkhorn.py: sinkhorn(backend="triton") without gradients calls
triton/forward.py's sinkhorn_forward_triton, which masks the cost with +inf for padded rows /
columns, then alternates sinkhorn_row_update / sinkhorn_col_update, each a launch of
triton/lse_kernel.py's _stable_lse_row_kernel or _stable_lse_col_kernel on a (B, N) or (B, M)
grid: one program streams a row (or a strided column) of C in BLOCK_SIZE blocks with an online
max / sum-exp merge guarded by a data-dependent `if` on the block maximum, epsilon a runtime
float argument; potentials re-masked each iteration and a convergence check (two .item() reads)
every ten iterations). The driver matches batches of point clouds (half of each batch with
ragged lengths through mask_a / mask_b) at three epsilons and two sizes (8 x 512 x 512 and
4 x 1000 x 700, not powers of two), once more with block_size 64 through sinkhorn_forward_triton
directly; compared with the package's own PyTorch backend (f, g on valid entries) and the
transport plan's marginals against the uniform masked marginals."""

import _corpus23_support as S
from sinkhorn import sinkhorn  # noqa: E402
from sinkhorn.triton.forward import sinkhorn_forward_triton  # noqa: E402

dev = S.device()
SIZES = S.pick([(8, 512, 512, 3), (4, 1000, 700, 16)], [(4, 24, 20, 3)])
EPS = S.pick([0.1, 0.05, 0.02], [0.1, 0.05])
ITERS = S.pick(300, 30)

errs, marg, iters = [], [], []
for i, (b, n, m, d) in enumerate(SIZES):
    C, _, _, ma, mb = S.point_cloud_costs(b, n, m, d, dev, seed=i)
    a = ma.float() / ma.float().sum(-1, keepdim=True)
    for eps in EPS:
        out = sinkhorn(C, mask_a=ma, mask_b=mb, epsilon=eps, max_iters=ITERS, threshold=1e-5)
        ref = sinkhorn(
            C, mask_a=ma, mask_b=mb, epsilon=eps, max_iters=ITERS, threshold=1e-5, backend="pytorch"
        )
        errs.append(max(S.masked_rel_err(out.f, ref.f, ma), S.masked_rel_err(out.g, ref.g, mb)))
        P = out.transport_plan(C, eps, ma, mb)
        marg.append(((P.sum(-1) - a).abs().sum(-1)).max().item())
        iters.append(out.n_iters)
    f64, g64, n64, _ = sinkhorn_forward_triton(
        C, None, None, EPS[0], None, None, ma, mb, ITERS, 1e-5, block_size=64
    )
    out = sinkhorn(C, mask_a=ma, mask_b=mb, epsilon=EPS[0], max_iters=ITERS, threshold=1e-5)
    errs.append(S.masked_rel_err(f64, out.f, ma))
S.sync()
print(
    f"vv137/sinkhorn triton balanced (masked) on {len(SIZES)} sizes x {len(EPS)} epsilons: iterations {iters}; "
    f"f/g rel err vs pytorch backend max {max(errs):.1e}; row-marginal L1 error max {max(marg):.1e}"
)
