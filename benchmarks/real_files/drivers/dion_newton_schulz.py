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
batched (3-D, stacked same-shape matrices), wide and tall (transposed inside) shapes of GPT-small
layers (768 x 768, 4 x 768 x 768, 768 x 3072, 3072 x 768; the batched and tall ones reuse the
square and wide shapes' tuned configs, as the keys hold sizes and strides, not the batch), and
Dion2's update on a 3072 x 768 row selection and a 768 x 3072 column selection. ns_line_1 / 2 / 3
are compared with fp32 torch matmuls of the same bf16 operands; every orthonormalised result is
checked for X X^T near the identity, and the square one against the compiled pure-torch
zeropower_via_newtonschulz5 / polar_express."""

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


def rel(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()


# the three kernels against torch (bf16, the dtype the optimizers hand them)
X = torch.randn(S.pick(768, 32), S.pick(768, 32), device=dev, dtype=torch.bfloat16) / S.pick(768, 32) ** 0.5
A = ns_line_1(X)
err1 = rel(A, X.float() @ X.float().mT)
B = ns_line_2(A, alpha=0.5, beta=-1.5)
err2 = rel(B, 0.5 * A.float() @ A.float() - 1.5 * A.float())
C = ns_line_3(B, X, 2.0)
err3 = rel(C, 2.0 * X.float() + B.float() @ X.float())
print("ns_line_1/2/3", tuple(X.shape), f"rel errs {err1:.1e} {err2:.1e} {err3:.1e}")


def orth_err(X):
    X = X.float()
    X = X.mT if X.size(-2) > X.size(-1) else X
    eye = torch.eye(X.size(-2), device=X.device)
    return (X @ X.mT - eye).abs().amax().item()


# square, batched (the same tuned configs: strides, not the batch, are in the keys), wide and tall
shapes = S.pick(
    [(768, 768), (4, 768, 768), (768, 3072), (3072, 768)], [(32, 32), (2, 32, 32), (24, 64), (64, 24)]
)
for i, shape in enumerate(shapes):
    G = torch.randn(*shape, device=dev, dtype=torch.bfloat16)
    outs = {"ns": newton_schulz_triton(G), "pe": polar_express_triton(G)}
    if shape[-1] == shape[-2]:
        outs["ns fast"] = newton_schulz_triton_fast(G)
    msg = (
        "orthonormalise "
        + str(shape)
        + " |XX^T - I| "
        + " ".join(f"{k} {orth_err(v):.2f}" for k, v in outs.items())
    )
    if i == 0:  # against the compiled pure-torch versions
        msg += f" ns vs ref {rel(outs['ns'], zeropower_via_newtonschulz5(G)):.1e}"
        msg += f" pe vs ref {rel(outs['pe'], polar_express(G)):.1e}"
    print(msg)

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
