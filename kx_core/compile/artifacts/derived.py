"""Derived stages: text made from a compile's binary (SASS and ELF from the cubin), when
something asks for it, like Triton's own AsmDict.

Disassembling costs about half a second of nvdisasm start-up per kernel, more than
compiling a small kernel, so capture keeps the cubin and these stages are made when
something asks for them (the stage tabs, `--json`, `--out`, `kx stages --stage sass`),
several kernels at once. Each stage of a backend with `derived_from` set has its deriver
here; a stage without one is an error at import, not an empty tab.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from kx_core.base.tools import stopped_by
from kx_core.compile.artifacts.elf import ElfUnavailable, elf_view
from kx_core.compile.artifacts.sass import SassUnavailable, disassemble
from kx_core.records.backends import ALL_STAGES
from kx_core.records.results import CompiledKernel, CompileResult

# stage name -> (the function of the binary's bytes, the error it raises when it cannot)
DERIVERS: dict[str, tuple[Callable[[bytes], str], type[Exception]]] = {
    "sass": (disassemble, SassUnavailable),
    "elf": (elf_view, ElfUnavailable),
}
_missing = [s.name for s in ALL_STAGES.values() if s.derived_from and s.name not in DERIVERS]
if _missing:
    raise RuntimeError(f"derived stages without a deriver: {_missing}")


def _todo(kernel: CompiledKernel) -> list[str]:
    return [
        s.name
        for s in ALL_STAGES.values()
        if s.derived_from and s.name not in kernel.stages and s.derived_from in kernel.binaries
    ]


def kernel_with_derived(kernel: CompiledKernel) -> CompiledKernel:
    """The kernel with every derived stage its binaries allow (unchanged if none)."""
    todo = _todo(kernel)
    if not todo:
        return kernel
    stages = dict(kernel.stages)
    for name in todo:
        make, unavailable = DERIVERS[name]
        try:
            stages[name] = make(base64.b64decode(kernel.binaries[ALL_STAGES[name].derived_from]))
        except unavailable as e:
            stages[name] = f"// {ALL_STAGES[name].display_name} unavailable: {e}\n"
    return replace(kernel, stages=stages)


def underived(result: CompileResult) -> bool:
    """Some kernel's binary can give a derived stage it does not have yet."""
    return any(_todo(k) for k in result.kernels)


def with_derived(
    result: CompileResult, jobs: int | None = None, stop: Callable[[], bool] | None = None
) -> CompileResult | None:
    """The result with the derived stages of every kernel, `jobs` kernels at a time; None
    once `stop()` says the result is no longer wanted (the window opened another build:
    the kernels not started yet are not disassembled, so the new compile has the cores)."""
    if not any(_todo(k) for k in result.kernels):
        return result

    def one(kernel: CompiledKernel) -> CompiledKernel | None:
        if stop is not None and stop():
            return None
        with stopped_by(stop):  # a disassembler running when it stops is ended
            return kernel_with_derived(kernel)

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        kernels = list(pool.map(one, result.kernels))
    if stop is not None and stop():
        return None
    return replace(result, kernels=tuple(kernels))
