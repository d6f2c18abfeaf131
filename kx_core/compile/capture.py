"""Capture mode, the worker side: run the user's file as __main__ and record every kernel.

Triton's driver is replaced by the capture driver (chosen target, no loading, no
launch), torch runs on fake meta tensors, and Triton's launch entry points go through
this module's handlers (kx_core.compile.launch_hooks), so each launch becomes a
`kernel` message. An autotuned launch compiles every `triton.Config` in forked
children, `jobs` at a time, then the file goes on with the first config that compiled
(the Triton cache the children filled makes that free).

Only the worker imports this module.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.compile import diagnostics as diag
from kx_core.compile import direct_compiles, fake_torch, inductor_capture, launch_hooks
from kx_core.compile.capture_device import device_report
from kx_core.compile.capture_driver import LAUNCH_LOG, make_capture_driver
from kx_core.compile.jit_objects import base_jit, compile_diagnostic, kernel_objects, pass_dumps
from kx_core.compile.kernel_record import (
    config_of,
    describe_launch,
    jit_name,
    kernel_record,
    signature_of,
    source_location,
)
from kx_core.compile.launch_hooks import TritonRuns
from kx_core.compile.placeholders import LEDGER, NeedsRealData
from kx_core.compile.protocol import ListWriter
from kx_core.records.results import (
    AutotuneConfig,
    CompiledKernel,
    CompileRequest,
    DataPlaceholder,
    Diagnostic,
    Target,
)


@dataclass
class CaptureState:
    """Mutable state of one capture (one worker process, or one forked child)."""

    writer: Any
    target: Target
    user_file: str
    jobs: int
    config: AutotuneConfig | None = None
    # the launch right after its configs were compiled: its record exists (a child sent
    # it), so this launch is that record's first, not another one
    first_launch: bool = False
    seen: set[str] = field(default_factory=set)
    launched: set[str] = field(default_factory=set)
    autotune_seen: dict[tuple, str] = field(default_factory=dict)
    warmed_up: bool = False
    passes: bool = False  # capture the IR before every pass (MLIR_ENABLE_DUMP)
    prefetch: threading.Thread | None = None
    report: Any = None  # the capture device's DeviceReport
    key_by_hash: dict[str, str] = field(default_factory=dict)  # compiled kernel hash -> record key
    compiled_keys: set[str] = field(default_factory=set)  # records with status 'compiled'

    def join_prefetch(self) -> None:
        """Wait for the background triton_key() rather than computing it twice."""
        if self.prefetch is not None:
            self.prefetch.join()
            self.prefetch = None

    def add_time(self, name: str, seconds: float) -> None:
        """Report a phase's duration (summed by the parent per name)."""
        self.writer.send({"type": "timing", "name": name, "seconds": seconds})

    def send_kernel(self, key: str, record: CompiledKernel) -> None:
        if record.status != "not-launched":
            self.launched.add(record.name)
        if record.status == "compiled":
            self.compiled_keys.add(key)
        if record.metadata is not None and record.metadata.hash:
            self.key_by_hash.setdefault(record.metadata.hash, key)
        if key in self.seen:
            self.writer.send({"type": "relaunch", "key": key})
            return
        self.seen.add(key)
        self.writer.send({"type": "kernel", "key": key, "kernel": record.to_json()})

    def send_diagnostic(self, d: Diagnostic) -> None:
        self.writer.send({"type": "diagnostic", "diagnostic": d.to_json()})

    def progress(self, message: str) -> None:
        self.writer.send({"type": "progress", "message": message})


class CompileFailure(Exception):
    """Marks an exception raised while Triton compiled or loaded a launched kernel."""


STATE: CaptureState | None = None


def _uncompiled_record(
    fn: Any, status: str, message: str, config: AutotuneConfig | None = None
) -> CompiledKernel:
    """The record of a kernel with no compile to show: failed, or not launched."""
    file, line = source_location(fn)
    return CompiledKernel(
        name=jit_name(fn),
        status=status,
        target=STATE.target,
        source_file=file,
        source_line=line,
        config=config,
        signature=signature_of(fn),
        message=message,
    )


def _record_key(kernel: Any, config: AutotuneConfig | None) -> str:
    h = getattr(kernel, "hash", None) or getattr(kernel.metadata, "hash", "?")
    return f"{h}/{config.index if config else '-'}"


def _loaded_kernel(exc: BaseException) -> Any:
    """The CompiledKernel whose loading raised `exc` (OutOfResources comes from its
    _init_handles, after a successful compile), or None."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "_init_handles":
            return tb.tb_frame.f_locals.get("self")
        tb = tb.tb_next
    return None


def _send_failed(fn: Any, exc: BaseException, args: tuple, kwargs: dict, elapsed: float) -> None:
    """The record of a launch that raised: `pruned` (an autotune config the GPU has too
    little of something for: a real autotuner skips it) or `failed`; with its stages when
    it compiled and only loading failed."""
    from triton.runtime.errors import OutOfResources

    state = STATE
    name = jit_name(fn)
    config = state.config
    index = config.index if config else "-"
    kernel = _loaded_kernel(exc) if isinstance(exc, OutOfResources) else None
    if kernel is None:
        d = compile_diagnostic(exc, name, STATE.user_file)
        record = _uncompiled_record(fn, "failed", d.message, config)
        record = replace(record, after_placeholder=LEDGER.first)
        state.send_kernel(f"failed/{name}/{index}", record)
        return
    gpu = state.report.gpu.name if state.report else "GPU"
    message = f"needs {exc.required} of {exc.name}; the {gpu} has {exc.limit}" + (
        ": a real autotuner skips this config" if config else ""
    )
    launch = describe_launch(fn, args, kwargs, None, kernel)
    record = kernel_record(kernel, fn, state.target, launch=launch, config=config, compile_time_s=elapsed)
    status = "pruned" if config else "failed"
    state.send_kernel(
        f"{status}/{_record_key(kernel, config)}",
        replace(record, status=status, message=message, after_placeholder=LEDGER.first),
    )


def _kernel_wrote(arguments: tuple) -> None:
    """A launched kernel may write any tensor it was given: their known data is stale."""
    from kx_core.compile import known_values

    for a in arguments:
        if getattr(a, "is_meta", False):
            known_values.written(a)


def _on_not_captured(message: str, file: str, line: int | None) -> None:
    # only the file's own frames (and its libraries'): dynamo also reports frames of
    # torch and of kx's capture device that run under the frame it gave up on
    if not LEDGER.inside_libraries_file(file):
        STATE.send_diagnostic(Diagnostic("not-captured", message, file, line))


def _on_inductor_choice(autotuner: Any, config: Any) -> None:
    message = direct_compiles.chosen_message(autotuner, config)
    if message is not None:
        STATE.writer.send(message)


def _direct_launch(kernel_hash: str | None, grid: tuple[int, int, int]) -> None:
    """A compiled kernel launched by the file itself (`kernel[grid](...)` on the object
    `warmup()` returned): the grid goes to that kernel's record."""
    key = STATE.key_by_hash.get(kernel_hash or "")
    if key is not None:
        STATE.writer.send({"type": "launch", "key": key, "grid": list(grid)})


# ------------------------------------------------- the launch handlers (launch_hooks)


def _on_jit_run(runs: TritonRuns, fn: Any, *args, grid, warmup, **kwargs) -> Any:
    """JITFunction.run under capture: compile through Triton, record the kernel once."""
    state = STATE
    name = jit_name(fn)
    state.progress(f"compiling {name}" + (f" [{state.config.label}]" if state.config else ""))
    LAUNCH_LOG.grid = None
    LAUNCH_LOG.in_jit = True
    state.join_prefetch()
    start = time.perf_counter()
    try:
        with pass_dumps(state.passes) as dumps:
            kernel = runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)
    except NeedsRealData:
        raise
    except Exception as e:
        _send_failed(fn, e, args, kwargs, time.perf_counter() - start)
        raise CompileFailure(name) from e
    finally:
        LAUNCH_LOG.in_jit = False
    elapsed = time.perf_counter() - start
    if kernel is None:
        return kernel
    key = _record_key(kernel, state.config)
    if key in state.seen:
        state.launched.add(name)
        state.writer.send({"type": "relaunch", "key": key, "first": state.first_launch})
        return kernel
    launch = describe_launch(fn, args, kwargs, None if warmup else LAUNCH_LOG.grid, kernel, warmup)
    record = kernel_record(
        kernel,
        fn,
        state.target,
        launch=launch,
        config=state.config,
        compile_time_s=elapsed,
        passes=dumps.passes(),
    )
    state.send_kernel(key, replace(record, after_placeholder=LEDGER.first))
    return kernel


def _on_autotune_run(runs: TritonRuns, tuner: Any, *args, **kwargs) -> Any:
    """Autotuner.run under capture: compile the configs a real run would try (once per
    autotune key), then launch the first that compiled."""
    state = STATE
    configs = list(tuner.configs)
    if state.config is not None or len(configs) <= 1:
        if state.config is None and len(configs) == 1:
            state.config = config_of(configs[0], 0)
            try:
                return runs.autotune(tuner, *args, **kwargs)
            finally:
                state.config = None
        return runs.autotune(tuner, *args, **kwargs)
    tune_key = _autotune_key(tuner, args, kwargs)
    first = tune_key not in state.autotune_seen
    if first:
        tried = _configs_a_real_run_tries(tuner, args, kwargs)
        state.autotune_seen[tune_key] = _compile_configs(tuner, runs.autotune, args, kwargs, tried)
    chosen = state.autotune_seen[tune_key]
    if chosen is None:
        raise CompileFailure(f"no config of {jit_name(base_jit(tuner))} compiled")
    # Later launches with the same autotune key run the chosen config, as Triton's
    # cache does, even where the specialization changed (a constexpr outside the key):
    # that compile is recorded like any other.
    index, key = chosen
    if first:
        state.writer.send({"type": "chosen", "key": key, "note": AUTOTUNE_CHOICE})
    state.config, state.first_launch = config_of(configs[index], index), first
    try:
        return _run_autotuner_choosing(runs, tuner, configs[index], args, kwargs)
    finally:
        state.config, state.first_launch = None, False


# What the record of the config a capture launches says of it.
AUTOTUNE_CHOICE = (
    "kx launched this config: the first that compiled (a real run times every config and keeps "
    "the fastest, which a capture cannot time)"
)


def _run_autotuner_choosing(runs: TritonRuns, tuner: Any, chosen: Any, args: tuple, kwargs: dict) -> Any:
    """Triton's own Autotuner.run, with its benchmark answering that `chosen` is the
    fastest: the autotuner's cache, best_config and timings end as a real run leaves
    them (with kx's choice), and the launch goes through Triton's code."""

    def bench(*bench_args: Any, config: Any, **meta: Any) -> list[float]:
        return [1.0, 1.0, 1.0] if config is chosen else [2.0, 2.0, 2.0]

    had_results = getattr(tuner, "cache_results", False)
    tuner._bench = bench  # the instance's own attribute hides the method for this call
    tuner.cache_results = False  # kx's timings never reach Triton's on-disk autotune cache
    tuner._kx_choice = chosen
    try:
        return runs.autotune(tuner, *args, **kwargs)
    finally:
        del tuner._bench
        tuner.cache_results = had_results


def watch_best_config() -> None:
    """`kernel.best_config` read by the file (or a library it calls) after an autotuned
    launch is kx's guess, not the fastest config a real run would have kept: the read is
    recorded like a data placeholder, so every kernel captured after it says so."""
    from triton.runtime.autotuner import Autotuner

    def get(tuner: Any) -> Any:
        value = tuner.__dict__.get("_kx_best_config")
        choice = tuner.__dict__.get("_kx_choice")
        if value is not None and value is choice and not LEDGER.inside_libraries(sys._getframe(1)):
            index = next((i for i, c in enumerate(tuner.configs) if c is value), 0)
            LEDGER.use(f"{jit_name(base_jit(tuner))}.best_config", config_of(value, index).label)
        return value

    def set_(tuner: Any, value: Any) -> None:
        tuner.__dict__["_kx_best_config"] = value

    Autotuner.best_config = property(get, set_)


def _autotune_key(tuner: Any, args: tuple, kwargs: dict) -> tuple:
    """What Triton's autotuner caches on: the `key` arguments and every tensor dtype."""
    names = list(getattr(tuner, "arg_names", []))
    all_args = dict(zip(names, args)) | kwargs
    key = [repr(all_args.get(k)) for k in getattr(tuner, "keys", [])]
    key += [str(v.dtype) for v in all_args.values() if hasattr(v, "dtype")]
    return (id(tuner), tuple(key))


def _configs_a_real_run_tries(tuner: Any, args: tuple, kwargs: dict) -> list[int]:
    """Indices of the configs Triton's autotuner would benchmark for this launch: its
    prune_configs_by (early_config_prune, perf_model top-k) applied as Autotuner.run
    applies it. The others are listed as pruned, not compiled, as a real run skips them."""
    configs = list(tuner.configs)
    if not (getattr(tuner, "early_config_prune", None) or getattr(tuner, "perf_model", None)):
        return list(range(len(configs)))
    tuner.nargs = dict(zip(tuner.arg_names, args))
    try:
        kept = tuner.prune_configs(kwargs)
    except Exception:  # noqa: BLE001 - a pruning function that fails: try them all
        return list(range(len(configs)))
    tried = [i for i, c in enumerate(configs) if any(c is k for k in kept)]
    fn = base_jit(tuner)
    for i, cfg in enumerate(configs):
        if i not in tried:
            config = config_of(cfg, i)
            record = _uncompiled_record(
                fn,
                "pruned",
                "the kernel's prune_configs_by leaves it out for this launch: a real run does not compile it",
                config,
            )
            STATE.send_kernel(f"skipped/{record.name}/{i}", record)
    return tried or list(range(len(configs)))


def _compile_configs(
    tuner: Any, original_run: Any, args: tuple, kwargs: dict, tried: list[int]
) -> tuple[int, str] | None:
    """Compile the configs `tried` of an autotuned launch; returns (index, record key)
    of the first config that compiled, or None. Uses forked children where fork exists."""
    state = STATE
    configs = list(tuner.configs)
    name = jit_name(base_jit(tuner))
    state.progress(f"autotune: compiling {len(tried)} configs of {name}, {state.jobs} at a time")
    outcomes: dict[int, list[dict]] = {}
    started = time.perf_counter()
    if hasattr(os, "fork") and state.jobs > 1:
        _warm_up_once()
        outcomes = _fork_configs(tuner, original_run, args, kwargs, [(i, configs[i]) for i in tried])
    else:
        for i in tried:
            outcomes[i] = _compile_one_config(tuner, original_run, args, kwargs, configs[i], i)
    chosen = None
    for i in sorted(outcomes):
        for message in outcomes[i]:
            # a config compiled before (an earlier launch with another autotune key) comes
            # back as a relaunch of its record
            ok = (message["type"] == "kernel" and message["kernel"]["status"] == "compiled") or (
                message["type"] == "relaunch" and message["key"] in state.compiled_keys
            )
            if ok and chosen is None:
                chosen = (i, message["key"])
    for i in sorted(outcomes):
        for message in outcomes[i]:
            if message["type"] == "kernel":
                state.seen.add(message["key"])
                state.launched.add(message["kernel"]["name"])
                if message["kernel"]["status"] == "compiled":
                    state.compiled_keys.add(message["key"])
                meta = message["kernel"].get("metadata") or {}
                if meta.get("hash"):
                    state.key_by_hash.setdefault(meta["hash"], message["key"])
            elif message["type"] == "diagnostic" and chosen is not None:
                # another config compiled: a real autotuner skips this one, the launch stands
                d = message["diagnostic"]
                if d["kind"] == "compile":
                    message = {"type": "diagnostic", "diagnostic": {**d, "kind": "config"}}
            state.writer.send(message)
    state.add_time("autotune_s", time.perf_counter() - started)
    return chosen


def _prefetch_triton_key() -> None:
    """Start hashing Triton's own files in a background thread.

    Triton's cache key of every compile includes `triton_key()`, a hash of its sources
    and libtriton.so that takes about 0.45 s the first time in a process. hashlib and
    file reads release the GIL, so on a second core this overlaps with running the
    user's file instead of delaying its first compile (and every forked config child
    inherits the memoised value)."""
    try:
        from triton.runtime.cache import triton_key
    except ImportError:
        return
    STATE.prefetch = threading.Thread(target=triton_key, name="kx-triton-key", daemon=True)
    STATE.prefetch.start()


def _warm_up_once() -> None:
    state = STATE
    if state.warmed_up:
        return
    state.warmed_up = True
    from triton.backends.compiler import GPUTarget

    from kx_core.compile.warmup import warm_up

    t = state.target
    started = time.perf_counter()
    state.join_prefetch()
    try:
        with pass_dumps(state.passes):  # the warm-up's own dumps are not the user's
            warm_up(GPUTarget(t.backend, t.arch, t.warp_size))
    except Exception:  # noqa: BLE001 - a failed warm-up only costs the children time
        pass
    state.add_time("warmup_s", time.perf_counter() - started)


def _compile_one_config(tuner, original_run, args, kwargs, cfg, index) -> list[dict]:
    """Run the autotuned launch with only `cfg`, collecting the messages it produces."""
    state = STATE
    writer, saved_writer = ListWriter(), state.writer
    saved_configs = tuner.configs
    state.writer, state.config = writer, config_of(cfg, index)
    tuner.configs = [cfg]
    try:
        original_run(tuner, *args, **kwargs)
    except CompileFailure as e:
        _config_diagnostic(e.__cause__ or e, tuner, state.config)
    except NeedsRealData:
        pass
    except Exception as e:  # noqa: BLE001 - any failure of one config is that config's result
        _config_diagnostic(e, tuner, state.config)
    finally:
        tuner.configs = saved_configs
        state.writer, state.config = saved_writer, None
    return writer.messages


def _config_diagnostic(exc: BaseException, tuner: Any, config: AutotuneConfig) -> None:
    """A config that did not compile, named with its reason and line. One the GPU has
    too little of something for is a `pruned` record already, without a diagnostic."""
    from triton.runtime.errors import OutOfResources

    if isinstance(exc, OutOfResources):
        return
    name = jit_name(base_jit(tuner))
    d = compile_diagnostic(exc, name, STATE.user_file)
    STATE.send_diagnostic(
        replace(d, message=f"config {config.label}: {d.message}", kernel=f"{name}[{config.label}]")
    )


def _fork_configs(tuner, original_run, args, kwargs, indexed) -> dict[int, list[dict]]:
    state = STATE
    configs = list(tuner.configs)
    pending = list(indexed)
    running: dict[int, tuple[int, str]] = {}
    outcomes: dict[int, list[dict]] = {}
    sys.stdout.flush()
    sys.stderr.flush()
    while pending or running:
        while pending and len(running) < state.jobs:
            index, cfg = pending.pop(0)
            fd, path = tempfile.mkstemp(prefix="kx-config-", suffix=".jsonl")
            os.close(fd)
            pid = os.fork()
            if pid == 0:  # child: compile this config, write its messages, leave at once
                code = 0
                try:
                    messages = _compile_one_config(tuner, original_run, args, kwargs, cfg, index)
                    with open(path, "w", encoding="utf-8") as f:
                        for m in messages:
                            f.write(json.dumps(m) + "\n")
                except BaseException:  # noqa: BLE001 - the parent reports a bad exit
                    code = 1
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            running[pid] = (index, path)
        pid, status = os.wait()
        if pid not in running:
            continue
        index, path = running.pop(pid)
        outcomes[index] = _read_child(path, status, tuner, configs[index], index)
    return outcomes


def _read_child(path: str, status: int, tuner, cfg, index) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            messages = [json.loads(line) for line in f if line.strip()]
    finally:
        os.unlink(path)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return messages
    how = (
        f"killed by signal {os.WTERMSIG(status)}"
        if os.WIFSIGNALED(status)
        else f"exit status {os.WEXITSTATUS(status)}"
    )
    config = config_of(cfg, index)
    record = _uncompiled_record(
        base_jit(tuner), "failed", f"compiling config {config.label} crashed ({how})", config
    )
    file, line = record.source_file, record.source_line
    return messages + [
        {"type": "kernel", "key": f"failed/{record.name}/{index}", "kernel": record.to_json()},
        {
            "type": "diagnostic",
            "diagnostic": Diagnostic("crash", record.message, file, line, None, record.name).to_json(),
        },
    ]


# ----------------------------------------------------------------- errors


def _classify(exc: BaseException, user_file: str) -> Diagnostic:
    if _out_of_memory(exc):
        d = diag.runtime_diagnostic(exc, user_file)
        limit = os.environ.get("KX_MEMORY_LIMIT_MB")
        note = f" (the worker's limit is {limit} MiB: --memory-limit)" if limit else ""
        return replace(d, kind="out-of-memory", message=d.message + note)
    if isinstance(exc, CompileFailure):
        d = compile_diagnostic(exc.__cause__ or exc, str(exc), STATE.user_file)
        if d.line is None or not diag.same_file(d.file, user_file):
            where = diag.deepest_user_frame(exc.__traceback__, user_file)
            if d.line is None and where:
                d = Diagnostic(d.kind, d.message, user_file, where[0], None, d.kernel)
        return d
    if isinstance(exc, NeedsRealData) or "meta tensor" in str(exc) or "'meta'" in str(exc):
        return diag.runtime_diagnostic(exc, user_file, "capture stopped here: ")
    return diag.runtime_diagnostic(exc, user_file)


def _out_of_memory(exc: BaseException) -> bool:
    """A MemoryError, or torch's allocator failing (a RuntimeError saying so)."""
    return isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc).lower()
    )


# ----------------------------------------------------------------- the user's file


def _called_helpers(kernels: dict[str, Any]) -> set[str]:
    """Names of @jit functions that another @jit function of the file calls."""
    helpers = set()
    for name in kernels:
        call = re.compile(rf"\b{re.escape(name)}\s*\(")
        for other, (_, fn) in kernels.items():
            if other != name and call.search(diag.jit_source(fn) or ""):
                helpers.add(name)
    return helpers


def _imported_kernels(namespace: dict) -> dict[str, tuple[Any, Any]]:
    """Kernels the file imports: @jit objects its namespace holds that another file
    defines, and the top-level kernels of the user's own modules the run imported (not
    the standard library's or site-packages')."""
    from triton.runtime.jit import JITFunction, KernelInterface

    found: dict[str, tuple[Any, Any]] = {}
    own = diag.same_file
    for value in list(namespace.values()):
        if isinstance(value, (JITFunction, KernelInterface)):
            fn = base_jit(value)
            if isinstance(fn, JITFunction) and not own(fn.fn.__code__.co_filename, STATE.user_file):
                found.setdefault(jit_name(fn), (value, fn))
    for path in user_modules(STATE.user_file):
        module = next(
            (
                m
                for m in list(sys.modules.values())
                if diag.same_file(getattr(m, "__file__", None) or "", path)
            ),
            None,
        )
        if module is not None:
            for name, pair in kernel_objects(vars(module), path).items():
                found.setdefault(name, pair)
    return found


def _report_not_launched(namespace: dict) -> None:
    state = STATE
    kernels = kernel_objects(namespace, state.user_file)
    imported = {n: k for n, k in _imported_kernels(namespace).items() if n not in kernels}
    helpers = _called_helpers(kernels | imported)
    never = sorted(n for n in imported if n not in state.launched and n not in helpers)
    if never:
        shown = ", ".join(never[:10]) + (f" and {len(never) - 10} more" if len(never) > 10 else "")
        state.send_diagnostic(
            Diagnostic(
                "not-launched",
                f"{len(never)} kernel(s) the file imports were never launched while it ran: {shown}",
                state.user_file,
            )
        )
    for name, (_, fn) in kernels.items():
        if name in state.launched or name in helpers:
            continue
        state.send_kernel(
            f"not-launched/{name}",
            _uncompiled_record(
                fn,
                "not-launched",
                "nothing in the file launches this kernel; compile it as a call would: "
                "--kernel NAME --arg NAME=VALUE ... (`kx kernels FILE` lists its parameters)",
            ),
        )


def _placeholder_diagnostic(use: DataPlaceholder) -> None:
    if use.what.endswith(".best_config"):
        message = (
            f"{use.what} is the autotuner's choice, which a capture cannot time: kx answered "
            f"[{use.value}] (the first config that compiled) and went on; kernels captured after "
            "this may differ from a real run"
        )
    else:
        message = (
            f"{use.what} reads data a capture does not have: kx answered {use.value} and went on;"
            " kernels captured after this may differ from a real run"
        )
    STATE.send_diagnostic(Diagnostic("placeholder", message, use.file, use.line))


def run_user_file(path: str) -> dict:
    """Execute the file as __main__; returns its namespace, whatever happened."""
    from kx_core.compile.main_module import run_as_main

    namespace, diagnostics = run_as_main(path, _classify)
    for d in diagnostics:
        STATE.send_diagnostic(d)
    return namespace


def capture(request: CompileRequest, target: Target, writer: Any, jobs: int) -> None:
    """The whole capture of one file; every outcome goes out through `writer`."""
    global STATE
    path = os.path.abspath(request.file)
    STATE = CaptureState(writer=writer, target=target, user_file=path, jobs=jobs, passes=request.passes)
    STATE.progress("starting torch and triton")
    started = time.perf_counter()
    import torch  # noqa: F401 - imported here so its start-up is timed on its own
    import triton
    from triton.runtime import driver

    STATE.add_time("imports_s", time.perf_counter() - started)
    _prefetch_triton_key()

    writer.send({"type": "target", "target": target.to_json(), "triton_version": triton.__version__})
    STATE.report = device_report(target, request.gpu)
    LEDGER.stop_at_data = request.stop_at_data
    LEDGER.on_use = _placeholder_diagnostic
    LAUNCH_LOG.on_direct_launch = _direct_launch
    LAUNCH_LOG.on_arguments = _kernel_wrote
    driver.set_active(make_capture_driver(target, STATE.report))
    fake_torch.install(STATE.report)
    fake_torch.patch_triton_testing()
    launch_hooks.install(_on_jit_run, _on_autotune_run)
    watch_best_config()
    direct_compiles.install(target, path, STATE.send_kernel)
    inductor_capture.install(_on_inductor_choice)
    inductor_capture.install_torch_compile(_on_not_captured)
    started = time.perf_counter()
    if request.replay is not None:
        from kx_core.compile.replay import replay_record

        STATE.passes = True
        namespace = import_library(path, replace(request, kernel=None))
        if namespace:
            replay_record(STATE, namespace, request.replay)
        writer.send({"type": "done"})
        return
    if request.import_only or request.args:
        STATE.progress(f"importing {os.path.basename(path)}")
        namespace = import_library(path, request)
    else:
        STATE.progress(f"running {os.path.basename(path)}")
        namespace = run_user_file(path)
    STATE.add_time("file_s", time.perf_counter() - started)
    if request.kernel and request.signature:
        from kx_core.compile.direct import compile_direct

        compile_direct(STATE, namespace, request)
    if namespace:
        from kx_core.compile.library import definitions

        defs = definitions(namespace, path)
        writer.send({"type": "definitions", "definitions": [d.to_json() for d in defs]})
        _report_not_launched(namespace)
    writer.send({"type": "sources", "files": user_modules(path)})
    writer.send({"type": "done"})


def user_modules(path: str) -> list[str]:
    """Files of the modules this run imported that are the user's: not the standard
    library, site-packages or kx's engine (the result cache re-hashes them)."""
    import sysconfig

    from kx_core.compile.placeholders import is_engine_file, real_path

    paths = sysconfig.get_paths()
    skip = tuple(
        os.path.join(real_path(paths[k]), "") for k in ("stdlib", "platstdlib", "purelib", "platlib")
    )
    found = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if not isinstance(name, str) or not name.endswith(".py") or "site-packages" in name:
            continue
        real = real_path(name)
        if (
            not os.path.exists(real)
            or real.startswith(skip)
            or "site-packages" in real
            or is_engine_file(real)
            or real == real_path(path)
        ):
            continue
        found.add(real)
    return sorted(found)


def import_library(path: str, request: CompileRequest) -> dict:
    """Import the file as a module; with --kernel, call that kernel with the --arg values.
    Returns the module's namespace (empty when the import failed)."""
    from kx_core.compile.library import ArgError, call_with_args, import_file

    try:
        namespace = vars(import_file(path))
    except BaseException as e:  # noqa: BLE001 - the import's failure becomes a diagnostic
        STATE.send_diagnostic(_classify(e, path))
        return {}
    if request.kernel and not request.signature:
        try:
            options = {
                "num_warps": request.num_warps,
                "num_stages": request.num_stages,
                "maxnreg": request.maxnreg,
            }
            call_with_args(namespace, request.kernel, request.args, request.grid, options)
        except ArgError as e:
            STATE.send_diagnostic(Diagnostic("compile", str(e), path, None, None, request.kernel))
        except BaseException as e:  # noqa: BLE001 - a failed compile becomes a diagnostic
            STATE.send_diagnostic(_classify(e, path))
    return namespace
