"""Corpus driver (kx's code): ELS-RD/kernl's layer norm kernels in Triton
(src/kernl/implementations/layer_norm.py: layer_norm, an autograd.Function (forward only: kernl
is an inference library) that picks its block size and warps from the row width and launches the
kernel passed as `implementation`: _layer_norm_fwd_fused_single_pass (one read of the row, mean and
variance together, or RMS norm with IS_RMSNORM), _layer_norm_fwd_fused_multi_pass (a loop over
4096-wide chunks, for rows too wide to hold) or layer_norm_xformers)
as kernl's optimizer swaps them into a transformer's inference graph: fp16 activations of
BERT-base (32 x 512 tokens, d 768) and of a 7B decoder (8 x 1024 tokens, d 4096), plus a 12288-wide
row for the multi-pass kernel, compared with the repo's PyTorch references
(pytorch_naive_layernorm / pytorch_naive_rmsnorm) in fp32."""

import _corpus10_support as S
import torch
from kernl.implementations.layer_norm import (
    _layer_norm_fwd_fused_multi_pass,
    _layer_norm_fwd_fused_single_pass,
    layer_norm,
    layer_norm_xformers,
    pytorch_naive_layernorm,
    pytorch_naive_rmsnorm,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
SHAPES = S.pick(
    [(32, 512, 768), (8, 1024, 4096), (4, 256, 12288)],
    [(2, 8, 64), (2, 4, 256), (1, 4, 384)],
)
IMPLS = {
    "single pass": _layer_norm_fwd_fused_single_pass,
    "multi pass": _layer_norm_fwd_fused_multi_pass,
    "xformers": layer_norm_xformers,
}

with torch.inference_mode():
    for b, n, d in SHAPES:
        x = torch.randn(b, n, d, device=dev, dtype=dt)
        w = (1 + 0.1 * torch.randn(d, device=dev)).to(dt)
        bias = (0.1 * torch.randn(d, device=dev)).to(dt)
        ln_ref = pytorch_naive_layernorm(x.float(), w.float(), bias.float(), 1e-5)
        rms_ref = pytorch_naive_rmsnorm(x.float(), w.float(), 1e-5)
        for name, impl in IMPLS.items():
            if impl is not _layer_norm_fwd_fused_multi_pass and d > 4096:
                continue  # one block per row, capped at 4096 by kernl (and asserted for xformers)
            ln = layer_norm(x, w, bias, 1e-5, impl)
            line = [(b, n, d), name, f"layer norm rel err {S.rel_err(ln, ln_ref):.1e}"]
            if impl is _layer_norm_fwd_fused_single_pass:  # the only one of the three reading IS_RMSNORM
                rms = layer_norm(x, w, None, 1e-5, impl, use_rms_norm=True)
                line.append(f"rms norm rel err {S.rel_err(rms, rms_ref):.1e}")
            print(*line)
torch.cuda.synchronize()
print("kernl layer norm ok")
