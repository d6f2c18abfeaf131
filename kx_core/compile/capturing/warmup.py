"""A throw-away compile that pays Triton's one-time start-up cost in the worker.

The first compile in a process costs about 0.65 s more than later ones (LLVM and MLIR
initialisation, ptxas paging in). Forked autotune children inherit a warm parent, so
the worker pays it once before forking instead of once per child.
"""

from __future__ import annotations

from typing import Any

import triton
import triton.language as tl


@triton.jit
def _warmup_kernel(x_ptr):
    tl.store(x_ptr, 1.0)


def warm_up(target: Any) -> None:
    """Compile the tiny kernel for `target` (a triton GPUTarget)."""
    from triton.compiler import ASTSource

    from kx_core.compile.capturing.direct_compiles import not_recorded

    with not_recorded():
        triton.compile(ASTSource(_warmup_kernel, {"x_ptr": "*fp32"}), target=target)
