"""Corpus driver (kx's code): Doraemonzzz/xopes' fused normalizations in Triton
(xopes/ops/normalize/normalize/normalize_triton.py: normalize_triton, one forward / backward kernel
pair for layer norm (use_mean), RMS norm, weightless "simple" RMS norm and grouped RMS norm, with
an optional fused residual add (returning the updated residual stream), and an optional
sigmoid / silu gate applied before or after the norm; layer_norm/, rms_norm/, srms_norm/ and
group_rms_norm/ are its thin wrappers) as a pre-norm transformer's blocks use them: a bf16 residual
stream of 8 x 2048 tokens, d 2048, through layer norm with residual, RMS norm with residual, simple
RMS norm, grouped RMS norm (8 groups) with an output gate (silu, post), forward + backward for
each, every output and the input / weight gradients compared with the repo's PyTorch versions
(normalize_torch and the *_torch wrappers) in fp32."""

import _corpus9_support as S
import torch

S.bare_package("xopes.ops")
from xopes.ops.normalize import (  # noqa: E402
    group_rms_norm_torch,
    group_rms_norm_triton,
    layer_norm_torch,
    layer_norm_triton,
    normalize_torch,
    normalize_triton,
    rms_norm_torch,
    rms_norm_triton,
    srms_norm_torch,
    srms_norm_triton,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
T, D = S.pick((8 * 2048, 2048), (24, 64))
G = 8 if D % 8 == 0 else 1


def leaf(*shape, dtype=dt, scale=1.0):
    return (torch.randn(*shape, device=dev) * scale).to(dtype).requires_grad_()


x, res = leaf(T, D), leaf(T, D)
w, b = leaf(D, scale=0.1), leaf(D, scale=0.1)
with torch.no_grad():
    w += 1
do = torch.randn(T, D, device=dev, dtype=dt)


def run(fn, params):
    out = fn()
    o = out[0] if isinstance(out, tuple) else out
    (o.float() * do.float()).sum().backward()
    gs = [p.grad.clone() for p in params]
    for p in params:
        p.grad = None
    return o, gs


cases = {
    "layer norm + residual": (
        lambda: layer_norm_triton(x, w, b, dim=D, residual=res, return_residual=True),
        lambda: layer_norm_torch(x, w, b, dim=D, residual=res, return_residual=True),
        [x, w, b, res],
    ),
    "rms norm + residual": (
        lambda: rms_norm_triton(x, w, dim=D, residual=res, return_residual=True),
        lambda: rms_norm_torch(x, w, dim=D, residual=res, return_residual=True),
        [x, w, res],
    ),
    "simple rms norm": (lambda: srms_norm_triton(x, dim=D), lambda: srms_norm_torch(x, dim=D), [x]),
    f"group rms norm ({G} groups)": (
        lambda: group_rms_norm_triton(x, w, b, dim=D, num_groups=G),
        lambda: group_rms_norm_torch(x, w, b, dim=D, num_groups=G),
        [x, w, b],
    ),
}
for name, (tri, ref, params) in cases.items():
    o, g = run(tri, params)
    o_ref, g_ref = run(ref, params)
    print(
        name,
        (T, D),
        f"o rel err {S.rel_err(o, o_ref):.1e}",
        "grads " + " ".join(f"{S.rel_err(a, c):.1e}" for a, c in zip(g, g_ref, strict=True)),
    )

# gated output normalization (a linear-attention block's output norm): silu gate after the norm
gate = leaf(T, D)
kw = dict(weight=w, bias=None, gate=gate, gate_act="silu", gate_pos="post", c=(D // G) ** 0.5, num_groups=G)
o, g = run(lambda: normalize_triton(x, **kw), [x, w, gate])
o_ref, g_ref = run(lambda: normalize_torch(x, **kw), [x, w, gate])
print(
    "gated group rms norm",
    f"o rel err {S.rel_err(o, o_ref):.1e}",
    "grads " + " ".join(f"{S.rel_err(a, c):.1e}" for a, c in zip(g, g_ref, strict=True)),
)
torch.cuda.synchronize()
print("xopes normalize ok")
