"""Corpus driver (kx's code): chengzeyi/stable-fast's Triton GroupNorm (src/sfast/triton/ops/
group_norm.py: group_norm_forward and the fused group_norm_silu_forward, built by
create_group_norm_forward(act) from kernels whose activation is a @triton.jit function captured
at creation (copy_func'd kernels), with block sizes and num_warps chosen by @triton.heuristics
written as eval'd strings; a contiguous-NCHW path (group_norm_4d_forward_kernel, one program per
(group, sample), Welford combine from ops/utils.py) and a channels-last path (a stats kernel, then
an apply kernel over cdiv(H*W, BLOCK_SIZE) x N)), used as its torch_ops.py TritonGroupNorm /
group_norm_silu operators use them in a Stable-Diffusion U-Net (stable-fast swaps
torch.nn.GroupNorm (+ SiLU) in the U-Net's ResNet blocks): SD-1.5's GroupNorm(32) shapes at
512x512 (batch 2 with CFG: 320 x 64x64, 640 x 32x32, 1280 x 16x16, 1280 x 8x8), fp16, both
memory formats, with and without the fused SiLU, mean / rstd returned as when a backward will
need them; a ResNet-block-like chain (norm-silu, 3x3 conv, norm-silu, conv, residual) in
channels-last; every output compared with torch.nn.functional.group_norm (+ silu)."""

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("sfast")
S.bare_package("sfast.utils")
S.bare_package("sfast.triton")
S.bare_package("sfast.triton.ops")
from sfast.triton.ops.group_norm import group_norm_forward, group_norm_silu_forward  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
shapes = S.pick(
    [(2, 320, 64, 64), (2, 640, 32, 32), (2, 1280, 16, 16), (2, 1280, 8, 8)], [(1, 64, 4, 4), (2, 32, 3, 5)]
)
G = S.pick(32, 8)
for shape in shapes:
    C = shape[1]
    w = torch.randn(C, device=dev, dtype=dt) * 0.2 + 1
    b = torch.randn(C, device=dev, dtype=dt) * 0.1
    for fmt in (torch.contiguous_format, torch.channels_last):
        x = torch.randn(shape, device=dev, dtype=dt).contiguous(memory_format=fmt)
        ref = F.group_norm(x.float(), G, w.float(), b.float(), 1e-5)
        y, mean, rstd = group_norm_forward(x, G, w, b, 1e-5)
        ys, _, _ = group_norm_silu_forward(x, G, w, b, 1e-5, output_mean=False, output_rstd=False)
        e1 = (y.float() - ref).abs().max().item()
        e2 = (ys.float() - F.silu(ref)).abs().max().item()
        print(
            tuple(shape),
            "channels_last" if fmt == torch.channels_last else "nchw",
            "err",
            round(e1, 4),
            round(e2, 4),
            tuple(mean.shape),
        )

# a ResNet-block-like chain in channels-last, as the U-Net runs it after stable-fast's swap
C = S.pick(320, 32)
HW = S.pick(64, 6)
x = torch.randn(2, C, HW, HW, device=dev, dtype=dt).contiguous(memory_format=torch.channels_last)
conv1 = torch.nn.Conv2d(C, C, 3, padding=1).to(dev, dt).to(memory_format=torch.channels_last)
conv2 = torch.nn.Conv2d(C, C, 3, padding=1).to(dev, dt).to(memory_format=torch.channels_last)
n1w, n1b = torch.ones(C, device=dev, dtype=dt), torch.zeros(C, device=dev, dtype=dt)
with torch.no_grad():
    h, _, _ = group_norm_silu_forward(x, G, n1w, n1b, 1e-5, output_mean=False, output_rstd=False)
    h = conv1(h)
    h, _, _ = group_norm_silu_forward(h, G, n1w, n1b, 1e-5, output_mean=False, output_rstd=False)
    out = x + conv2(h)
torch.cuda.synchronize()
print("stable-fast group norm ok", tuple(out.shape), out.is_contiguous(memory_format=torch.channels_last))
