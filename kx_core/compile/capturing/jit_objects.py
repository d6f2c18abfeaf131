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
    LLVM print their pass dumps there from C++, out of Python's reach."""

    def __init__(self, wanted: bool) -> None:
        self.wanted = wanted
        self.path: str | None = None
        self.text = ""

    def passes(self) -> tuple:
        if not self.text:
            return ()
        from kx_core.ir.passes import PassDumpError, parse_pass_dump

        try:
            return parse_pass_dump(self.text).passes
        except PassDumpError:
            return ()


@contextlib.contextmanager
def pass_dumps(wanted: bool):
    capture = DumpCapture(wanted)
    if not wanted:
        yield capture
        return
    sys.stderr.flush()
    fd, capture.path = tempfile.mkstemp(prefix="kx-dump-", suffix=".txt")
    saved = os.dup(2)
    os.dup2(fd, 2)
    try:
        yield capture
    finally:
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
    # which warn; the warnings say nothing about the user's file.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [o for o in gc.get_objects() if isinstance(o, JITFunction)]


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
