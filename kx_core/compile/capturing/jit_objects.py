"""Triton's JIT objects as the capture, direct mode and replay see them: the @jit function
inside any wrapper (autotuner, heuristics), the kernels a file defines, a compile error as
a diagnostic at its line, and the MLIR/LLVM pass dumps Triton prints to fd 2 while it
compiles. Shared by capture.py, direct.py and replay.py (none of them imports another)."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import tempfile
import warnings
from typing import Any

from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.artifacts.kernel_record import jit_name
from kx_core.records.results import Diagnostic


def base_jit(obj: Any) -> Any:
    from triton.runtime.jit import JITFunction

    while not isinstance(obj, JITFunction) and hasattr(obj, "fn"):
        obj = obj.fn
    return obj


class DumpCapture:
    """fd 2 redirected to a file while Triton compiles, when passes are wanted: MLIR and
    LLVM print there from C++, out of Python's reach. The MLIR passes come from kx's pass
    recorder where this Triton's bindings allow it (pass_recorder.py), else from Triton's
    own dump (MLIR_ENABLE_DUMP, set for the compile only); LLVM's passes from its
    print-after-all (LLVM_IR_ENABLE_DUMP, the worker's environment)."""

    def __init__(self, wanted: bool) -> None:
        self.wanted = wanted
        self.path: str | None = None
        self.text = ""
        self.recorder = None  # a PassRecorder, when the passes were recorded

    def passes(self) -> tuple:
        from dataclasses import replace

        from kx_core.ir.passes import PassDumpError, parse_pass_dump

        try:
            dumped = parse_pass_dump(self.text).passes if self.text else ()
        except PassDumpError:
            dumped = ()
        recorder = self.recorder
        if recorder is None:
            return dumped
        # the recorder holds the MLIR passes and their own step dumps; the text adds
        # LLVM's passes, which run after the last MLIR stage
        llvm = tuple(replace(p, pipeline=recorder.pipelines) for p in dumped if p.kind == "llvm")
        return tuple(recorder.passes) + llvm

    def unrecorded(self) -> list[str]:
        """Stages run whole, not pass by pass (a pass added by a route kx did not see)."""
        return list(self.recorder.unrecorded) if self.recorder is not None else []


# Set only while a wanted capture compiles, so a compile outside one (the warm-up, a
# library's own) prints nothing. Fallback for a Triton without the recorder's bindings.
_DUMP_ENV = {"MLIR_ENABLE_DUMP": "1", "MLIR_ENABLE_TIMING": "1"}
_RECORD_ENV = {"MLIR_ENABLE_TIMING": "1"}  # each recorded pass's name, from its report


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _say_unrecorded(stages: list[str]) -> None:
    """A stage that ran whole has no pass-by-pass IR: said, not silently missing."""
    if not stages:
        return
    from kx_core.compile.capturing import capture_state

    state = capture_state.STATE
    message = "passes not recorded one by one (the stage ran as Triton built it): " + "; ".join(stages)
    try:
        state.send_diagnostic(Diagnostic("passes", message, state.user_file))
    except Exception:  # noqa: BLE001 - no capture in progress (a test, a script): print it
        print(f"kx: {message}", file=sys.stderr)


@contextlib.contextmanager
def pass_dumps(wanted: bool, record: bool = True):
    """While compiling: the passes, when `wanted` (record=False: only keep what the
    compile prints on fd 2 off the user's stderr)."""
    capture = DumpCapture(wanted)
    if not wanted:
        yield capture
        return
    from kx_core.compile.capturing import pass_recorder

    sys.stderr.flush()
    fd, capture.path = tempfile.mkstemp(prefix="kx-dump-", suffix=".txt")
    saved = os.dup(2)
    os.dup2(fd, 2)
    installed = None
    use_recorder = record and pass_recorder.supported() and os.environ.get("KX_PASS_CAPTURE") != "dump"
    try:
        if use_recorder:
            capture.recorder = pass_recorder.PassRecorder(fd)
            installed = pass_recorder.install(capture.recorder)
        with _environment(_RECORD_ENV if use_recorder else _DUMP_ENV if record else {}):
            yield capture
    finally:
        if installed is not None:
            pass_recorder.uninstall(installed)
            _say_unrecorded(capture.unrecorded())
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
        with open(capture.path, encoding="utf-8", errors="replace") as f:
            capture.text = f.read()
        os.unlink(capture.path)


def jit_functions() -> list[Any]:
    from triton.runtime.jit import JITFunction

    # isinstance() on every live object touches torch's deprecated lazy attributes,
    # which warn (the warnings say nothing about the user's file), and raises
    # ReferenceError on a dead weakref.proxy (Inductor keeps some: trifast's kernel
    # failing inside torch.compile turned into "weakly-referenced object no longer
    # exists"). The object's own type is read without asking the object.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [o for o in gc.get_objects() if issubclass(type(o), JITFunction)]


def compile_diagnostic(exc: BaseException, kernel: str | None, user_file: str | None) -> Diagnostic:
    """A compile error as a diagnostic: at its line in a @jit function when Triton's front
    end names one, else (ptxas, out of resources) at the deepest frame of `user_file`."""
    d = diag.compile_error_diagnostic(exc, jit_functions(), kernel)
    tool = tool_failure(exc)
    if tool is not None:
        # the assembler's own failure: its stderr, not the user's launch line
        return Diagnostic("compile", _ptxas_message(str(tool)), user_file, None, None, kernel)
    if d.line is None:
        # Not a front-end error (ptxas, out of resources): place it at the launch.
        where = diag.deepest_user_frame(exc.__traceback__, user_file)
        tail = diag._exception_chain(exc)[-1]
        text = str(tail).strip().splitlines()
        message = f"{type(tail).__name__}: {text[-1] if text else ''}"
        return Diagnostic("compile", message, user_file, where[0] if where else None, None, kernel)
    return d


def failed_record(fn: Any, exc: BaseException, config: Any) -> tuple[str, Any]:
    """The record of a kernel whose compile raised `exc` (no compile to show: the
    compiler's message), with the key it is sent under; marked where it follows a
    placeholder the file decided on. A launch's (capture.py) and a direct triton.compile's
    (Inductor's, direct_compiles.py) alike."""
    from dataclasses import replace

    from kx_core.compile.capturing import capture_state
    from kx_core.compile.capturing.device.placeholders import LEDGER

    name = jit_name(fn)
    d = compile_diagnostic(exc, name, capture_state.STATE.user_file)
    record = capture_state.uncompiled_record(fn, "failed", d.message, config)
    return f"failed/{name}/{config.index if config else '-'}", replace(record, after_placeholder=LEDGER.first)


def tool_failure(exc: BaseException) -> BaseException | None:
    """The assembler's failure (Triton's PTXASError) in the exception's chain, if any: a
    failure of the tool, not of a line of the user's."""
    return next((e for e in diag._exception_chain(exc) if type(e).__name__ == "PTXASError"), None)


def _ptxas_message(text: str) -> str:
    """ptxas's own words from Triton's PTXASError: its verdict and its stderr, without
    the repro command (a temporary file's path). Example of the text:
    "Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal : ...\nRepro command: ..."."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("Repro command:")]
    head, *rest = lines or ["ptxas failed"]
    stderr = [ln.strip() for ln in rest if ln.strip() != "`ptxas` stderr:"]
    return f"ptxas failed ({head.strip()})" + (": " + " / ".join(stderr) if stderr else "")


def kernel_objects(namespace: dict, user_file: str) -> dict[str, Any]:
    """Top-level @triton.jit kernels (unwrapped) defined in the user's file."""
    from triton.runtime.jit import JITFunction, KernelInterface

    found = {}
    for value in list(namespace.values()):
        if isinstance(value, (JITFunction, KernelInterface)):
            fn = base_jit(value)
            if isinstance(fn, JITFunction) and diag.same_file(fn.fn.__code__.co_filename, user_file):
                found[jit_name(fn)] = (value, fn)
    return found
