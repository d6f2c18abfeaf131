"""The ordered table of compilation stages kx shows, per backend.

The GUI builds its tabs from `stages_for(target)`, never from string literals; the CLI's
`--out` uses each descriptor's file extension.
"""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.records.results import Target


@dataclass(frozen=True)
class StageDescriptor(Jsonable):
    """One stage: `name` is the key in CompiledKernel.stages (Triton's asm key)."""

    name: str
    extension: str
    display_name: str
    order: int
    syntax: str  # pygments lexer alias, or kx's own lexer name ('mlir', 'sass')
    binary: bool = False


_COMMON = (
    StageDescriptor("ttir", "ttir", "TTIR", 0, "mlir"),
    StageDescriptor("ttgir", "ttgir", "TTGIR", 1, "mlir"),
    StageDescriptor("llir", "ll", "LLVM IR", 2, "llvm"),
)
CUDA_STAGES = _COMMON + (
    StageDescriptor("ptx", "ptx", "PTX", 3, "ptx"),
    StageDescriptor("sass", "sass", "SASS", 4, "sass"),
)
HIP_STAGES = _COMMON + (StageDescriptor("amdgcn", "amdgcn", "AMDGCN", 3, "gas"),)
# a C++ CPU kernel (kx_core.cpu): GCC's x86 assembly and its vectorization report
CPU_STAGES = (
    StageDescriptor("asm", "s", "Assembly", 0, "gas"),
    StageDescriptor("vectorization", "vec", "Vectorization", 1, "text"),
)

ALL_STAGES = {d.name: d for d in CUDA_STAGES + HIP_STAGES + CPU_STAGES}


def stages_for(target: Target) -> tuple[StageDescriptor, ...]:
    """The stages a compile for `target` produces, in pipeline order."""
    return {"hip": HIP_STAGES, "cpu": CPU_STAGES}.get(target.backend, CUDA_STAGES)


def stage_names() -> list[str]:
    """Every stage name kx knows, in a stable order (for CLI choices)."""
    return list(ALL_STAGES)
