"""Corpus driver (kx's code): microsoft/dion's Triton orthonormalisation kernels
(dion/newton_schulz_triton.py: ns_line_1 (A = X @ X^T, only the lower-triangular blocks computed
and mirrored), ns_line_2 (B = alpha * A @ A + beta * A, symmetric), ns_line_3 (a * X + B @ X), each
under @triton.autotune over block sizes / stages / warps keyed on the shapes and strides;
newton_schulz_triton (the 5-step quintic iteration, eager) and newton_schulz_triton_fast (AOL
rescaling + 4 steps, all three kernels); dion/polar_express.py: polar_express_triton, a
torch.compile(dynamic=False, fullgraph=True) function that launches ns_line_1 / ns_line_2 inside
the compiled graph, and the pure-torch compiled polar_express; dion/dion2_triton.py:
dion2_post_orthogonalize_triton, a heuristics-configured in-place update of selected rows or
columns) as dion's optimizers call them on weight matrices and their momentum (bf16): square,
wide, tall (transposed inside) and batched (3-D, e.g. stacked expert or per-head matrices) shapes
of GPT-size layers (768 x 768, 768 x 3072, 3072 x 768, 8 x 512 x 1536), plus odd sizes off the
block multiples. ns_line_1 / ns_line_2 / ns_line_3 are checked against torch matmuls in fp32;
every orthonormalised result is checked for its singular values (X X^T near the identity) and
against the compiled pure-torch zeropower_via_newtonschulz5 / polar_express."""

import _corpus8_support as S
import torch
from dion.dion2_triton import dion2_post_orthogonalize_triton
from dion.newton_schulz_triton import (
    newton_schulz_triton,
    newton_schulz_triton_fast,
    ns_line_1,
    ns_line_2,
    ns_line_3,
    zeropower_via_newtonschulz5,
)
from dion.polar_express import polar_express, polar_express_triton

torch.manual_seed(0)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False

# the three kernels against torch (fp32, shapes off the block multiples)
for shape in S.pick([(1000, 300), (3, 200, 520)], [(40, 24), (2, 20, 36)]):
    X = torch.randn(*shape, device=dev)
    A = ns_line_1(X)
    err1 = (A - X @ X.mT).abs().max().item()
    B = ns_line_2(A, alpha=0.5, beta=-1.5)
    err2 = (B - (0.5 * A @ A - 1.5 * A)).abs().max().item() / (A @ A).abs().max().item()
    C = ns_line_3(B, X, 2.0)
    err3 = (C - (2.0 * X + B @ X)).abs().max().item() / (B @ X).abs().max().item()
    print("ns_line_1/2/3", shape, f"errs {err1:.1e} {err2:.1e} {err3:.1e}")


def orth_err(X):
    X = X.float()
    X = X.mT if X.size(-2) > X.size(-1) else X
    eye = torch.eye(X.size(-2), device=X.device)
    return (X @ X.mT - eye).abs().amax().item()


shapes = S.pick(
    [(768, 768), (768, 3072), (3072, 768), (8, 512, 1536), (1000, 300)],
    [(32, 32), (24, 64), (64, 24), (2, 16, 48)],
)
for shape in shapes:
    G = torch.randn(*shape, device=dev, dtype=torch.bfloat16)
    ref = zeropower_via_newtonschulz5(G)
    ns = newton_schulz_triton(G)
    fast = newton_schulz_triton_fast(G)
    pe = polar_express_triton(G)
    pe_ref = polar_express(G)
    print(
        "orthonormalise",
        shape,
        f"ns vs ref {(ns.float() - ref.float()).abs().max().item():.2e}",
        f"pe vs ref {(pe.float() - pe_ref.float()).abs().max().item():.2e}",
        "|XX^T - I|",
        " ".join(f"{orth_err(t):.2f}" for t in (ns, fast, pe)),
    )

# Dion2's fused post-orthogonalisation: weight decay everywhere, the update on the selected slices
for select_dim, shape in ((-2, S.pick((3072, 768), (40, 24))), (-1, S.pick((768, 3072), (24, 40)))):
    X = torch.randn(*shape, device=dev)
    full = shape[select_dim]
    k = max(1, full // 4)
    idx = torch.randperm(full, device=dev)[:k].sort().values
    U_shape = list(shape)
    U_shape[select_dim] = k
    U = torch.randn(*U_shape, device=dev, dtype=torch.bfloat16)
    lr, adj, wd = (torch.tensor(v, device=dev) for v in (0.02, 0.05, 0.01))
    want = X * (1 - 0.02 * 0.01)
    if select_dim == -2:
        want[idx] -= 0.05 * U.float()
    else:
        want[:, idx] -= 0.05 * U.float()
    dion2_post_orthogonalize_triton([X], [U], [idx], lr, adj, wd, select_dim)
    print("dion2 post-ortho", select_dim, shape, f"err {(X - want).abs().max().item():.1e}")
torch.cuda.synchronize()
print("dion newton-schulz kernels ok")
