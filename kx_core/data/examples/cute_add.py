"""A CuTe DSL element-wise add: one thread per element, compiled ahead of time on fake
tensors (no GPU needed), as NVIDIA's DSL compiles any @cute.jit program: its MLIR, PTX and
cubin are kx's stages."""

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

THREADS = 256


@cute.kernel
def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * THREADS + tidx
    m, n = gA.shape
    row = i // n
    col = i % n
    gC[row, col] = gA[row, col] + gB[row, col]


@cute.jit
def add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    m, n = mA.shape
    add_kernel(mA, mB, mC).launch(grid=((m * n) // THREADS, 1, 1), block=(THREADS, 1, 1))


def compile_for(m: int = 1024, n: int = 512):
    a, b, c = (make_fake_compact_tensor(cutlass.Float32, (m, n)) for _ in range(3))
    return cute.compile(add, a, b, c)


if __name__ == "__main__":
    compile_for()
