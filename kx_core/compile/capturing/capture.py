"""Capture mode, the worker side: run the user's file as __main__ and record every kernel.

Triton's driver is replaced by the capture driver (chosen target, no loading, no
launch), torch runs on fake meta tensors, and Triton's launch entry points go through
this module's handlers (kx_core.compile.capturing.launch_hooks), so each launch becomes a
`kernel` message. An autotuned launch compiles every `triton.Config` in forked
children, `jobs` at a time, then the file goes on with the first config that compiled
(the Triton cache the children filled makes that free).

Only the worker imports this module.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from dataclasses import replace
from typing import Any

from kx_core.base.textfile import text_or_empty
from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.artifacts.file_kinds import inside_libraries_file
from kx_core.compile.artifacts.kernel_record import (
    describe_launch,
    jit_name,
    kernel_record,
)
from kx_core.compile.capturing import capture_state, early_stages, import_hooks, languages, launch_hooks
from kx_core.compile.capturing.capture_driver import LAUNCH_LOG, make_capture_driver
from kx_core.compile.capturing.capture_state import (
    CaptureState,
    CompileFailure,
    compile_failure,
    record_key,
    uncompiled_record,
)
from kx_core.compile.capturing.device import dynamo_preimport, fake_torch, gpu_fakes, process_groups
from kx_core.compile.capturing.device.placeholders import LEDGER, NeedsRealData
from kx_core.compile.capturing.import_hooks import after_import
from kx_core.compile.capturing.jit_objects import (
    base_jit,
    compile_diagnostic,
    failed_record,
    kernel_objects,
    pass_dumps,
    tool_failure,
)
from kx_core.compile.capturing.languages import autotune_capture, direct_compiles
from kx_core.compile.capturing.launch_hooks import TritonRuns
from kx_core.compile.capturing.launch_site import launch_site
from kx_core.compile.wire import protocol
from kx_core.model.resolved_request import ResolvedRequest
from kx_core.records.languages import needing_extra
from kx_core.records.results import (
    STOPPED_AT_DATA,
    CompileRequest,
    DataPlaceholder,
    Diagnostic,
    KernelCall,
)


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

    state = capture_state.STATE
    config = state.config
    kernel = _loaded_kernel(exc) if isinstance(exc, OutOfResources) else None
    if kernel is None:
        state.send_kernel(*failed_record(fn, exc, config))
        return
    gpu = state.report.gpu.name if state.report else "GPU"
    message = f"needs {exc.required} of {exc.name}; the {gpu} has {exc.limit}" + (
        ": a real autotuner skips this config" if config else ""
    )
    launch = describe_launch(fn, args, kwargs, None, kernel)
    record = kernel_record(kernel, fn, state.target, launch=launch, config=config, compile_time_s=elapsed)
    status = "pruned" if config else "failed"
    state.send_kernel(
        f"{status}/{record_key(kernel, config)}",
        replace(record, status=status, message=message, after_placeholder=LEDGER.first),
    )


def _kernel_wrote(arguments: tuple) -> None:
    """A launched kernel may write these tensors (the ones its stores can reach: the
    launcher's `_maybe_written`): their known data is stale. A tensor descriptor made on
    the host writes its base tensor."""
    from kx_core.compile.capturing.device import known_values

    for a in arguments:
        a = a if getattr(a, "is_meta", False) else getattr(a, "base", None)
        if getattr(a, "is_meta", False):
            known_values.written(a)


def _direct_launch(kernel_hash: str | None, grid: tuple[int, int, int]) -> None:
    """A compiled kernel launched by the file itself (`kernel[grid](...)` on the object
    `warmup()` returned): the grid goes to that kernel's record."""
    key = capture_state.STATE.key_by_hash.get(kernel_hash or "")
    if key is not None:
        site = launch_site(grid)
        capture_state.STATE.writer.send(protocol.Launched(key, list(grid), site.to_json()))


# ------------------------------------------------- the launch handlers (launch_hooks)


def _on_jit_run(runs: TritonRuns, fn: Any, *args, grid, warmup, **kwargs) -> Any:
    """JITFunction.run under capture: compile through Triton, record the kernel once."""
    state = capture_state.STATE
    name = jit_name(fn)
    state.progress(f"compiling {name}" + (f" [{state.config.label}]" if state.config else ""))
    LAUNCH_LOG.grid = None
    LAUNCH_LOG.in_jit = True
    state.join_prefetch()
    start = time.perf_counter()
    state.compiling = (fn, state.config)
    try:
        with pass_dumps(state.passes) as dumps:
            kernel = runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)
    except NeedsRealData:
        raise
    except Exception as e:
        _send_failed(fn, e, args, kwargs, time.perf_counter() - start)
        raise compile_failure(name, e) from e
    finally:
        LAUNCH_LOG.in_jit = False
        state.compiling = None
    elapsed = time.perf_counter() - start
    if kernel is None:
        return kernel
    key = record_key(kernel, state.config)
    grid_now = None if warmup else LAUNCH_LOG.grid
    if key in state.seen:
        state.launched.add(name)
        site = launch_site(grid_now).to_json() if grid_now else None
        state.writer.send(protocol.Relaunched(key, state.first_launch, site))
        return kernel
    launch = describe_launch(fn, args, kwargs, grid_now, kernel, warmup)
    if grid_now:
        launch = launch.with_site(launch_site(grid_now))
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
    capture_state.STATE.prefetch = threading.Thread(target=triton_key, name="kx-triton-key", daemon=True)
    capture_state.STATE.prefetch.start()


# ----------------------------------------------------------------- errors


def _classify(exc: BaseException, user_file: str) -> Diagnostic:
    if _out_of_memory(exc):
        d = diag.runtime_diagnostic(exc, user_file)
        limit = os.environ.get("KX_MEMORY_LIMIT_MB")
        note = f" (the worker's limit is {limit} MiB: --memory-limit)" if limit else ""
        return replace(d, kind="out-of-memory", message=d.message + note)
    if isinstance(exc, CompileFailure):
        d = compile_diagnostic(exc.__cause__ or exc, exc.kernel, capture_state.STATE.user_file)
        if tool_failure(exc.__cause__ or exc) is not None:
            return d  # the assembler's own message, on no line of the user's
        if d.line is None or not diag.same_file(d.file, user_file):
            where = diag.deepest_user_frame(exc.__traceback__, user_file)
            if d.line is None and where:
                d = Diagnostic(d.kind, d.message, user_file, where[0], None, d.kernel)
        return d
    if isinstance(exc, NeedsRealData):
        return diag.runtime_diagnostic(exc, user_file, STOPPED_AT_DATA)
    if "meta tensor" in str(exc) or "'meta'" in str(exc):
        return diag.runtime_diagnostic(exc, user_file, "capture stopped here: ")
    d = diag.runtime_diagnostic(exc, user_file)
    if isinstance(exc, ModuleNotFoundError) and (lang := needing_extra(exc.name or "")):
        # a kernel language kx supports through an optional extra is not installed: fatal,
        # not a run that launched nothing (kx_core.records.languages says how to install it)
        return replace(d, kind="missing-extra", message=lang.not_installed(str(exc)))
    return d


def _out_of_memory(exc: BaseException) -> bool:
    """A MemoryError, or torch's allocator failing (a RuntimeError saying so)."""
    return isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc).lower()
    )


# ----------------------------------------------------------------- the user's file


def _called_helpers(kernels: dict[str, Any]) -> set[str]:
    """Names of @jit functions that another @jit function of the file calls."""
    helpers: set[str] = set()
    for other, (_, fn) in kernels.items():  # each source read once: a library has hundreds
        called = set(_CALL_RE.findall(diag.jit_source(fn) or ""))
        helpers.update(n for n in called if n != other and n in kernels)
    return helpers


# A name called in a kernel's source. Example: "x = _helper (a, b)" -> "_helper"
_CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


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
            if isinstance(fn, JITFunction) and not own(
                fn.fn.__code__.co_filename, capture_state.STATE.user_file
            ):
                found.setdefault(jit_name(fn), (value, fn))
    for path, module in user_modules_by_file(capture_state.STATE.user_file).items():
        if inside_libraries_file(path):
            # triton's and torch's own modules (a source build or a PYTHONPATH install is
            # outside site-packages): tl.standard's combine functions are no kernel of
            # the file's. (The cache still hashes them: an edit to a source build counts.)
            continue
        for name, pair in kernel_objects(vars(module), path).items():
            found.setdefault(name, pair)
    return found


def _report_not_launched(namespace: dict) -> None:
    state = capture_state.STATE
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
            uncompiled_record(
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
    elif use.what.startswith("Inductor's"):
        # a decision Inductor takes by timing on the GPU (pad_mm_choice.TIMING,
        # inductor_capture.COORDINATE_DESCENT)
        message = (
            f"{use.what} decides which kernels Inductor generates; a capture cannot time it: "
            f"kx took {use.value} and went on; kernels captured after this may differ from a real run"
        )
    elif use.what.startswith(gpu_fakes.HOST_TENSOR_TRACED):
        message = (
            f"{use.what} is traced by torch.compile as a GPU tensor ({use.value}): every tensor "
            "kx captures stands for a GPU one, but PyTorch keeps this one on the CPU, where it "
            "was made with no device; Inductor's kernels that read it may differ from a real run"
        )
    elif use.what.startswith("PyTorch's choice"):
        # a decision PyTorch takes by asking the GPU, which kx could not stand in for
        # (sdpa_choice.WHAT)
        message = (
            f"{use.what}: kx took {use.value} and went on; kernels captured after this may "
            "differ from a real run"
        )
    else:
        message = (
            f"{use.what} reads data a capture does not have: kx answered {use.value} and went on;"
            " kernels captured after this may differ from a real run"
        )
    capture_state.STATE.send_diagnostic(Diagnostic("placeholder", message, use.file, use.line))


def _report_exits(path: str) -> None:
    """os._exit from the user's file ends the worker before any message: dump the stack
    first (faulthandler's format, as a crash's), so the parent names the line."""
    import faulthandler

    real, main_pid = os._exit, os.getpid()

    def _exit(code: int) -> None:
        frame = sys._getframe(1)
        while frame is not None and not diag.same_file(frame.f_code.co_filename, path):
            frame = frame.f_back
        if frame is not None and os.getpid() == main_pid:
            out = capture_state.DUMPS or sys.stderr
            out.write(f"kx: the file called os._exit({code})\n")
            faulthandler.dump_traceback(file=out, all_threads=False)
            out.flush()
        real(code)

    os._exit = _exit


def run_user_file(path: str, text: str | None = None) -> dict:
    """Execute the file (or `text` as that file) as __main__; returns its namespace,
    whatever happened."""
    from kx_core.compile.capturing.main_module import run_as_main

    namespace, diagnostics = run_as_main(path, _classify, text)
    for d in diagnostics:
        capture_state.STATE.send_diagnostic(d)
    return namespace


def _call_unlaunched(namespace: dict, call: KernelCall, path: str) -> None:
    """A kernel the run did not launch, called with the request's arguments (the window's
    Arguments form) in the namespace the run left; one the run launched is the run's."""
    from kx_core.compile.capturing.library import ArgError, call_with_args

    if not namespace or call.kernel in capture_state.STATE.launched:
        return
    try:
        call_with_args(namespace, call.kernel, call.args, call.grid, {})
    except ArgError as e:  # arguments that do not fit the kernel: said, as for --arg
        capture_state.STATE.send_diagnostic(Diagnostic("argument", str(e), path, None, None, call.kernel))
    except BaseException as e:  # noqa: BLE001 - a failed compile becomes a diagnostic
        capture_state.STATE.send_diagnostic(_classify(e, path))


def capture(resolved: ResolvedRequest, writer: Any, jobs: int) -> None:
    """The whole capture of one file; every outcome goes out through `writer`. The
    target and the board the device stands for are the parent's, resolved once."""
    request, target = resolved.request, resolved.target
    path = os.path.abspath(request.file)
    capture_state.STATE = CaptureState(
        writer=writer, target=target, user_file=path, jobs=jobs, passes=request.passes
    )
    if "torch" not in sys.modules or "triton" not in sys.modules:  # a warm worker's child has both
        capture_state.STATE.progress("starting torch and triton")
    started = time.perf_counter()
    import torch  # noqa: F401 - imported here so its start-up is timed on its own
    import triton
    from triton.runtime import driver

    capture_state.STATE.add_time("imports_s", time.perf_counter() - started)
    _prefetch_triton_key()

    writer.send(protocol.TargetReport(target.to_json(), triton.__version__))
    capture_state.STATE.report = resolved.device
    LEDGER.stop_at_data = request.stop_at_data
    LEDGER.on_use = _placeholder_diagnostic
    LAUNCH_LOG.on_direct_launch = _direct_launch
    LAUNCH_LOG.on_arguments = _kernel_wrote
    driver.set_active(make_capture_driver(target, capture_state.STATE.report))
    # a warm server's child with dynamo imported ahead: its modules' hooks wait until
    # what they bound is the capture's (dynamo_preimport), as without the pre-import
    import_hooks.hold(dynamo_preimport.held_modules())
    fake_torch.install(capture_state.STATE.report)
    after_import("torch.distributed", process_groups.install)
    fake_torch.patch_triton_testing()
    launch_hooks.install(_on_jit_run, autotune_capture.on_autotune_run)
    early_stages.install(writer)
    autotune_capture.watch_best_config()
    direct_compiles.install(target, path, capture_state.STATE.send_kernel)
    text = request.text if request.text is not None else text_or_empty(path)
    # each kernel language's capture that the file calls for (the language table's), in
    # every mode: torch.library, TorchScript and Inductor for any file, before it is imported
    languages.install_all(text, target, path)
    started = time.perf_counter()
    from kx_core.compile.capturing.device import reads

    reads.install()  # what the file reads beyond its source: the cache keys on it
    _report_exits(path)
    dynamo_preimport.refresh()
    import_hooks.release()
    mode = request.mode
    if mode == "replay":
        from kx_core.compile.capturing.replay import replay_record

        capture_state.STATE.passes = True
        namespace = import_library(path, replace(request, kernel=None))
        if namespace:
            replay_record(capture_state.STATE, namespace, request.replay)
        writer.send(protocol.Done())
        return
    if mode in ("list", "call") or request.import_only:
        capture_state.STATE.progress(f"importing {os.path.basename(path)}")
        namespace = import_library(path, request)
    else:  # run, or signature on a file that is run first
        capture_state.STATE.progress(f"running {os.path.basename(path)}")
        # what each language's capture must keep while the file runs
        prepared = languages.prepare_all(text, target)
        namespace = run_user_file(path, request.text)
        for call in request.calls:
            _call_unlaunched(namespace, call, path)
        # what the languages compiled, whether or not the run then failed
        languages.finish_all(
            prepared,
            namespace,
            path,
            target,
            capture_state.STATE.send_kernel,
            capture_state.STATE.send_diagnostic,
        )
    capture_state.STATE.add_time("file_s", time.perf_counter() - started)
    if mode == "signature":
        from kx_core.compile.capturing.direct import compile_direct

        compile_direct(capture_state.STATE, namespace, request)
    if namespace:
        from kx_core.compile.capturing.library import definitions

        defs = definitions(namespace, path)
        writer.send(protocol.Definitions([d.to_json() for d in defs]))
        _report_not_launched(namespace)
    got = reads.stop()
    for d in got.uncached:  # a process the file started: what it read is not known
        capture_state.STATE.send_diagnostic(d)
    writer.send(protocol.Sources(user_modules(path), [*got.files], [*got.env], [*got.folders], got.whole_env))
    writer.send(protocol.Done())


def user_modules(path: str) -> list[str]:
    """Files of the modules this run imported that are the user's: not the standard
    library, site-packages or kx's engine (the result cache re-hashes them)."""
    return sorted(user_modules_by_file(path))


def user_modules_by_file(path: str) -> dict[str, Any]:
    """The user's modules this run imported (as `user_modules` chooses them), by the real
    path of their file. One pass over sys.modules: a pass per module, each resolving every
    module's path again, took seconds after a torch import (thousands of modules)."""
    import sysconfig

    from kx_core.compile.artifacts.file_kinds import is_engine_file, real_path

    paths = sysconfig.get_paths()
    skip = (
        tuple(os.path.join(real_path(paths[k]), "") for k in ("stdlib", "platstdlib", "purelib", "platlib"))
        + _generated_module_dirs()
    )
    own = real_path(path)
    found: dict[str, Any] = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if not isinstance(name, str) or not name.endswith(".py") or "site-packages" in name:
            continue
        real = real_path(name)
        if (
            real in found
            or real.startswith(skip)
            or "site-packages" in real
            or real == own
            or is_engine_file(real)
            or not os.path.exists(real)
        ):
            continue
        found[real] = module
    return found


def _generated_module_dirs() -> tuple[str, ...]:
    """Folders of modules torch generates and imports (Inductor's output code, its
    benchmark modules, under its cache folder): not the user's, though outside
    site-packages (flex_attention's template module's `load_checked_block` was reported
    as a kernel the file imports and never launched)."""
    from kx_core.compile.artifacts.file_kinds import real_path

    utils = sys.modules.get("torch._inductor.runtime.cache_dir_utils")
    if utils is None:  # Inductor never loaded: nothing generated
        return ()
    try:
        return (os.path.join(real_path(utils.cache_dir()), ""),)
    except Exception:  # noqa: BLE001 - a cache folder Inductor cannot name: none skipped
        return ()


def import_library(path: str, request: CompileRequest) -> dict:
    """Import the file as a module; with --kernel, call that kernel with the --arg values.
    Returns the module's namespace (empty when the import failed)."""
    from kx_core.compile.capturing.library import ArgError, call_with_args, import_file

    try:
        namespace = vars(import_file(path))
    except BaseException as e:  # noqa: BLE001 - the import's failure becomes a diagnostic
        capture_state.STATE.send_diagnostic(_classify(e, path))
        return {}
    if request.mode == "call":
        try:
            options = {
                "num_warps": request.num_warps,
                "num_stages": request.num_stages,
                "maxnreg": request.maxnreg,
            }
            call_with_args(namespace, request.kernel, request.args, request.grid, options)
        except ArgError as e:  # --kernel/--arg that do not fit: a bad command line (exit 2)
            capture_state.STATE.send_diagnostic(
                Diagnostic("argument", str(e), path, None, None, request.kernel)
            )
        except BaseException as e:  # noqa: BLE001 - a failed compile becomes a diagnostic
            capture_state.STATE.send_diagnostic(_classify(e, path))
    return namespace
