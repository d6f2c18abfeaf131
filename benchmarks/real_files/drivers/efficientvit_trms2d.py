"""Corpus driver (kx's code): mit-han-lab/efficientvit's Triton channel RMSNorm for NCHW feature
maps (efficientvit/models/nn/triton_rms_norm.py: TritonRMSNorm2dFunc, the "trms2d" norm of the
DC-AE decoders (norm.py TritonRMSNorm2d): the forward normalises every pixel over the channels,
one program per (image, 256-pixel block), saving 1 / rms; the backward computes dx in one kernel
that also writes per-block partial dw / db, which PyTorch sums on the host side), trained as a
decoder's conv -> trms2d -> SiLU stages do: fp32 DC-AE-f32 decoder stage shapes (batch 4 x 1024 x
16 x 16, 4 x 512 x 64 x 64, 2 x 256 x 128 x 128 and an odd 3 x 96 x 45 x 37), forward + backward
through a 3 x 3 conv, checked against the same stage with the norm written in PyTorch."""

import _corpus13_support as S
import torch
import torch.nn.functional as F

S.bare_package("efficientvit.models.nn")  # not the package __init__s (apps / training imports)
from efficientvit.models.nn.triton_rms_norm import TritonRMSNorm2dFunc  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
SHAPES = S.pick(
    [(4, 1024, 16, 16), (4, 512, 64, 64), (2, 256, 128, 128), (3, 96, 45, 37)],
    [(2, 32, 8, 8), (1, 16, 20, 20), (3, 24, 5, 7)],
)
EPS = 1e-5


def torch_rms2d(x, w, b):
    rrms = torch.rsqrt(x.float().square().mean(1, keepdim=True) + EPS)
    return (x * rrms).to(x.dtype) * w.view(1, -1, 1, 1) + b.view(1, -1, 1, 1)


for shape in SHAPES:
    n, c, h, w_ = shape
    conv = torch.nn.Conv2d(c, c, 3, padding=1).to(dev)
    weight = (1 + 0.1 * torch.randn(c, device=dev)).requires_grad_()
    bias = (0.1 * torch.randn(c, device=dev)).requires_grad_()
    x = torch.randn(n, c, h, w_, device=dev, requires_grad=True)
    y = F.silu(TritonRMSNorm2dFunc.apply(conv(x), weight, bias, EPS))
    g = torch.randn_like(y)
    got = torch.autograd.grad(y, (x, weight, bias, conv.weight), g)
    y_ref = F.silu(torch_rms2d(conv(x), weight, bias))
    want = torch.autograd.grad(y_ref, (x, weight, bias, conv.weight), g)
    errs = [S.rel_err(y, y_ref)] + [S.rel_err(a, b) for a, b in zip(got, want)]
    print(
        f"{shape}: out {errs[0]:.1e}, dx {errs[1]:.1e}, dw {errs[2]:.1e}, db {errs[3]:.1e}, dconv {errs[4]:.1e}"
    )
torch.cuda.synchronize()
print("efficientvit_trms2d ok")
