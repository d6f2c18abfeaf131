"""Compiling a file, the parent side: spawn the worker, stream its messages, enforce
the timeout, turn a dead worker into a diagnostic, and cache the result.

`iter_compile(request)` is a generator yielding `CompileProgress` while the worker runs,
a `CompilePartial` when kernels have been captured and more may come, and the
`CompileResult` last; the GUI wraps it in a Qt worker and can stop it (closing
the generator kills the worker). `compile_file(request)` runs it to the end.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

from kx_core.base import workers
from kx_core.base.paths import worker_env
from kx_core.compile.artifacts.diagnostics import frame_from_fault_dump, syntax_diagnostic
from kx_core.compile.capturing.device.dynamo_preimport import CAPTURE_INDUCTOR_ENV
from kx_core.compile.capturing.device.fake_smi import write_fake_smi
from kx_core.compile.jobs import cache, memory_floor
from kx_core.compile.jobs.resolve import resolve_request
from kx_core.compile.wire import protocol
from kx_core.compile.wire.protocol import parse_lines
from kx_core.compile.wire.source_file import SourceDecodeError, decode_source, read_kernel_bytes
from kx_core.cpu.targets import CPP_SOURCES
from kx_core.model.resolved_request import ResolvedRequest
from kx_core.records.build import Build, content_hash
from kx_core.records.results import (
    CompiledKernel,
    CompileRequest,
    CompileResult,
    Diagnostic,
    KernelDefinition,
    LaunchSite,
    Target,
)

# How long a job that ran out of time gets to print its stack before it is killed.
_DUMP_GRACE_S = 0.5
# The user's prints kept in CompileResult.output, in characters (the tail is kept).
_OUTPUT_LIMIT = 64_000


@dataclass(frozen=True)
class CompileProgress:
    """What the worker is doing now, and the kernels captured so far."""

    message: str
    kernels_done: int
    elapsed_s: float


@dataclass(frozen=True)
class CompilePartial:
    """The kernels compiled so far while the worker still runs (issue 51: the first
    config's stages are shown before the other configs are compiled). Not a result: its
    diagnostics are those so far, no kernel has derived stages, and the CompileResult that
    ends the compile replaces it."""

    result: CompileResult


# A partial is yielded when the first kernels are compiled, then at most this often while
# more come: each is a new kernel table in the window, so not one per kernel.
_PARTIAL_EVERY_S = 2.0


class _Assembler:
    """Builds a CompileResult from the worker's messages, in arrival order."""

    def __init__(self, resolved: ResolvedRequest) -> None:
        # what the request resolved to, until the worker reports what it compiles for
        self.target = resolved.target
        self.triton_version = resolved.triton
        self.kernels: dict[str, CompiledKernel] = {}
        self.diagnostics: list[Diagnostic] = []
        self.done = False
        self.last_progress = ""
        self.timings: dict[str, float] = {}
        self.definitions: tuple[KernelDefinition, ...] = ()
        self.sources: list[str] = []
        self.env_names: list[str] = []  # the environment variables the run looked up
        self.folders: list[str] = []  # the folders it listed
        self.whole_env = False  # it read the whole environment (dict(os.environ), a loop)
        # the first kernel's first IR stage, sent while it still compiled (a partial shows
        # it until some kernel has compiled; a result never holds it)
        self.early: CompiledKernel | None = None

    def feed(self, message: protocol.Message) -> None:
        match message:
            case protocol.TargetReport():
                self.target = Target.from_json(message.target)
                self.triton_version = message.triton_version or self.triton_version
            case protocol.Progress():
                self.last_progress = message.message
            case protocol.KernelCaptured():
                self.kernels.setdefault(message.key, CompiledKernel.from_json(message.kernel))
            case protocol.StageEarly():
                self.early = self.early or CompiledKernel.from_json(message.kernel)
            case protocol.Launched():  # a compiled kernel the file launched itself
                k = self.kernels.get(message.key)
                if k is not None and k.launch is not None:
                    grid = tuple(message.grid)
                    launch = (
                        replace(k.launch, grid=grid, warmup=False)
                        if k.launch.warmup
                        else replace(k.launch, count=k.launch.count + 1)
                    )
                    if isinstance(message.site, dict):
                        launch = launch.with_site(LaunchSite.from_json(message.site))
                    self.kernels[message.key] = replace(k, launch=launch)
            case protocol.Chosen():  # the autotune config the capture launched, and why
                k = self.kernels.get(message.key)
                if k is not None:
                    self.kernels[message.key] = replace(k, chosen=message.note)
            case protocol.Relaunched():
                k = self.kernels.get(message.key)
                if k is not None and k.launch is not None:
                    launch = k.launch if message.first else replace(k.launch, count=k.launch.count + 1)
                    # (a first launch is counted already; its site is new where the record
                    # was made without one: an autotune config compiled in a child)
                    if isinstance(message.site, dict) and not (message.first and launch.sites):
                        launch = launch.with_site(LaunchSite.from_json(message.site))
                    self.kernels[message.key] = replace(k, launch=launch)
            case protocol.DiagnosticReport():
                self.add(Diagnostic.from_json(message.diagnostic))
            case protocol.Sources():  # modules of the user's the run imported (the cache checks them)
                self.sources = [p for p in [*message.files, *message.read] if isinstance(p, str)]
                self.env_names = [n for n in message.env if isinstance(n, str)]
                self.folders = [p for p in message.folders if isinstance(p, str)]
                self.whole_env = message.whole_env is True
            case protocol.Definitions():
                self.definitions = tuple(KernelDefinition.from_json(d) for d in message.definitions)
            case protocol.Timing():
                self.timings[message.name] = self.timings.get(message.name, 0.0) + message.seconds
            case protocol.Done():
                self.done = True

    def add(self, d: Diagnostic) -> None:
        if d not in self.diagnostics:
            self.diagnostics.append(d)


def _worker_env(
    work: str,
    file: str,
    passes: bool = False,
    llvm_passes: bool = True,
    python: str | None = None,
    use_cache: bool = True,
) -> dict[str, str]:
    env = dict(os.environ)
    if passes:
        # The MLIR passes are recorded in the worker, around each compile (pass_dumps);
        # LLVM's print-after-all is read from stderr (the worker captures fd 2). LLVM's
        # dump is most of the cost (80 MB for a matmul, 6x the MLIR dump's time).
        if llvm_passes:
            env["LLVM_IR_ENABLE_DUMP"] = "1"
    # Triton's own cache, shared by every compile of this file (an edited file recompiles
    # only the kernels that changed), except where the passes are wanted (a hit dumps none)
    # and without the cache (--no-cache, F5): then no cached artifact at all, the job's own.
    env["TRITON_CACHE_DIR"] = os.path.join(work, "triton-cache")
    # every artifact read back from Triton's cache is checked against its checksum first
    env["TRITON_CACHE_MANAGER"] = "kx_core.compile.capturing.checked_cache:CheckedCacheManager"
    if not passes and use_cache:
        try:
            shared = cache.triton_cache_for(file, python)
            shared.mkdir(parents=True, exist_ok=True)
            env["TRITON_CACHE_DIR"] = str(shared)
        except OSError:  # an unusable cache folder (the result cache says so): the job's
            pass
    # Libraries that keep autotuning results on disk would keep the capture's placeholder
    # timings (and skip benchmarking, so compile less, next time): a folder of the job's.
    env["FLAGGEMS_CACHE_DIR"] = os.path.join(work, "flaggems-cache")
    # Inductor (torch.compile, output_code.py modules) compiles in this process, where the
    # capture sees it (its worker pool would compile where it does not), and without its
    # graph caches (a hit would load a graph without generating its kernels). Its cache
    # folder stays the user's: kernel modules are named by their content there, and their
    # paths are in the PTX's debug lines, as on the user's own runs.
    env.update(CAPTURE_INDUCTOR_ENV)
    env["PYTHONUNBUFFERED"] = "1"
    return env


# Example: "@triton.jit", "@jit(do_not_specialize=...)", "kernel = triton.jit(fn)"
_JIT_RE = re.compile(rb"@(?:triton\.)?jit\b|\btriton\.jit\(")


def _defines_kernels(file: str) -> bool:
    try:
        with open(file, "rb") as f:
            return _JIT_RE.search(f.read()) is not None
    except OSError:
        return False


def _finish(
    asm: _Assembler, request: CompileRequest, file: str, started: float, output: str
) -> CompileResult:
    kernels = list(asm.kernels.values())
    if request.kernel:
        kernels = [k for k in kernels if k.name == request.kernel]
    diagnostics = list(asm.diagnostics)
    listing = request.mode == "list"  # `kx kernels`: nothing is launched
    if (
        not listing
        and not any(d.fatal for d in diagnostics)
        and not any(k.status != "not-launched" for k in kernels)
    ):
        listed = [k.name for k in kernels if k.status == "not-launched"]
        what = f"; kernels defined: {', '.join(listed)}" if listed else ""
        if any(d.kind == "not-launched" for d in diagnostics):
            what += "; it imports kernels too (see the not-launched diagnostic)"
        stop = next((d for d in diagnostics if d.kind == "runtime"), None)
        if stop is not None and (listed or _defines_kernels(file)):
            message = f"the file stopped at line {stop.line} before its first launch{what}"
        else:
            message = f"the file launched no kernel{what}"
        diagnostics.append(
            Diagnostic(
                "no-launch",
                message
                + ". List its kernels with `kx kernels FILE`; compile one with --kernel NAME --arg ...",
                file,
            )
        )
    return CompileResult(
        file=file,
        defines_kernels=_defines_kernels(file),
        definitions=asm.definitions,
        target=asm.target,
        triton_version=asm.triton_version,
        kernels=tuple(kernels),
        diagnostics=tuple(diagnostics),
        wall_time_s=time.perf_counter() - started,
        output=output,
        timings=dict(asm.timings),
    )


def iter_compile(
    request: CompileRequest, use_cache: bool = True
) -> Iterator[CompileProgress | CompilePartial | CompileResult]:
    """Compile a file; yields progress (and the kernels compiled so far, CompilePartial,
    as they come), then the result, its `build` named (what it was compiled from and for).
    Raises FileNotFoundError, RequestError and target.TargetError for bad requests (the
    request is resolved once, here at the door: jobs/resolve.py); every failure of the
    file itself is a Diagnostic in the result."""
    if request.text is not None:  # the editor's unsaved text, as the file
        source = request.text.encode("utf-8")
    else:
        source = read_kernel_bytes(os.path.abspath(request.file))  # a regular file, 2 MB at most
    started = time.perf_counter()
    file = os.path.abspath(request.file)
    if file.endswith(CPP_SOURCES):  # a C++ CPU kernel: g++, no worker, no board, no cache
        inner, gpu = _compile_cpp(request, file), ""
    else:
        resolved = resolve_request(request)
        inner, gpu = _iter_compile(resolved, source, started, use_cache), resolved.board_name
    try:
        for item in inner:
            if isinstance(item, CompileResult):
                item = replace(item, build=item.build or _build_of(request, item, source, gpu))
            elif isinstance(item, CompilePartial):  # the build the finished result will be of
                item = CompilePartial(
                    replace(item.result, build=_build_of(request, item.result, source, gpu))
                )
            yield item
    finally:
        inner.close()  # a closed iter_compile (a cancel) kills the worker now


# The request's fields that change the code a compile makes (a Build's options); the
# others change how it runs (its time limit, folder, worker) or what else is captured.
_BUILD_OPTIONS = (
    "kernel", "signature", "constexprs", "num_warps", "num_stages", "maxnreg", "args",
    "grid", "import_only", "stop_at_data",
)  # fmt: skip


def _build_of(request: CompileRequest, result: CompileResult, source: bytes, gpu: str) -> Build:
    """The build a result is for: `source` is the bytes the compile read (a cached
    result keeps its own build, of the same bytes: they are part of its key), `gpu` the
    board the request resolved to ('' for a C++ build)."""
    options = []
    for name in _BUILD_OPTIONS:
        value = getattr(request, name)
        if isinstance(value, dict):
            options += [f"{name}.{k}={v}" for k, v in sorted(value.items())]
        elif value not in (None, False, ""):
            options.append(f"{name}={value}")
    return Build(
        file=result.file,
        content=content_hash(source),
        target=result.target.spec,
        gpu=gpu,
        triton=result.triton_version,
        options=tuple(options),
    )


def _compile_cpp(request: CompileRequest, file: str) -> Iterator[CompileProgress | CompileResult]:
    """A C++ CPU kernel: GCC's assembly, not Triton's stages."""
    from kx_core.cpu.compile import compile_cpp, compile_step
    from kx_core.cpu.targets import is_cpu_spec, tier_of_file

    yield CompileProgress(compile_step(file), 0, 0.0)
    # a CPU target chosen is kept; else the tier the file's name asks for (an
    # rmsnorm_avx512.cpp compiled with AVX2's flags only shows errors), else AVX2
    spec = request.target if is_cpu_spec(request.target) else f"cpu:{tier_of_file(file) or 'avx2'}"
    yield compile_cpp(file, spec, request.timeout_s)


def _iter_compile(
    resolved: ResolvedRequest, source: bytes, started: float, use_cache: bool = True
) -> Iterator[CompileProgress | CompileResult]:
    request = resolved.request  # its file absolute, its --python the interpreter found
    file = request.file
    if resolved.interpreter_problem:
        asm = _Assembler(resolved)
        asm.add(Diagnostic("environment", resolved.interpreter_problem, file))
        yield _finish(asm, request, file, started, "")
        return
    key = cache.cache_key(source, resolved)
    if use_cache and (hit := cache.load(key)) is not None:
        yield replace(hit, from_cache=True, wall_time_s=time.perf_counter() - started)
        return
    try:
        compile(decode_source(source, file), file, "exec")
    except (SyntaxError, SourceDecodeError) as e:
        asm = _Assembler(resolved)
        bad = isinstance(e, SourceDecodeError)
        asm.add(Diagnostic("syntax", str(e), file, e.line) if bad else syntax_diagnostic(e, file))
        result = _finish(asm, request, file, started, "")
        yield _stored(result, key, ([file], [])) if use_cache else result
        return
    result, sources = yield from _run_worker(resolved, started, use_cache)
    yield _stored(result, key, sources) if use_cache else result


def _stored(result: CompileResult, key: str, reads: tuple[list[str], list[str]]) -> CompileResult:
    """Store a result with what its run read (files, environment variable names); a
    cache folder kx cannot use becomes a `tool` warning on it."""
    try:
        cache.store(key, result, *reads)
    except cache.CacheUnusable as e:
        return replace(result, diagnostics=(*result.diagnostics, Diagnostic("tool", str(e))))
    return result


def _run_worker(
    resolved: ResolvedRequest, started: float, use_cache: bool = True
) -> Iterator[CompileProgress | CompilePartial | CompileResult]:
    request, file = resolved.request, resolved.request.file
    asm = _Assembler(resolved)
    work = tempfile.mkdtemp(prefix="kx-job-")
    output_path = os.path.join(work, "output.txt")
    read_fd, write_fd = os.pipe()
    try:
        proc = _start_worker(resolved, work, output_path, write_fd, use_cache)
    finally:
        os.close(write_fd)
    timed_out = False
    try:
        partials = _Partials(request, file, started)
        timed_out = yield from _pump(proc, read_fd, asm, request.timeout_s, started, partials)
        if timed_out:
            workers.stop(proc, dump_first=True, grace_s=_DUMP_GRACE_S)
        proc.wait()
    finally:
        # after the worker's exit, a cancel, or a timeout: nothing it started outlives it
        workers.stop(proc)
        os.close(read_fd)
    output = workers.read_tail(output_path, _OUTPUT_LIMIT)
    shutil.rmtree(work, ignore_errors=True)
    if getattr(proc, "server_lost", False) and not timed_out and not request.cold:
        # the warm server stopped or died under the job: not the file's crash; again, cold
        cold = replace(resolved, request=replace(request, cold=True))
        result, sources = yield from _run_worker(cold, started, use_cache)
        note = Diagnostic(
            "tool", "the warm server went away during the compile; compiled again in a fresh worker"
        )
        return replace(result, diagnostics=(*result.diagnostics, note)), sources
    refused = getattr(proc, "warm_refusal", "")
    if refused:
        asm.add(Diagnostic("tool", f"{refused}; compiled in a fresh worker"))
    d = _ending_diagnostic(request, file, proc.returncode, timed_out, asm.done, output)
    # a worker dead, or a MemoryError in the file (a limit past the imports' peak but short
    # of room for the compile), under a limit too small for kx's own needs: kx's limit
    may_be_the_limit = (
        (d.kind == "crash") if d is not None else any(x.kind == "out-of-memory" for x in asm.diagnostics)
    )
    limit = _memory_limit(request) if may_be_the_limit else 0
    advice = memory_floor.limit_diagnostic(limit, request.python) if limit else None
    if d is not None:
        asm.add(advice or d)
    elif advice is not None:
        asm.add(advice)
    # the variables kx itself sets for the worker (PYTHONPATH, PATH, Triton's cache) are
    # not the user's: the request's key already holds what they follow from
    ours = {k for k, v in getattr(proc, "kx_env", {}).items() if os.environ.get(k) != v}
    env_names = [n for n in asm.env_names if n not in ours]
    # the file on disk is part of the key through its bytes; unsaved text, through the text
    read = [p for p in asm.sources if request.text is None or p != file]
    return _finish(asm, request, file, started, output), (
        [file, *read] if request.text is None else read,
        env_names,
        asm.folders,
        asm.whole_env,
    )


def _start_worker(
    resolved: ResolvedRequest,
    work: str,
    output_path: str,
    write_fd: int,
    use_cache: bool = True,
) -> subprocess.Popen:
    """The job's worker: a child of the warm worker when one answers for the request's
    interpreter (warm.py), else a fresh process; the same environment either way. It is
    given the resolved request (a JSON file), and derives nothing from the raw one."""
    request, file = resolved.request, resolved.request.file
    request_path = os.path.join(work, "request.json")
    with open(request_path, "w", encoding="utf-8") as f:
        json.dump(resolved.to_json(), f)
    python = request.python or sys.executable
    env = _worker_env(work, file, request.passes, request.llvm_passes, request.python, use_cache)
    if resolved.backend.nvidia_smi:  # the capture device answers nvidia-smi too
        smi = write_fake_smi(os.path.join(work, "bin"), resolved.device, python)
        env["PATH"] = os.pathsep.join([smi, env.get("PATH", "")])
    jobs = request.jobs or os.cpu_count() or 1
    limit = _memory_limit(request)
    cwd = request.cwd or os.getcwd()
    if not request.cold:
        from kx_core.compile.jobs import warm

        proc = warm.start_job(
            request.python,
            request_path,
            jobs,
            env=worker_env(env),
            cwd=cwd,
            output=output_path,
            message_fd=write_fd,
            job_dir=work,
            memory_limit_mb=limit,
        )
        if proc is not None:
            proc.kx_env = env
            return proc
        refusal = warm.last_refusal
    else:
        refusal = ""
    args = ["--request", request_path, "--fd", str(write_fd), "--jobs", str(jobs)]
    proc = workers.start(
        "kx_core.compile.jobs.worker",
        args,
        output=output_path,
        python=python,
        env=env,
        cwd=cwd,
        pass_fds=(write_fd,),
        job_dir=work,
        memory_limit_mb=limit,
    )
    proc.warm_refusal = refusal  # why no warm server was used, when one was refused
    proc.kx_env = env  # what kx set for the worker (not the user's environment)
    return proc


class _Partials:
    """When a CompilePartial is due: the first compiled kernels at once, then new ones at
    most every _PARTIAL_EVERY_S."""

    def __init__(self, request: CompileRequest, file: str, started: float) -> None:
        self.request, self.file, self.started = request, file, started
        self.shown = 0  # compiled kernels in the last partial
        self.early_shown = False  # a partial of the first kernel's early stage was yielded
        self.last = 0.0  # when a partial with compiled kernels was yielded (monotonic)

    def _wanted(self, k: CompiledKernel) -> bool:
        return not self.request.kernel or k.name == self.request.kernel

    def due(self, asm: _Assembler) -> CompilePartial | None:
        kernels = [k for k in asm.kernels.values() if k.status == "compiled" and self._wanted(k)]
        now = time.monotonic()
        if not kernels and asm.early is not None and not self.early_shown and self._wanted(asm.early):
            # nothing compiled yet: the first kernel's first stage, while it compiles
            self.early_shown = True
            kernels = [asm.early]
        elif len(kernels) <= self.shown or (self.shown and now - self.last < _PARTIAL_EVERY_S):
            return None
        else:
            self.shown, self.last = len(kernels), now
        return CompilePartial(
            CompileResult(
                file=self.file,
                defines_kernels=True,
                definitions=asm.definitions,
                target=asm.target,
                triton_version=asm.triton_version,
                kernels=tuple(kernels),
                diagnostics=tuple(asm.diagnostics),
                wall_time_s=time.perf_counter() - self.started,
                timings=dict(asm.timings),
            )
        )


def _pump(
    proc: subprocess.Popen,
    read_fd: int,
    asm: _Assembler,
    timeout_s: float,
    started: float,
    partials: _Partials | None = None,
) -> Iterator[CompileProgress | CompilePartial]:
    """Feed the worker's messages to `asm` until the worker exits (its own exit decides,
    not the pipe: a process the file started may hold the pipe open); True on timeout."""
    deadline = time.monotonic() + timeout_s
    pending: list[bytes] = []  # the chunks of a partial line (a pass capture's is megabytes)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        exited = proc.poll() is not None
        ready, _, _ = select.select([read_fd], [], [], 0 if exited else min(remaining, 0.25))
        chunk = os.read(read_fd, 1 << 20) if ready else b""
        if chunk:
            pending.append(chunk)
            if b"\n" in chunk:  # join only when a line is complete: linear, not quadratic
                messages, rest = parse_lines(b"".join(pending))
                pending = [rest] if rest else []
                for m in messages:
                    asm.feed(m)
        elif exited or ready:  # nothing more: the worker is gone (or closed the pipe)
            if exited or proc.poll() is not None or asm.done:
                return False
        partial = partials.due(asm) if partials is not None and not asm.done else None
        if partial is not None:
            yield partial
        # a heartbeat: lets the consumer cancel (close us) while the file is silent
        yield CompileProgress(asm.last_progress, len(asm.kernels), time.perf_counter() - started)


def _memory_limit(request: CompileRequest) -> int:
    """The worker's memory limit in MiB (0: none), as _start_worker sets it."""
    if request.memory_limit_mb is not None:
        return request.memory_limit_mb
    return workers.default_memory_limit_mb()


def _ending_diagnostic(
    request: CompileRequest, file: str, returncode: int, timed_out: bool, done: bool, output: str
) -> Diagnostic | None:
    """The diagnostic for how the worker ended: timeout, out of memory, or a crash."""
    line = frame_from_fault_dump(output, file)
    if timed_out:
        return Diagnostic(
            "timeout",
            f"the file ran past the {request.timeout_s:g} s timeout; the worker was killed"
            + (f" while running line {line}" if line else ""),
            file,
            line,
        )
    if returncode == 0 and done:
        return None
    how = f"signal {signal.Signals(-returncode).name}" if returncode < 0 else f"exit status {returncode}"
    lines = output.strip().splitlines()
    called = [ln[4:] for ln in lines if ln.startswith("kx: the file called os._exit(")]
    # the file's own os._exit (capture._report_exits says so before its stack), else
    # the output's last line (Python's or the library's last words)
    tail = called[-1:] or (lines[-1:] if returncode > 0 else [])
    return Diagnostic(
        "crash",
        f"the worker died ({how})" + (f" at line {line}" if line else "") + (f": {tail[0]}" if tail else ""),
        file,
        line,
    )


def compile_file(request: CompileRequest, use_cache: bool = True) -> CompileResult:
    """Compile a file to the end and return its result."""
    result = None
    for item in iter_compile(request, use_cache=use_cache):
        if isinstance(item, CompileResult):
            result = item
    assert result is not None
    return result
