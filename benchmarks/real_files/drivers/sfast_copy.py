"""Corpus driver (kx's code): chengzeyi/stable-fast's strided-copy Triton kernels (src/sfast/triton/
ops/copy.py: copy(dst, src) over copy_2d_kernel / copy_3d_kernel / copy_4d_kernel, each under two
stacked @triton.heuristics written as eval'd strings that choose BLOCK_M / BLOCK_N / BLOCK_K from
the sizes, specialise on which strides equal 1 (constexpr flags) and pick num_warps from the
block; grids from lambdas over those meta-parameters), used as its torch_ops.py TritonContiguous
/ TritonClone / TritonReshape operators use it (`dst = torch.empty_like(x, memory_format=...)`
then `copy(dst, x)`): the layout changes a Stable-Diffusion U-Net makes (NCHW <-> channels-last
of 2 x 320 x 64 x 64 fp16 activations, the transposes of attention's (batch, heads, tokens,
head_dim) <-> (batch, tokens, heads * head_dim) at 2 x 8 x 4096 x 40, a 3-D transpose of
2 x 4096 x 320, a strided column slice, 2-D copies with a dtype cast fp32 -> fp16; 1-D is left out: copy()
unpacks the 1-D shape as 2-D and raises), every
result compared with torch's copy."""

import _corpus7_support as S
import torch

S.bare_package("sfast")
S.bare_package("sfast.triton")
S.bare_package("sfast.triton.ops")
from sfast.triton.ops.copy import copy  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16


def check(name, dst, src):
    copy(dst, src)
    print(name, tuple(dst.shape), dst.stride(), torch.equal(dst.float(), src.to(dst.dtype).float()))


N, C, HW = S.pick((2, 320, 64), (1, 8, 5))
x = torch.randn(N, C, HW, HW, device=dev, dtype=dt)
check("to channels_last", torch.empty_like(x, memory_format=torch.channels_last), x)
xc = x.contiguous(memory_format=torch.channels_last)
check("to contiguous", torch.empty_like(xc, memory_format=torch.contiguous_format), xc)

B, Hh, T, Dh = S.pick((2, 8, 4096, 40), (2, 2, 9, 8))
a = torch.randn(B, Hh, T, Dh, device=dev, dtype=dt)
check("heads->tokens 4d", torch.empty(B, T, Hh, Dh, device=dev, dtype=dt).transpose(1, 2), a)
t3 = torch.randn(B, T, Hh * Dh, device=dev, dtype=dt).transpose(1, 2)
check("3d transpose", torch.empty(t3.shape, device=dev, dtype=dt), t3)
wide = torch.randn(T, 3 * Hh * Dh, device=dev, dtype=dt)
col = wide[:, Hh * Dh : 2 * Hh * Dh]  # a strided slice (the k of a fused qkv)
check("2d strided slice", torch.empty(col.shape, device=dev, dtype=dt), col)
v32 = torch.randn(S.pick(16, 2), S.pick(1 << 16, 100), device=dev)
check("2d cast fp32->fp16", torch.empty(v32.shape, device=dev, dtype=dt), v32)
m32 = torch.randn(S.pick(77, 3), S.pick(768, 17), device=dev).t()
check("2d transposed cast", torch.empty(m32.shape, device=dev, dtype=dt), m32)
torch.cuda.synchronize()
print("stable-fast copy ok")
