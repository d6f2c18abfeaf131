"""Corpus driver (kx's code): GPU MODE lecture 18's two versions of an in-place
relu(x + bias + 0.5 * in) Triton kernel (gpu-mode/lectures,
lecture_018/kernels/triton_fused_add_mul_relu.py: fused_add_mul_relu, Inductor's generated kernel
copied by hand with the bias index hard-wired to xindex % 8, and fused_add_mul_relu_cleaner, the
rewritten one with num_weights and the multiplier as runtime arguments), run as the file's main and
benchmark run them: both wrappers (block min(1024, numel)) at the benchmark's (batch, 8)-wide
points and the cleaner one at wider bias widths, plus the main's direct launches with block 8;
each result checked against PyTorch."""

import _corpus16_support as S
import torch
import triton
from triton_fused_add_mul_relu import (
    fused_add_mul_relu,
    fused_add_mul_relu_cleaner,
    fused_add_mul_relu_cleaner_torch,
    fused_add_mul_relu_torch,
    get_inputs,
)


def expected(x, inp, bias):
    return torch.relu(x + 0.5 * inp + bias)


# The generated kernel's bias index is xindex % 8: only 8-wide biases.
for batch in S.pick((8, 256, 4096, 262144), (8, 256)):
    x, inp, bias = get_inputs(batch_size=batch, weight_size=8, add_manual_seed=True)
    want = expected(x, inp, bias)
    got = fused_add_mul_relu_torch(x.clone(), bias, inp)
    got_clean = fused_add_mul_relu_cleaner_torch(x.clone(), bias, inp)
    errs = (S.rel_err(got, want), S.rel_err(got_clean, want))
    print(f"({batch}, 8): rel err generated / cleaner {errs[0]:.1e} {errs[1]:.1e}")
    assert max(errs) < 1e-5, errs

for batch, width in S.pick([(1024, 64), (16384, 512), (4096, 1000)], [(16, 64), (8, 128)]):
    x, inp, bias = get_inputs(batch_size=batch, weight_size=width, add_manual_seed=True)
    want = expected(x, inp, bias)
    got = fused_add_mul_relu_cleaner_torch(x, bias, inp)
    err = S.rel_err(got, want)
    print(f"cleaner ({batch}, {width}): rel err {err:.1e}")
    assert err < 1e-5, err

# The file's main: both kernels launched directly on the default 8 x 8 inputs with BLOCK_SIZE 8.
BLOCK_SIZE = 8
x, inp, bias = get_inputs(add_manual_seed=True)
want = expected(x, inp, bias)
grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK_SIZE"]),)
fused_add_mul_relu[grid](x, bias, inp, x.numel(), BLOCK_SIZE=BLOCK_SIZE)
torch.testing.assert_close(x, want, rtol=1e-4, atol=1e-4)
x, inp, bias = get_inputs(add_manual_seed=True)
fused_add_mul_relu_cleaner[grid](x, bias, inp, bias.numel(), x.numel(), multiplier=0.5, BLOCK_SIZE=BLOCK_SIZE)
torch.testing.assert_close(x, want, rtol=1e-4, atol=1e-4)
print("main's block-8 launches match")

torch.cuda.synchronize()
print("gpumode_fused_add_mul_relu ok")
