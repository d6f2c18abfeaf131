"""The compile engine's data model: frozen dataclasses with JSON round-trip.

These cross the worker boundary (as JSON lines), live in the result cache and feed the
GUI. Units are in the field names or docstrings: bytes, seconds, 32-bit registers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.base.jsonable import Jsonable
from kx_core.records.backends import Target, backend_of
from kx_core.records.build import Build

# Diagnostic kinds. The fatal ones make `kx compile` exit 1 (`environment`: the
# interpreter asked for cannot run kx's worker), `argument` exit 2 (the request's
# --kernel, --arg, --signature or --constexpr do not fit the file's kernel: a bad command
# line, named in the message); `runtime`, `no-launch` and `placeholder` (capture
# answered a read of data with a placeholder and went on) are informational.
# The start of the `runtime` message of a file stopped at its first read of data because
# the request asked it (--stop-at-data): the one runtime stop that leaves a capture complete
STOPPED_AT_DATA = "stopped at data, as asked (--stop-at-data): "
FATAL_KINDS = (
    "syntax",
    "compile",
    "timeout",
    "crash",
    "environment",
    "out-of-memory",
    "argument",
    "record",
    "refused",
    "missing-extra",
)
# `record`: part of a record kx opened (a Triton cache or dump folder, a tritonparse
# trace: kx_core.recorded) could not be read; the message says where and what was read.
# `refused`: a file of a record kx would not read (kx_core.base.outside_files: not a
# regular file, a link out of the record, past a size, inflation or JSON-depth limit);
# the message names the file and the limit. Exit status 2, as for a bad argument.
# `missing-extra`: the file imports a kernel language kx supports through an optional
# extra (records/languages.py: Helion, the CuTe DSL, TileLang) that is not installed; the
# message names the language and the command that installs it. Fatal (exit 1): nothing of
# the file was captured, which is not a success with no kernels.
# `config`: one config of an autotuned launch did not compile while another did; a real
# autotuner skips it.
# `recompiled`: stages kx compiled itself from a record that holds source only (an
# Inductor debug folder, a TORCH_TRACE log: kx_core.recorded.inductor_module); the message
# names the Triton that compiled them beside the run's. `record-lacks`: a record reads
# whole but lacks what its kind may hold (a Proton profile without per-line samples).
# `cancelled`: the user stopped the job (the app's Stop, a newer compile of the same file).
# `rule`: a CPU kernel breaks one of the seed's correctness rules (kx_core.cpu.checks).
# `flags`: a C++ kernel compiled with its build.toml's cxx-flags, not the tier's
# (kx_core.cpu.build_toml).
# `not-launched`: kernels the file imports (from its own modules) that nothing launched.
# `not-captured`: launches kx knows happened but could not capture (the result is
# incomplete: `kx compile` exits 4).
# `uncached`: the file started a process, whose reads kx cannot see: its result is not
# kept in kx's result cache (capturing/device/reads.py), at the line that started it.
DIAGNOSTIC_KINDS = FATAL_KINDS + (
    "runtime",
    "no-launch",
    "not-launched",
    "not-captured",
    "tool",
    "placeholder",
    "config",
    "cancelled",
    "rule",
    "flags",
    "recompiled",
    "record-lacks",
    "uncached",
)

# pruned: compiled, but a real GPU's autotuner would skip it (out of shared memory or
# registers on the capture device); failed: did not compile; compiling: the first
# kernel's first stage while Triton makes the rest (a CompilePartial's only, never a
# result's: capturing/early_stages.py).
KERNEL_STATUSES = ("compiled", "pruned", "not-launched", "failed", "compiling")


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

    def __str__(self) -> str:
        """The one line every verb prints: `file:line: kind: message` (as compilers do;
        `kx` stands in for a missing file, the line is left out when unknown, the column
        follows the line where it is known: `file:line:column:`)."""
        where = f"{self.file}:{self.line}" if self.line else (self.file or "kx")
        if self.line and self.column:
            where += f":{self.column}"
        return f"{where}: {self.kind}: {self.message}"

    def subject_and_reason(self) -> tuple[str, str]:
        """(what the message is of, why): a `config` diagnostic reads 'config LABEL:
        reason' (LABEL as 'BM=128,BN=64,w4,s3'), and a label can be longer than a pane is
        wide, so a list shows the reason first (issue 54): (LABEL, reason). ('', message)
        for a message that names nothing first."""
        if self.kind == "config" and self.message.startswith("config ") and ": " in self.message:
            subject, reason = self.message.removeprefix("config ").split(": ", 1)
            return subject, reason
        return "", self.message

    def short(self) -> str:
        """For a pane that already names the file: `kind: message (line N)`."""
        at = (
            f" (line {self.line}, column {self.column})"
            if self.line and self.column
            else (f" (line {self.line})" if self.line else "")
        )
        return f"{self.kind}: {self.message}{at}"


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
class LaunchSite(Jsonable):
    """Launches of one compiled kernel with one grid from one calling line: `count` of them
    (a decode loop's step launches are one site). `file`/`line`: the innermost frame
    outside torch, Triton and kx (a library's wrapper, or the file itself); `file_line`:
    the line of the compiled file itself on that stack, where it is on it."""

    grid: tuple[int, int, int]
    file: str | None = None
    line: int | None = None
    count: int = 1
    file_line: int | None = None


# the distinct (grid, line) sites a record keeps; further ones are counted, not listed
MAX_LAUNCH_SITES = 64


@dataclass(frozen=True)
class Launch(Jsonable):
    """What a `kernel[grid](...)` call asked for. `count` is how many identical launches
    (same compiled kernel) the file made; the other fields describe the first. `sites`:
    every launch by grid and calling line, in the order first seen (at most
    MAX_LAUNCH_SITES; `count` counts them all)."""

    grid: tuple[int, int, int]
    args: tuple[LaunchArg, ...]
    constexprs: dict[str, Any]
    num_warps: int
    num_stages: int
    count: int = 1
    warmup: bool = False  # compiled by warmup() and not (yet) launched: no grid
    sites: tuple[LaunchSite, ...] = ()

    def with_site(self, site: LaunchSite) -> Launch:
        """This launch record with one more launch at `site` counted among its sites."""
        where = (tuple(site.grid), site.file, site.line, site.file_line)
        sites = list(self.sites)
        for i, s in enumerate(sites):
            if (tuple(s.grid), s.file, s.line, s.file_line) == where:
                sites[i] = replace(s, count=s.count + 1)
                break
        else:
            if len(sites) < MAX_LAUNCH_SITES:
                sites.append(replace(site, grid=tuple(int(g) for g in site.grid), count=1))
        return replace(self, sites=tuple(sites))


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
        """The config's full name, used in file names and JSON, e.g. 'BLOCK_M=64,BLOCK_N=64,w4,s3'."""
        parts = [f"{k}={v}" for k, v in self.kwargs.items()]
        parts += [f"w{self.num_warps}", f"s{self.num_stages}"]
        if self.maxnreg:
            parts.append(f"r{self.maxnreg}")
        return ",".join(parts)

    @property
    def short_label(self) -> str:
        """'128x256x64 w8 s3': what a table column has room for (short_label())."""
        return short_label(self.label)


def short_label(label: str) -> str:
    """A config label as a table shows it: 'BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,w8,s3' ->
    '128x256x64 w8 s3'. The values keep the config's key order, the same for every config
    of a kernel, so two configs never print alike where their labels differ."""
    values, rest = [], []
    for part in label.split(","):
        key, eq, value = part.partition("=")
        (values if eq else rest).append(value if eq else part)
    return " ".join(["x".join(values)] * bool(values) + rest)


def short_name(name: str, label: str | None) -> str:
    """'matmul_kernel[128x256x64 w8 s3]' for a config's full label, else the name."""
    return f"{name}[{short_label(label)}]" if label else name


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
class DataPlaceholder(Jsonable):
    """A read of tensor data that capture answered with a placeholder (it has no data):
    what was read, the placeholder, and where in the user's code."""

    what: str  # ".item()", "torch.allclose", "triton.testing.do_bench", ...
    value: str
    file: str | None = None
    line: int | None = None

    def describe(self) -> str:
        where = f"line {self.line}" if self.line else "an unknown line"
        return f"{self.what} at {where} (placeholder {self.value})"


@dataclass(frozen=True)
class LineMap(Jsonable):
    """The lines of `file` (a name or path) each line of a generated source came from."""

    file: str
    lines: dict[int, tuple[int, ...]]


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
    # Set when the kernel was captured after the file's first data placeholder: its
    # shapes or grid may depend on data capture did not have.
    after_placeholder: DataPlaceholder | None = None
    # Set on the autotune config a capture launched: why this one (a guess: a real run
    # launches the fastest)
    chosen: str | None = None
    # A generated source whose text stands in `source_file` (an Inductor output_code.py
    # keeps each kernel's module in a string): its path -> the line offset of that text,
    # so the stages' locations in it are lines of `source_file` (line + offset).
    source_alias: dict[str, int] = field(default_factory=dict)
    # A generated source the kernel's stages name, made from lines of the user's file (a
    # torch.compile script's Inductor kernel: its graph nodes' stack traces): its path ->
    # those lines. Every stage line located in it links to all of them (kernel-wide).
    source_origins: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # A generated source each of whose lines the kernel's stages name stands for lines of
    # a user's file (Helion's generated Triton, by its `# src[file.py:N]` comments): its
    # path -> that file and the lines.
    source_line_map: dict[str, LineMap] = field(default_factory=dict)
    # A C++ function (kx_core.cpu): the file it is defined in (its DWARF decl_file), and
    # whether that is outside the user's files (torch, c10, pybind11, libstdc++ headers):
    # Compiler Explorer's "library functions" filter hides those
    defined_in: str | None = None
    library_code: bool = False
    # mangled -> demangled, for every C++ symbol its assembly names (the demangle filter)
    demangled: dict[str, str] = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        """'matmul_kernel[BLOCK_M=64,...]' for a config, else the plain name."""
        return f"{self.name}[{self.config.label}]" if self.config else self.name

    @property
    def short_name(self) -> str:
        """'matmul_kernel[128x256x64 w8 s3]': what a table, a picker or a chart label has
        room for (the full name goes in tooltips and headers)."""
        return short_name(self.name, self.config.label if self.config else None)

    def grid_text(self, times: str = "x") -> str:
        """'128x1x1 (x3)' for a kernel launched three times on that grid (`times` is the
        sign before the count); 'warmup' for one only warmed up; '-' for none (or a pruned
        or failed config)."""
        launch = self.launch
        if launch is None or self.status in ("pruned", "failed"):
            grid = "-"
        else:
            grid = "warmup" if launch.warmup else "x".join(map(str, launch.grid))
        return grid + (f" ({times}{launch.count})" if launch and launch.count > 1 else "")


@dataclass(frozen=True)
class KernelParam(Jsonable):
    """One parameter of a @triton.jit kernel as its source declares it. `default` is the
    Python default (as JSON) when `has_default`; `suggested` is an --arg value to start
    from (None where autotune configs or heuristics supply the parameter)."""

    name: str
    constexpr: bool
    annotation: str = ""
    has_default: bool = False
    default: Any = None
    do_not_specialize: bool = False
    provided_by: str = ""  # "autotune" or "heuristics" when those decorators set it
    suggested: str | None = None


@dataclass(frozen=True)
class KernelDefinition(Jsonable):
    """A kernel a file defines, with what the call site must supply: parameters, the
    autotune configs and key, the heuristics' names (outermost decorator first)."""

    name: str
    file: str
    line: int | None
    params: tuple[KernelParam, ...]
    configs: tuple[AutotuneConfig, ...] = ()
    autotune_key: tuple[str, ...] = ()
    heuristics: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ("jit",)

    def command(self, file: str) -> str:
        """A ready-to-edit `kx compile` line for this kernel."""
        args = [f"--arg {p.name}={p.suggested}" for p in self.params if p.suggested is not None]
        return " ".join([f"kx compile {file} --kernel {self.name}", *args])


class RequestError(ValueError):
    """Options of a compile request that do not go together; the message says which."""


# What the worker does with the file (CompileRequest.mode): run it as __main__ (`kernel`
# keeps one kernel's records); import it and list its kernels (`kx kernels`); import it
# and call `kernel` with `args` (a library kernel); compile `kernel` from `signature`
# after running (or importing) it; recompile one record (`replay`) with its passes.
COMPILE_MODES = ("run", "list", "call", "signature", "replay")


@dataclass(frozen=True)
class KernelCall(Jsonable):
    """A call of one kernel with --arg values (tensor spellings, numbers), made after the
    file ran: how the window's Arguments form compiles a kernel nothing launches, in the
    same job as the rest of the file's text, so every later build keeps it."""

    kernel: str
    args: dict[str, str] = field(default_factory=dict)
    grid: str | None = None  # '128', '64x8'; None: (1, 1, 1)


@dataclass(frozen=True)
class CompileRequest(Jsonable):
    """What to compile. target is a spec ('cuda:90', 'hip:gfx942', 'local', ...). The
    fields that choose what the worker does make one of COMPILE_MODES (`mode`); a
    combination that names none (`--arg` without `--kernel`, `--num-warps` on a file
    that is run as it is) is refused by `check`, never silently ignored."""

    file: str
    target: str = "default"
    kernel: str | None = None
    signature: str | None = None
    constexprs: dict[str, str] = field(default_factory=dict)
    num_warps: int | None = None
    num_stages: int | None = None
    maxnreg: int | None = None
    passes: bool = False
    llvm_passes: bool = True  # with passes: LLVM's passes too (most of the dump's cost)
    timeout_s: float = 180.0  # autotuned files with benchmark sweeps take minutes on 2 cores
    jobs: int | None = None
    gpu: str | None = None  # the GPU the capture device stands for ('h200'); None: the target's
    stop_at_data: bool = False  # stop at the first read of data instead of a placeholder
    python: str | None = None  # the interpreter that runs the worker; None: kx's own
    # --arg NAME=VALUE of a library kernel (with `kernel`): its module is imported, not
    # run as __main__, and the kernel compiled as a call with these arguments would be
    args: dict[str, str] = field(default_factory=dict)
    grid: str | None = None  # the grid of that call ('128', '64x8'); None: (1, 1, 1)
    # import the file as a module (its __main__ block does not run) instead of running it:
    # set by `kx kernels` and by --arg
    import_only: bool = False
    # the worker's working directory; None: the caller's, as `python FILE` keeps it (the
    # app passes the file's folder)
    cwd: str | None = None
    # the worker's address-space limit in MiB; None: 3/4 of the machine's memory, 0: none
    memory_limit_mb: int | None = None
    cold: bool = False  # a fresh worker process even when a warm worker answers (warm.py)
    # recompile this one record of the file (its specialization) with its passes
    # captured, instead of running the file (pass capture on demand)
    replay: CompiledKernel | None = None
    # the text to run as the file at `file`'s path, in place of what is on disk: the
    # editor's unsaved edits (the app's live recompile). Its folder, imports and line
    # numbers are the file's; the cache key and the build's content are this text's.
    text: str | None = None
    # after the file ran (mode "run"), each of these kernels that nothing launched is
    # called with its arguments (the window's Arguments form); one the run launched is
    # left to the run
    calls: tuple[KernelCall, ...] = ()

    @property
    def mode(self) -> str:
        """One of COMPILE_MODES (check() refuses combinations that are none of them)."""
        if self.replay is not None:
            return "replay"
        if self.kernel and self.signature:
            return "signature"
        if self.args or (self.import_only and self.kernel):
            return "call"
        return "list" if self.import_only else "run"

    def check(self) -> CompileRequest:
        """The request itself; raises RequestError for options that go with no mode."""
        if (self.args or self.grid) and not self.kernel:
            raise RequestError("--arg and --grid call one kernel: name it with --kernel NAME")
        if self.signature and not self.kernel:
            raise RequestError("--signature compiles one kernel: name it with --kernel NAME")
        if self.signature and (self.args or self.grid):
            raise RequestError("--signature and --arg/--grid are two ways to give a launch: give one")
        launch = [n for n in ("num_warps", "num_stages", "maxnreg") if getattr(self, n) is not None]
        if launch and self.mode not in ("signature", "call"):
            names = ", ".join("--" + n.replace("_", "-") for n in launch)
            raise RequestError(
                f"{names} set a launch kx makes (with --kernel and --signature or --arg): a file run as it "
                "is launches with its own options"
            )
        if self.constexprs and self.mode != "signature":
            raise RequestError("--constexpr goes with --kernel and --signature (with --arg, give NAME=VALUE)")
        if self.calls and self.mode != "run":
            raise RequestError("kernel calls follow a run of the file: a request that runs it")
        return self


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
    defines_kernels: bool = False  # the file's text has @triton.jit kernels
    definitions: tuple[KernelDefinition, ...] = ()  # every kernel the file defines
    # what these results are for (records/build.py); None for a request that read no file
    build: Build | None = None

    def kernel_build(self, kernel: CompiledKernel) -> Build | None:
        """The build of one of this result's kernels (its kernel and config named)."""
        return self.build.of_kernel(kernel) if self.build else None

    @property
    def output_caveat(self) -> str:
        """What the file's printed output is not: a capture runs a GPU file with tensors
        that hold no data and compiles its launches without running them, so what it
        printed about values (a check's "matches torch") is not of a kernel's output.
        Empty for a C++ build (g++ compiled it; nothing of the file ran)."""
        if not backend_of(self.target).runs_file or not self.output.strip():
            return ""
        reads = sum(1 for d in self.diagnostics if d.kind == "placeholder")
        answered = f"; {reads} read(s) of tensor data got placeholders (Problems)" if reads else ""
        return (
            "a capture run: kernels compiled, not run, on tensors without data"
            f"{answered}: values it printed are not results (Bench runs it for real)"
        )

    @property
    def stopped_before_launch(self) -> bool:
        """The file stopped (raised) before launching any kernel: whatever it would have
        launched, kx has none of it (kernels it defines or not: a driver of a library
        stopped by an import error launches nothing either)."""
        launched = any(k.status != "not-launched" for k in self.kernels)
        return not launched and any(d.kind == "runtime" for d in self.diagnostics)

    @property
    def stopped_midway(self) -> bool:
        """The file raised after its first launch and ended there (a `runtime`
        diagnostic), unless the request asked capture to stop at the first read of data
        (--stop-at-data): what it would have launched after that line is not known, as a
        `python FILE` that raises exits 1."""
        return any(
            d.kind == "runtime" and not d.message.startswith(STOPPED_AT_DATA) for d in self.diagnostics
        )

    @property
    def incomplete(self) -> bool:
        """kx knows the file launched kernels it did not capture (`not-captured`), the
        file stopped midway, or it ran to its end and launched none though it defines or
        imports kernels."""
        if any(d.kind == "not-captured" for d in self.diagnostics) or self.stopped_midway:
            return True
        launched = any(k.status != "not-launched" for k in self.kernels)
        return (
            not launched
            and any(d.kind == "no-launch" for d in self.diagnostics)
            and (
                self.defines_kernels
                or any(k.status == "not-launched" for k in self.kernels)
                or any(d.kind == "not-launched" for d in self.diagnostics)
            )
        )

    @staticmethod
    def worst_exit_status(statuses: Iterable[int]) -> int:
        """Of several compiles' exit statuses, the one a command of them all exits with:
        the order `exit_status` decides in (a bad request, a failure, an incomplete capture,
        launches after a placeholder), not the largest number."""
        statuses = set(statuses)
        return next((s for s in (2, 1, 4, 5) if s in statuses), max(statuses, default=0))

    @property
    def launched_after_placeholder(self) -> DataPlaceholder | None:
        """The first read of data kx answered with a placeholder that the file went on
        from to launch more kernels (issue 50, item 5): what a real run launched after it
        (shapes, grids, which kernels) followed the real value, so kx cannot say these
        launches are a real run's."""
        return next(
            (k.after_placeholder for k in self.kernels if k.after_placeholder and k.status != "not-launched"),
            None,
        )

    @property
    def exit_status(self) -> int:
        """0 when every kernel the file launched was captured and compiled and kx
        answered no read of data that launches followed; 2 when the
        request's kernel arguments do not fit (an `argument` diagnostic) or a record held
        a file kx refuses to read (`refused`); 1 when a
        launch failed (a fatal diagnostic: syntax, compile, timeout, crash, environment)
        or the file stopped before its first launch; 4 when the
        capture is incomplete (`incomplete`); 5 when it is complete as far as kx knows but
        kernels were launched after a placeholder (`launched_after_placeholder`): a guess
        may have steered them."""
        if any(d.kind in ("argument", "refused") for d in self.diagnostics):
            return 2
        if any(d.fatal for d in self.diagnostics) or self.stopped_before_launch:
            return 1
        if self.incomplete:
            return 4
        return 5 if self.launched_after_placeholder is not None else 0

    @property
    def ok(self) -> bool:
        return self.exit_status == 0
