"""The compile engine's data model: frozen dataclasses with JSON round-trip.

These cross the worker boundary (as JSON lines), live in the result cache and feed the
GUI. Units are in the field names or docstrings: bytes, seconds, 32-bit registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kx_core.jsonable import Jsonable

# Diagnostic kinds. The first four make `kx compile` exit 1; `runtime` and `no-launch`
# are informational: capture still succeeded.
FATAL_KINDS = ("syntax", "compile", "timeout", "crash")
DIAGNOSTIC_KINDS = FATAL_KINDS + ("runtime", "no-launch", "tool")

KERNEL_STATUSES = ("compiled", "not-launched", "failed")


@dataclass(frozen=True)
class Target(Jsonable):
    """A compile target: backend 'cuda' or 'hip', arch (90 or 'gfx942'), warp size."""

    backend: str
    arch: int | str
    warp_size: int

    @property
    def spec(self) -> str:
        """The canonical spelling, e.g. 'cuda:90', 'hip:gfx942'."""
        return f"{self.backend}:{self.arch}"

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class Diagnostic(Jsonable):
    """One problem, with the place in the user's file it belongs to where there is one."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    kernel: str | None = None

    @property
    def fatal(self) -> bool:
        return self.kind in FATAL_KINDS


@dataclass(frozen=True)
class LaunchArg(Jsonable):
    """One argument of a launch. kind: tensor, int, float, bool, none, constexpr, other."""

    name: str
    kind: str
    dtype: str | None = None
    shape: tuple[int, ...] | None = None
    strides: tuple[int, ...] | None = None
    value: Any = None


@dataclass(frozen=True)
class Launch(Jsonable):
    """What a `kernel[grid](...)` call asked for. `count` is how many identical launches
    (same compiled kernel) the file made; the other fields describe the first."""

    grid: tuple[int, int, int]
    args: tuple[LaunchArg, ...]
    constexprs: dict[str, Any]
    num_warps: int
    num_stages: int
    count: int = 1


@dataclass(frozen=True)
class AutotuneConfig(Jsonable):
    """One `triton.Config` of an autotuned kernel, by its position in the config list."""

    index: int
    kwargs: dict[str, Any]
    num_warps: int
    num_stages: int
    num_ctas: int = 1
    maxnreg: int | None = None

    @property
    def label(self) -> str:
        """Short name used in file names and tables, e.g. 'BLOCK_M=64,BLOCK_N=64,w4,s3'."""
        parts = [f"{k}={v}" for k, v in self.kwargs.items()]
        parts += [f"w{self.num_warps}", f"s{self.num_stages}"]
        if self.maxnreg:
            parts.append(f"r{self.maxnreg}")
        return ",".join(parts)


@dataclass(frozen=True)
class KernelMetadata(Jsonable):
    """Resources of one compiled kernel. shared/local/stack in bytes; registers are
    32-bit registers per thread as ptxas allocated them (cuobjdump -res-usage), None
    where the target or the tools cannot tell."""

    num_warps: int
    num_stages: int
    num_ctas: int = 1
    shared: int = 0
    registers: int | None = None
    spills: int | None = None
    local: int | None = None
    stack: int | None = None
    hash: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PassDump(Jsonable):
    """The IR before one MLIR/LLVM pass, and whether the pass changed it.

    `function` is set for per-function dumps; `pipeline` numbers Triton's pass-manager
    runs in order (0: make_ttir, 1: make_ttgir, ...); `kind` is 'mlir', 'llvm', or
    'internal' for a step a pass dumps itself (the pipeliner's LowerLoops: its `ir` is
    the IR after that step);
    `time_s` is the pass's wall time from MLIR's timing report, where there is one."""

    name: str
    argument: str
    ir: str
    changed: bool
    function: str | None = None
    pipeline: int = 0
    kind: str = "mlir"
    options: str = ""
    time_s: float | None = None


@dataclass(frozen=True)
class Specialization(Jsonable):
    """Exactly what Triton compiled: the ASTSource's signature (parameter -> Triton
    type, 'constexpr' for constexprs), constexpr values and attributes (e.g.
    tt.divisibility), keyed by parameter name ('a.0' for an element of a tuple
    parameter), plus the options that shape the code. Replaying these through
    `triton.compile(ASTSource(...))` gives the same kernel."""

    signature: dict[str, str]
    constexprs: dict[str, Any]
    attrs: dict[str, list[Any]]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CompiledKernel(Jsonable):
    """One kernel of a file: one specialization, or one autotune config of it."""

    name: str
    status: str
    target: Target
    source_file: str | None = None
    source_line: int | None = None
    config: AutotuneConfig | None = None
    launch: Launch | None = None
    stages: dict[str, str] = field(default_factory=dict)
    binaries: dict[str, str] = field(default_factory=dict)  # e.g. {"cubin": base64}
    metadata: KernelMetadata | None = None
    passes: tuple[PassDump, ...] = ()
    signature: dict[str, str] = field(default_factory=dict)
    specialization: Specialization | None = None
    compile_time_s: float | None = None
    message: str | None = None

    @property
    def display_name(self) -> str:
        """'matmul_kernel[BLOCK_M=64,...]' for a config, else the plain name."""
        return f"{self.name}[{self.config.label}]" if self.config else self.name


@dataclass(frozen=True)
class CompileRequest(Jsonable):
    """What to compile. target is a spec ('cuda:90', 'hip:gfx942', 'local', ...)."""

    file: str
    target: str = "default"
    kernel: str | None = None
    signature: str | None = None
    constexprs: dict[str, str] = field(default_factory=dict)
    num_warps: int | None = None
    num_stages: int | None = None
    passes: bool = False
    timeout_s: float = 60.0
    jobs: int | None = None


@dataclass(frozen=True)
class CompileResult(Jsonable):
    """Everything one compile of a file produced."""

    file: str
    target: Target
    triton_version: str
    kernels: tuple[CompiledKernel, ...]
    diagnostics: tuple[Diagnostic, ...]
    wall_time_s: float = 0.0
    output: str = ""
    from_cache: bool = False
    # Seconds per phase inside the worker: imports_s (torch + triton), file_s (running
    # the file, compiles included), autotune_s (config matrices), warmup_s.
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """False when a syntax, compile, timeout or crash diagnostic occurred."""
        return not any(d.fatal for d in self.diagnostics)

    def kernel(self, name: str) -> list[CompiledKernel]:
        return [k for k in self.kernels if k.name == name]
