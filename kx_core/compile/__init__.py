"""Compiling kernel files: capture mode, direct mode, the worker and the result cache.

Public entry points: `compile_file(request)` and the generator `iter_compile(request)`.
"""

from kx_core.compile.jobs.runner import CompilePartial, CompileProgress, compile_file, iter_compile
from kx_core.records.results import (
    AutotuneConfig,
    CompiledKernel,
    CompileRequest,
    CompileResult,
    Diagnostic,
    KernelMetadata,
    Launch,
    LaunchArg,
    PassDump,
    Target,
)

__all__ = [
    "AutotuneConfig",
    "CompilePartial",
    "CompileProgress",
    "CompileRequest",
    "CompileResult",
    "CompiledKernel",
    "Diagnostic",
    "KernelMetadata",
    "Launch",
    "LaunchArg",
    "PassDump",
    "Target",
    "compile_file",
    "iter_compile",
]
