"""Corpus driver (kx's code): gau-nernst/quantized-training's Triton low-precision matmul and conv
kernels (kernels/gn_kernels/triton_mm.py: _matmul_kernel, _scaled_mm_kernel and
_tile_scaled_mm_kernel, each under @triton.autotune keyed on M / N / K and the A / B strides (so
row-major and column-major operands tune separately), EVEN_K and the accumulator dtype as
constexprs, registered as torch.library operators gn_kernels::int8_mm / scaled_mm /
tile_scaled_mm with Meta and CUDA implementations; kernels/gn_kernels/triton_conv2d.py:
_conv2d_kernel and _scaled_int8_conv2d_kernel on channels-last int8 tensors, gn_kernels::conv2d /
scaled_int8_conv2d), called as the repo's benchmark_mm.py / benchmark_conv2d.py and its training
subclasses (subclasses/int8.py, mixed_precision.py, bitnet.py) call them: int8_mm (int32 out) on
the README's row-major x column-major layout (A @ B.T) at 4096^3 and on M / N off the block
multiples (1000 x 1152 x 1544; K stays a multiple of 128: the kernels' EVEN_K = K % 2 == 0 drops
the K mask); scaled_mm with row x column scales and with a tensor-wise column scale (int8 and fp8
e4m3); tile_scaled_mm with (1, 128) x (128, 128) block scales as DeepSeek-style FP8 / INT8
training quantises; int8_conv2d / scaled_int8_conv2d on a ResNet-like 3 x 3 stride-2 layer. Each
new shape or layout is a new autotuning session (25 configs for the matmuls, 23 for the convs), so
the driver keeps to these. Results are compared with torch: exactly for the integer outputs,
relatively for the scaled ones."""

import _corpus8_support as S
import torch
from gn_kernels import int8_conv2d, int8_mm, scaled_int8_conv2d, scaled_mm

torch.manual_seed(0)
dev = "cuda"
N = S.pick(4096, 64)


def rand_i8(*shape):
    return torch.randint(-128, 128, shape, device=dev, dtype=torch.int8)


def rel(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max().clamp(min=1e-6)).item()


# int8 x int8 -> int32: row-major x column-major, and shapes off the block multiples
for name, (A, B) in {
    "A @ B.T": (rand_i8(N, N), rand_i8(N, N).T),
    # M and N off the block multiples; K stays a multiple of every config's BLOCK_K, as the kernels'
    # EVEN_K (K % 2 == 0) drops the K mask
    "odd": (rand_i8(S.pick(1000, 37), S.pick(1152, 128)), rand_i8(S.pick(1152, 128), S.pick(1544, 24))),
}.items():
    C = int8_mm(A, B)
    ref = (A.float() @ B.float()).to(torch.int32) if N <= 64 else None
    if ref is None:  # exact integer check on a slice (an fp64 matmul is exact here)
        ref = (A[:256].double() @ B.double()).to(torch.int32)
        C = C[:256]
    print("int8_mm", name, tuple(C.shape), "exact" if torch.equal(C, ref) else "MISMATCH")

# row-wise x column-wise scaled int8, and tensor-wise column scale (BitNet's layout)
M, K, Nn = S.pick((4096, 4096, 4096), (48, 128, 48))
A, B = rand_i8(M, K), rand_i8(Nn, K).T
row = torch.rand(M, 1, device=dev, dtype=torch.bfloat16) / 127
col = torch.rand(1, Nn, device=dev, dtype=torch.bfloat16) / 127
for scale_B in (col, col[:, :1].contiguous()):
    out = scaled_mm(A, B, row, scale_B)
    ref = (A.float() @ B.float()) * row.float() * scale_B.float()
    print("scaled_mm int8", tuple(scale_B.shape), out.dtype, f"rel err {rel(out, ref):.1e}")

# fp8 e4m3 row x column scaled (the mixed-precision FP8 path)
A8 = (torch.randn(M, K, device=dev) * 4).to(torch.float8_e4m3fn)
B8 = (torch.randn(Nn, K, device=dev) * 4).to(torch.float8_e4m3fn).T
out = scaled_mm(A8, B8, row, col)
ref = (A8.float() @ B8.float()) * row.float() * col.float()
print("scaled_mm fp8", f"rel err {rel(out, ref):.1e}")

# tile-wise scales: (1 x 128) activation tiles, (128 x 128) weight tiles
QB = S.pick(128, 16)
for A_, B_ in ((A, B), (A8, B8)):
    sA = torch.rand(M, K // QB, device=dev) / 127
    sB = torch.rand(K // QB, Nn // QB, device=dev) / 127
    out = scaled_mm(A_, B_, sA, sB)
    deq_A = A_.float() * sA.repeat_interleave(QB, 1)
    deq_B = B_.float() * sB.repeat_interleave(QB, 0).repeat_interleave(QB, 1)
    print("tile_scaled_mm", A_.dtype, f"rel err {rel(out, deq_A @ deq_B):.1e}")

# int8 convolutions on channels-last tensors
batch, hw = S.pick((32, 56), (2, 9))
for cin, cout, k, stride, pad in S.pick([(128, 256, 3, 2, 1)], [(16, 32, 3, 2, 1)]):
    X = rand_i8(batch, cin, hw, hw).contiguous(memory_format=torch.channels_last)
    W = rand_i8(cout, cin, k, k).contiguous(memory_format=torch.channels_last)
    Y = int8_conv2d(X, W, stride, pad)
    ref = torch.nn.functional.conv2d(X.double(), W.double(), stride=stride, padding=pad)
    scale = torch.rand(cout, device=dev, dtype=torch.bfloat16) / 127
    Ys = scaled_int8_conv2d(X, W, scale, stride, pad)
    print(
        "int8_conv2d",
        (cin, cout, k, stride),
        tuple(Y.shape),
        "exact" if torch.equal(Y.double(), ref) else "MISMATCH",
        f"scaled rel err {rel(Ys, ref * scale.double()[None, :, None, None]):.1e}",
    )
torch.cuda.synchronize()
print("quantized-training triton kernels ok")
