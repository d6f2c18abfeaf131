"""Corpus driver (kx's code): ridgerchu/matmulfreellm's fused RMS norm with a swish output gate in
Triton (mmfreelm/modules/fused_norm_gate.py: FusedRMSNormSwishGate / rms_norm_fn over LayerNormFn:
an autotuned one-pass forward kernel (norm, weight, y * o * sigmoid(o), an optional residual added
first and returned with prenorm), an autotuned backward kernel under @triton.heuristics
(RECOMPUTE_OUTPUT) run on one program per SM (the SM count read from the device properties) with
rows_per_program = ceil(M / sm_count) and the weight gradient reduced from an (sm_count, N) fp32
buffer on the host side) as the MatMul-free LM's HGRN layer uses it (the gate input normed, gated
by the recurrence output): bf16 8 x 2048 tokens x d 2048 forward + backward vs the repo's
rms_norm_ref in fp32, then the prenorm form with an fp32 residual stream (residual_in_fp32) on
an odd row count (3 x 1021 tokens) and a wider d (2816)."""

import _corpus11_support as S
import torch

S.bare_package("mmfreelm")  # not its __init__ (the HF model classes, transformers)
from mmfreelm.modules.fused_norm_gate import FusedRMSNormSwishGate, rms_norm_ref  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
CASES = S.pick([(8, 2048, 2048, False), (3, 1021, 2816, True)], [(2, 16, 64, False), (3, 5, 96, True)])


def reference(x, o, w, residual):
    y = rms_norm_ref(x, w, None, residual=residual, eps=1e-5, prenorm=residual is not None, upcast=True)
    y, res = y if residual is not None else (y, None)
    y = y.float() * o * torch.sigmoid(o)
    return y, res


for b, t, d, prenorm in CASES:
    norm = FusedRMSNormSwishGate(d).to(dev)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    x = torch.randn(b, t, d, device=dev, dtype=dt, requires_grad=True)
    o = torch.randn(b, t, d, device=dev, dtype=dt, requires_grad=True)
    residual = torch.randn(b, t, d, device=dev, dtype=torch.float32, requires_grad=True) if prenorm else None
    out = norm(x, o, residual=residual, prenorm=prenorm, residual_in_fp32=prenorm)
    y, res = out if prenorm else (out, None)
    dy = torch.randn_like(y)
    loss = (y.float() * dy.float()).sum() + (res.float().sum() if prenorm else 0)
    params = [x, o, norm.weight] + ([residual] if prenorm else [])
    grads = torch.autograd.grad(loss, params)

    ref_params = [p.detach().float().requires_grad_() for p in params]
    ry, rres = reference(ref_params[0], ref_params[1], ref_params[2], ref_params[3] if prenorm else None)
    rloss = (ry * dy.float()).sum() + (rres.sum() if prenorm else 0)
    rgrads = torch.autograd.grad(rloss, ref_params)
    print(
        f"{b}x{t}x{d} prenorm={prenorm}", f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("mmfree norm gate ok")
