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


# the targets this process (and the children forked from it: the warm server's jobs)
# has compiled for already: a second warm-up for one only costs a compile
_WARMED: set[tuple] = set()


def warm_up(target: Any) -> bool:
    """Compile the tiny kernel for `target` (a triton GPUTarget), once per process; False
    where this process (or the one it was forked from) had done it already."""
    from triton.compiler import ASTSource

    from kx_core.compile.capturing.languages.direct_compiles import not_recorded

    key = (target.backend, target.arch, target.warp_size)
    if key in _WARMED:
        return False
    with not_recorded():
        triton.compile(ASTSource(_warmup_kernel, {"x_ptr": "*fp32"}), target=target)
    _WARMED.add(key)
    return True
