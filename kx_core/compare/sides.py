"""One side of a comparison, as the command line spells it, and the kernel it picks.

    FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH][,triton=VERSION]

    matmul_autotune.py#0                 the first compiled kernel/config of the file
    matmul_autotune.py#BLOCK_N=128       the one whose name holds that text
    softmax.py@cuda:80                   the file compiled for sm_80
    softmax.py,python=/venvs/t36/bin/python   compiled by another interpreter (its Triton)
    softmax.py,triton=3.6.0              compiled by a Triton version kx manages (kx versions)

Without #KERNEL a side is every kernel of the file, paired with the other side's by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kx_core.records.results import CompiledKernel, CompileResult


class SideError(ValueError):
    """A side spelled wrong, or naming no kernel of its build."""


# Example: "kx_core/data/examples/matmul_autotune.py@cuda:80#BLOCK_N=128,gpu=a100"
_SIDE_RE = re.compile(
    r"^(?P<file>[^@#,]+)(?:@(?P<target>[^#,]+))?(?:#(?P<kernel>[^,]+))?(?P<rest>(?:,[^,]*)*)$"
)
_KEYS = ("gpu", "python", "triton")


@dataclass(frozen=True)
class Side:
    file: str
    target: str | None = None
    kernel: str | None = None
    gpu: str | None = None
    python: str | None = None
    triton: str | None = None  # a managed version (kx versions add): its environment's python

    @property
    def label(self) -> str:
        parts = [
            self.file
            + (f"@{self.target}" if self.target else "")
            + (f"#{self.kernel}" if self.kernel else "")
        ]
        parts += [f"{k}={getattr(self, k)}" for k in _KEYS if getattr(self, k)]
        return ",".join(parts)


def parse_side(text: str) -> Side:
    m = _SIDE_RE.match(text.strip())
    if not m:
        raise SideError(f"{text!r}: expected FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH][,triton=V]")
    extra: dict[str, str] = {}
    for item in filter(None, m.group("rest").split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in _KEYS or not value:
            raise SideError(f"{text!r}: {item!r} is not one of {', '.join(k + '=...' for k in _KEYS)}")
        extra[key] = value
    return Side(m.group("file"), m.group("target"), m.group("kernel"), **extra)


def compiled(result: CompileResult) -> list[CompiledKernel]:
    return [k for k in result.kernels if k.status == "compiled"]


def pick(result: CompileResult, selector: str | None) -> list[CompiledKernel]:
    """The kernels a side names: all compiled ones; one by its position among them (#0);
    one whose display name equals, else contains, the selector."""
    kernels = compiled(result)
    if selector is None:
        return kernels
    if selector.isdigit():
        i = int(selector)
        if i >= len(kernels):
            raise SideError(
                f"#{selector}: {result.file} compiled {len(kernels)} kernel(s) (#0 to #{len(kernels) - 1})"
            )
        return [kernels[i]]
    exact = [k for k in kernels if selector in (k.display_name, k.name, k.short_name)]
    if exact:
        return exact[:1] if len({k.display_name for k in exact}) == 1 or len(exact) == 1 else exact
    near = [k for k in kernels if selector in k.display_name]
    if len(near) == 1:
        return near
    names = ", ".join(f"#{i} {k.display_name}" for i, k in enumerate(kernels))
    if not near:
        raise SideError(f"#{selector}: no compiled kernel of {result.file} is named so ({names})")
    raise SideError(f"#{selector} names {len(near)} kernels; pick one by number: {names}")


def pairs(
    a: list[CompiledKernel], b: list[CompiledKernel]
) -> tuple[list[tuple[CompiledKernel, CompiledKernel]], list[str]]:
    """Kernels paired by display name (one each side: paired whatever their names), and
    the names left unpaired."""
    if len(a) == 1 and len(b) == 1:
        return [(a[0], b[0])], []
    by_name = {k.display_name: k for k in b}
    out = [(k, by_name[k.display_name]) for k in a if k.display_name in by_name]
    paired = {x.display_name for x, _ in out}
    left = [f"A only: {k.display_name}" for k in a if k.display_name not in paired]
    left += [f"B only: {k.display_name}" for k in b if k.display_name not in paired]
    return out, left
