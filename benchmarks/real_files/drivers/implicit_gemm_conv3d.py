"""Corpus driver (kx's code): l1351868270/implicit_gemm.triton's 3-D convolution as an implicit
GEMM (triton_conv3d.py: conv3d_kernel, @triton.autotune over 16 tile configs keyed on all 21
shape / stride / padding / dilation arguments, a grouped launch order, the im2col index maths
(n, d, h, w from the GEMM row; t, r, s, c from the GEMM column) done in-register with masks for
the padding halo, float16 output from a float32 accumulator) on channels-last float16 video /
volumetric activations: the 3x3x3 stem-sized and strided layers of a 3-D ResNet block (padding
1, stride 1 and 2, one dilated layer and one 1x1x1 projection), each checked against
torch.nn.functional.conv3d."""

import _corpus18_support as S
import torch
import torch.nn.functional as F
from triton_conv3d import triton_conv3d

torch.manual_seed(0)
dev = "cuda"
N, D, HW = S.pick((2, 16, 56), (1, 4, 6))
C1, C2 = S.pick((64, 128), (16, 32))
layers = [  # (C_in, C_out, kernel, stride, padding, dilation, spatial)
    (C1, C1, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), (D, HW, HW)),
    (C1, C2, (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), (D, HW, HW)),
    (C2, C2, (3, 3, 3), (1, 1, 1), (2, 2, 2), (2, 2, 2), (D // 2, HW // 2, HW // 2)),
    (C1, C2, (1, 1, 1), (2, 2, 2), (0, 0, 0), (1, 1, 1), (D, HW, HW)),
]
worst = 0.0
for cin, cout, k, st, pad, dil, sp in layers:
    x = torch.randn(N, cin, *sp, device=dev, dtype=torch.float16)
    w = torch.randn(cout, cin, *k, device=dev, dtype=torch.float16) / (cin * k[0] * k[1] * k[2]) ** 0.5
    y = triton_conv3d(
        x.permute(0, 2, 3, 4, 1).contiguous(),
        w.permute(0, 2, 3, 4, 1).contiguous(),
        stride=st,
        padding=pad,
        dilation=dil,
    )
    ref = F.conv3d(x.float(), w.float(), stride=st, padding=pad, dilation=dil).permute(0, 2, 3, 4, 1)
    err = S.rel_err(y, ref)
    worst = max(worst, err)
    print(
        f"conv3d {cin}->{cout} k{k} s{st} p{pad} d{dil} on {tuple(x.shape)}: out {tuple(y.shape)}, rel err {err:.1e}"
    )
    assert y.shape == ref.shape, (y.shape, ref.shape)
assert worst < 5e-3, worst
torch.cuda.synchronize()
print("implicit_gemm_conv3d ok")
