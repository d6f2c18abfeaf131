"""Corpus driver (kx's code): MzeroMiko/VMamba's Triton cross-scan / cross-merge
(classification/models/csm_triton.py: triton_cross_scan_flex, one kernel whose constexprs pick the
input / output layout (channel-first BCHW or channel-last BHWC), the operation (scan or merge),
one-by-one mode (four separate inputs) and the scan pattern (cross2d: row-major, column-major and
both reversed; unidirectional; bidirectional), over 32 x 32 spatial tiles; wrapped in
CrossScanTritonF / CrossMergeTritonF autograd.Functions whose backward launches the same kernel
with the operation swapped; cross_scan_fn / cross_merge_fn pick them for CUDA tensors inside
`torch.cuda.device(x.device)`), driven as the file's own CHECK.check_csm_triton does: every layout
and scan pattern, forward and backward, compared with the file's PyTorch CrossScanF / CrossMergeF
(force_torch=True), at the feature-map shapes of a VMamba-T backbone (batch 32; 96 x 56 x 56,
192 x 28 x 28, 384 x 14 x 14, 768 x 7 x 7) plus the check's odd 56 x 57 map, fp32 and fp16, and
the one-by-one scan of stacked B / C projections (SS2Dv3's use)."""

import _corpus8_support as S
import torch

S.bare_package("models")
from models.csm_triton import cross_merge_fn, cross_scan_fn  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
BATCH = S.pick(32, 2)
MAPS = S.pick(
    [(96, 56, 56), (192, 28, 28), (384, 14, 14), (768, 7, 7), (192, 56, 57)], [(4, 9, 9), (3, 7, 12)]
)

# (name, scan, merge) taking channel-first x (B, C, H, W) / y (B, 4, C, H, W), as CHECK's table
VARIANTS = [
    ("cross2d", lambda x, t: cross_scan_fn(x, force_torch=t), lambda y, t: cross_merge_fn(y, force_torch=t)),
    (
        "unidi",
        lambda x, t: cross_scan_fn(x, scans=1, force_torch=t),
        lambda y, t: cross_merge_fn(y, scans=1, force_torch=t),
    ),
    (
        "bidi",
        lambda x, t: cross_scan_fn(x, scans=2, force_torch=t),
        lambda y, t: cross_merge_fn(y, scans=2, force_torch=t),
    ),
    (
        "BHWC->BCL",
        lambda x, t: cross_scan_fn(x.permute(0, 2, 3, 1), in_channel_first=False, force_torch=t),
        lambda y, t: cross_merge_fn(y, in_channel_first=False, force_torch=t).permute(0, 2, 1),
    ),
    (
        "BCHW->BLC",
        lambda x, t: cross_scan_fn(x, out_channel_first=False, force_torch=t).permute(0, 2, 3, 1),
        lambda y, t: cross_merge_fn(y.permute(0, 3, 4, 1, 2), out_channel_first=False, force_torch=t),
    ),
    (
        "BHWC->BLC",
        lambda x, t: cross_scan_fn(
            x.permute(0, 2, 3, 1), in_channel_first=False, out_channel_first=False, force_torch=t
        ).permute(0, 2, 3, 1),
        lambda y, t: cross_merge_fn(
            y.permute(0, 3, 4, 1, 2), in_channel_first=False, out_channel_first=False, force_torch=t
        ).permute(0, 2, 1),
    ),
]

for C, H, W in MAPS:
    for dtype in (torch.float32, torch.float16):
        x = torch.randn(BATCH, C, H, W, device=dev, dtype=dtype)
        y = torch.randn(BATCH, 4, C, H, W, device=dev, dtype=dtype)
        errs = []
        for name, scan, merge in VARIANTS:
            res = []
            for use_torch in (False, True):
                xi, yi = x.clone().requires_grad_(), y.clone().requires_grad_()
                o_s = scan(xi, use_torch)
                o_s.backward(y.view(BATCH, 4, C, H * W))
                o_m = merge(yi, use_torch)
                o_m.backward(x.view(BATCH, C, H * W))
                res.append((o_s, xi.grad, o_m, yi.grad))
            err = max((a.float() - b.float()).abs().max().item() for a, b in zip(*res, strict=True))
            errs.append(f"{name} {err:.1e}")
        print("cross scan/merge", (C, H, W), dtype, "; ".join(errs))

# one-by-one: four separate inputs (B, 4, C, H, W) scanned each in its own direction
C, H, W = MAPS[0]
xs = torch.randn(BATCH, 4, C, H, W, device=dev)
res = []
for use_torch in (False, True):
    xi = xs.clone().requires_grad_()
    out = cross_scan_fn(xi, one_by_one=True, force_torch=use_torch)
    out.backward(torch.ones_like(out))
    res.append((out, xi.grad))
print("one-by-one scan", f"err {max((a - b).abs().max().item() for a, b in zip(*res, strict=True)):.1e}")
torch.cuda.synchronize()
print("vmamba cross scan ok")
