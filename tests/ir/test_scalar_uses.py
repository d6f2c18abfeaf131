"""Which scalar parameters a kernel's source uses as floats (the Arguments form's first
values: issue 54's axpy `a`, pre-filled 4096, compiled as i32)."""

from __future__ import annotations

from kx_core.ir.scalar_uses import float_scalars

LAYER_NORM = """
@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, stride, n_cols, eps, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    diff = x - mean
    var = tl.sum(diff * diff, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask)
    y = diff / tl.sqrt(var + eps) * w
    tl.store(y_ptr + row * stride + cols, y * scale, mask=mask)
"""


def test_a_scalar_combined_with_loaded_data_is_a_float_and_an_index_never():
    # eps and scale meet data only; n_cols divides data too but bounds the mask (an int);
    # stride moves a pointer; the pointers and the constexpr are not scalars to fill
    assert float_scalars(LAYER_NORM) == {"eps", "scale"}


def test_axpy_and_loops():
    axpy = (
        "def axpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
        "    tl.store(y_ptr + offs, a * x, mask=offs < n)\n"
    )
    assert float_scalars(axpy) == {"a"}
    loop = (
        "def k(x_ptr, K, alpha):\n"
        "    acc = 0.0\n"
        "    for k in range(0, K):\n"
        "        acc += tl.load(x_ptr + k)\n"
        "    tl.store(x_ptr, alpha * acc + K * acc)\n"
    )
    assert float_scalars(loop) == {"alpha"}  # K bounds a loop: an int, whatever it meets
    assert float_scalars("not python (") == set()
