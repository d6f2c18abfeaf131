"""Corpus driver (kx's code): GPU MODE lecture 18's hand-fused Triton kernel
(gpu-mode/lectures, lecture_018/kernels/triton_fused_add_mul_activation.py:
fused_add_mul_activation_kernel, an in-place sigmoid / relu(multiplier * in + x + bias) with the
bias broadcast by index % num_weights, the element count, multiplier and activation name as
constexprs, written after reading Inductor's output for a DLRM-style MLP) called as the lecture's
benchmark calls it: the fused_add_mul_activation_torch wrapper (sigmoid, 0.5, block
min(2048, numel)) over the benchmark's (batch, weight) grid points plus a wide one, and the kernel
itself launched with activation="relu" and another multiplier; each result checked against the
lecture's eager add_mul_activation_torch / its TorchScript version or a PyTorch expression."""

import _corpus16_support as S
import torch
import triton
from triton_fused_add_mul_activation import (
    add_mul_activation_torch,
    add_mul_activation_torch_scripted,
    fused_add_mul_activation_kernel,
    fused_add_mul_activation_torch,
    get_inputs,
)

SHAPES = S.pick([(4, 4), (64, 16), (1024, 64), (16384, 256), (65536, 512), (8192, 1000)], [(4, 4), (64, 16), (16, 128)])

for batch, width in SHAPES:
    x, inp, bias = get_inputs(batch_size=batch, weight_size=width, add_manual_seed=True)
    want = add_mul_activation_torch(x.clone(), bias, inp)
    want_scripted = add_mul_activation_torch_scripted(x.clone(), bias, inp)
    got = fused_add_mul_activation_torch(x, bias, inp)
    errs = (S.rel_err(got, want), S.rel_err(got, want_scripted))
    print(f"sigmoid ({batch}, {width}): rel err vs eager / scripted {errs[0]:.1e} {errs[1]:.1e}")
    assert max(errs) < 1e-5, errs

# The same kernel with the other activation branch and another multiplier.
batch, width = SHAPES[-2]
x, inp, bias = get_inputs(batch_size=batch, weight_size=width, add_manual_seed=True)
want = torch.relu(x + 2.0 * inp + bias)
BLOCK_SIZE = 1024
grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK_SIZE"]),)
fused_add_mul_activation_kernel[grid](
    x, bias, inp, bias.numel(), x.numel(), multiplier=2.0, activation="relu", BLOCK_SIZE=BLOCK_SIZE
)
err = S.rel_err(x, want)
print(f"relu ({batch}, {width}) multiplier 2: rel err {err:.1e}")
assert err < 1e-5, err

torch.cuda.synchronize()
print("gpumode_fused_add_mul_activation ok")
