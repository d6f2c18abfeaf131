"""Corpus driver (kx's code): chengzeyi/stable-fast's Triton LayerNorm (src/sfast/triton/ops/
layer_norm.py: the LayerNorm torch.autograd.Function, a fused single-pass forward
_layer_norm_fwd_fused with BLOCK_SIZE = next_power_of_2(N) (N the product of normalized_shape)
and num_warps from it, mean / rstd saved only when an input needs a gradient, the backward by
aten.native_layer_norm_backward), used as its torch_ops.py layer_norm operator uses it
(`TritonLayerNorm.apply(input, normalized_shape, weight, bias, eps)`) for the LayerNorms of a
Stable-Diffusion U-Net's transformer blocks and its CLIP text encoder: SD-1.5 shapes at 512x512
with CFG (2 x 4096 x 320, 2 x 1024 x 640, 2 x 256 x 1280, 2 x 64 x 1280), the text encoder's
2 x 77 x 768 and an SDXL-like 2 x 77 x 2048, fp16 inference (no mean / rstd), then an fp32
training step (forward + backward to input, weight and bias) on 8 x 512 x 1000 (N off a power of
two) and a 2-D normalized_shape (4 x 64 x 48, normalized over the last two dims); every output
and gradient compared with torch.nn.functional.layer_norm."""

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("sfast")
S.bare_package("sfast.triton")
S.bare_package("sfast.triton.ops")
from sfast.triton.ops.layer_norm import LayerNorm as TritonLayerNorm  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
shapes = S.pick(
    [(2, 4096, 320), (2, 1024, 640), (2, 256, 1280), (2, 64, 1280), (2, 77, 768), (2, 77, 2048)],
    [(2, 16, 32), (1, 7, 48)],
)
with torch.no_grad():
    for shape in shapes:
        n = shape[-1]
        x = torch.randn(shape, device=dev, dtype=torch.float16)
        w = torch.randn(n, device=dev, dtype=torch.float16) * 0.1 + 1
        b = torch.randn(n, device=dev, dtype=torch.float16) * 0.1
        y = TritonLayerNorm.apply(x, (n,), w, b, 1e-5)
        ref = F.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
        print(tuple(shape), "fp16 max err", round((y.float() - ref).abs().max().item(), 4))


def train_check(shape, normalized_shape):
    x = torch.randn(shape, device=dev, requires_grad=True)
    w = (torch.randn(normalized_shape, device=dev) * 0.1 + 1).requires_grad_()
    b = (torch.randn(normalized_shape, device=dev) * 0.1).requires_grad_()
    y = TritonLayerNorm.apply(x, normalized_shape, w, b, 1e-5)
    dy = torch.randn_like(y)
    y.backward(dy)
    x2, w2, b2 = (t.detach().clone().requires_grad_() for t in (x, w, b))
    F.layer_norm(x2, normalized_shape, w2, b2, 1e-5).backward(dy)
    errs = [(a - c).abs().max().item() for a, c in ((x.grad, x2.grad), (w.grad, w2.grad), (b.grad, b2.grad))]
    print(tuple(shape), normalized_shape, "fp32 grad max err", [round(e, 5) for e in errs])


train_check(S.pick((8, 512, 1000), (2, 5, 40)), S.pick((1000,), (40,)))
train_check(S.pick((4, 64, 48), (2, 6, 8)), S.pick((64, 48), (6, 8)))
torch.cuda.synchronize()
print("stable-fast layer norm ok")
