"""Corpus driver (kx's code): open-lm-engine/cute-kernels' RMS norm kernels in Triton
(fma/ops/rmsnorm: rmsnorm(), forward / backward kernels with the row's 1/rms cached in forward or
recomputed in backward (memory_efficient), an optional weight; fma/ops/fused_residual_add_rmsnorm:
fused_residual_add_rmsnorm(), which adds the (optionally scaled: `multiplier`, as muP-style models
scale their branches) block output into the residual stream and normalizes it in one kernel,
returning both, its backward the gradient of both outputs; the backward kernels accumulate the
weight gradient over a grid sized from the device's SM count) as a pre-norm transformer's blocks
use them: bf16, 8 x 2048 tokens, d 4096, a chain of 4 blocks (residual add + norm, a stand-in
linear branch) forward + backward, each op also alone, compared with the package's torch backend
(KernelBackend.torch) in fp32."""

import _corpus10_support as S
import torch

S.bare_package("fma")
S.bare_package("fma.ops")
from fma.kernel_backend import KernelBackend  # noqa: E402
from fma.ops.fused_residual_add_rmsnorm import fused_residual_add_rmsnorm  # noqa: E402
from fma.ops.rmsnorm import rmsnorm  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
T, D, BLOCKS = S.pick((8 * 2048, 4096, 4), (24, 64, 2))


def leaf(*shape, scale=1.0, shift=0.0):
    return (torch.randn(*shape, device=dev) * scale + shift).to(dt).requires_grad_()


def grads_of(fn, params, backend):
    ps = [p if backend is KernelBackend.triton else p.detach().float().requires_grad_() for p in params]
    out = fn(*ps, backend)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o.float() * g.float()).sum() for o, g in zip(outs, dout, strict=False))
    gs = torch.autograd.grad(loss, ps)
    return outs, gs


def compare(name, fn, params):
    outs, gs = grads_of(fn, params, KernelBackend.triton)
    ref_outs, ref_gs = grads_of(fn, params, KernelBackend.torch)
    print(
        name,
        "outs " + " ".join(f"{S.rel_err(a, b):.1e}" for a, b in zip(outs, ref_outs, strict=True)),
        "grads " + " ".join(f"{S.rel_err(a, b):.1e}" for a, b in zip(gs, ref_gs, strict=True)),
    )


x, res = leaf(T, D), leaf(T, D)
w = leaf(D, scale=0.1, shift=1.0)
dout = [torch.randn(T, D, device=dev, dtype=dt), torch.randn(T, D, device=dev, dtype=dt)]

compare("rmsnorm", lambda x, w, b: rmsnorm(x, w, 1e-6, kernel_backend=b), [x, w])
compare("rmsnorm memory efficient", lambda x, w, b: rmsnorm(x, w, 1e-6, memory_efficient=True, kernel_backend=b), [x, w])
compare("rmsnorm no weight", lambda x, b: rmsnorm(x, None, 1e-6, kernel_backend=b), [x])
compare(
    "residual add + rmsnorm (x 0.5)",
    lambda x, r, w, b: fused_residual_add_rmsnorm(x, r, w, 1e-6, multiplier=0.5, kernel_backend=b),
    [x, res, w],
)

# a chain of pre-norm blocks: the residual stream threaded through the fused op
weights = [leaf(D, scale=0.1, shift=1.0) for _ in range(BLOCKS)]
proj = [(torch.randn(D, D, device=dev) * D**-0.5).to(dt).requires_grad_() for _ in range(BLOCKS)]


def chain(x, *ps_and_backend):
    *ps, backend = ps_and_backend
    ws, mats = ps[:BLOCKS], ps[BLOCKS:]
    h, r = x, torch.zeros_like(x)
    for w_, m in zip(ws, mats, strict=True):
        normed, r = fused_residual_add_rmsnorm(h, r, w_, 1e-6, kernel_backend=backend)
        h = normed @ m  # the block's branch (a stand-in linear)
    return rmsnorm(h + r, None, 1e-6, kernel_backend=backend)


compare(f"{BLOCKS}-block chain", chain, [x, *weights, *proj])
torch.cuda.synchronize()
print("cute-kernels rmsnorm ok")
