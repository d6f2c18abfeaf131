"""Triton's own verdict on a convert_layout, through Gluon.

Gluon's `convert_layout(x, layout, assert_trivial=True)` asks the compiler
(`GluonOpBuilder.is_convert_layout_trivial`) whether the conversion moves no data
between threads, and fails the compile if it does. kx compiles a two-line Gluon kernel
for cuda:90 (no GPU needed; the answer comes at the frontend, in milliseconds) to get
that verdict for any pair of distributed layouts kx can read.
"""

from __future__ import annotations

from functools import cache

from kx_core.layout.linear import _resolve, gluon_layout


@cache
def _kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def kx_convert(SRC: ttgl.constexpr, DST: ttgl.constexpr, M: ttgl.constexpr, N: ttgl.constexpr):
        x = ttgl.full([M, N], 1.0, ttgl.float32, SRC)
        ttgl.convert_layout(x, DST, assert_trivial=True)

    return kx_convert


def triton_says_trivial(src: str, dst: str, shape: list[int], aliases: dict[str, str] | None = None) -> bool:
    """True when Triton calls the 2-D conversion src -> dst at `shape` trivial (no data
    moves between threads), False when its assert_trivial check fails. Compiled in kx's
    layout service (a child process)."""
    from kx_core.base import service
    from kx_core.layout.linear import LayoutError

    try:
        return service.call("layout", triton_says_trivial_here, src, dst, list(shape), aliases or {})
    except service.ServiceDied as e:
        raise LayoutError(f"Triton's layout code {e} on {src} -> {dst} at {list(shape)}") from e


def triton_says_trivial_here(
    src: str, dst: str, shape: list[int], aliases: dict[str, str] | None = None
) -> bool:
    """triton_says_trivial in this process (the layout service runs it)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    if len(shape) != 2:
        raise ValueError("the Gluon check is written for 2-D tensors")
    aliases = aliases or {}
    layouts = [gluon_layout(_resolve(a.strip(), aliases), aliases, list(shape)) for a in (src, dst)]
    source = GluonASTSource(
        _kernel(),
        {"SRC": "constexpr", "DST": "constexpr", "M": "constexpr", "N": "constexpr"},
        {(0,): layouts[0], (1,): layouts[1], (2,): shape[0], (3,): shape[1]},
    )
    warps = 1 << len(_warp_bases(src, shape, aliases))
    try:
        triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    except Exception as e:  # noqa: BLE001 - a CompilationError wrapping the assertion
        if "trivial" in str(e).lower() or "convert_layout" in str(e):
            return False
        raise
    return True


def _warp_bases(attr: str, shape: list[int], aliases: dict[str, str]):
    from kx_core.layout.linear import linear_bases

    return linear_bases(attr, shape, aliases).warp
