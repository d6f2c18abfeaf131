"""Turning failures into Diagnostics with a file and line in the user's file.

Used on both sides of the worker boundary: the worker maps exceptions (syntax, Triton
CompilationError, runtime) and the parent maps faulthandler dumps of a killed or crashed
worker. Nothing here imports triton or torch at module level.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from kx_core.records.results import Diagnostic

# faulthandler's frame lines. Example:
#   File "/home/u/kernels/loop.py", line 12 in <module>
_FAULT_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)', re.MULTILINE)
_DEF_RE = re.compile(r"^\s*def\s")
# a terminal colour code in a library's message. Example: "\x1b[91m\x1b[1merror:\x1b[0m" (CuTe DSL)
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def same_file(a: str | None, b: str | None) -> bool:
    import os

    if not a or not b:
        return False
    return os.path.realpath(a) == os.path.realpath(b)


def deepest_user_frame(tb: TracebackType | None, user_file: str) -> tuple[int, int | None] | None:
    """(line, column) of the innermost traceback frame that lies in the user's file."""
    found = None
    for frame, lineno in traceback.walk_tb(tb):
        if same_file(frame.f_code.co_filename, user_file):
            found = (lineno, None)
    return found


def _exception_chain(exc: BaseException) -> list[BaseException]:
    chain, seen = [], set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    return chain


def _is_compilation_error(exc: BaseException) -> bool:
    return any(c.__name__ == "CompilationError" for c in type(exc).__mro__)


def def_line(jit_fn: Any) -> int | None:
    """File line of the `def` of a JITFunction (its starting line is the decorator's)."""
    raw = getattr(jit_fn, "raw_src", None)
    start = getattr(jit_fn, "starting_line_number", None)
    if raw is None or start is None:
        return None
    for i, text in enumerate(raw):
        if _DEF_RE.match(text):
            return start + i
    return start


def _def_indent(jit_fn: Any) -> int:
    for text in getattr(jit_fn, "raw_src", []):
        if _DEF_RE.match(text):
            return len(text) - len(text.lstrip())
    return 0


def jit_source(jit_fn: Any) -> str | None:
    return getattr(jit_fn, "_src", None) or getattr(jit_fn, "src", None)


def compile_error_diagnostic(
    exc: BaseException, jit_functions: Iterable[Any], kernel: str | None = None
) -> Diagnostic:
    """A `compile` diagnostic at the innermost offending statement.

    Triton wraps an error in a called @jit helper in a CompilationError at the call
    site; the innermost one with a node is the statement that failed. Its line is
    relative to the function's `def`, so the JITFunction whose source it carries
    gives the file and the offset."""
    errors = [c for c in _exception_chain(exc) if _is_compilation_error(c)]
    located = [e for e in errors if getattr(getattr(e, "node", None), "lineno", None)]
    messages = [getattr(e, "error_message", None) for e in errors]
    message = next((m for m in reversed(messages) if m), None)
    inner = [c for c in _exception_chain(exc) if not _is_compilation_error(c)]
    if message and inner and message == repr(inner[-1]):
        # Triton's code generator passes repr(e): "ValueError('Cannot make_shape_...')"
        message = f"{type(inner[-1]).__name__}: {inner[-1]}"
    if message is None and located:
        # an error without a message (a bare tl.static_assert): say which statement
        innermost = located[-1]
        statement = _source_line(innermost)
        message = f"{type(innermost).__name__}: {statement}" if statement else None
    if message is None:
        tail = _exception_chain(exc)[-1]
        message = (
            f"{type(tail).__name__}: {tail}" if not _is_compilation_error(tail) else _last_line(str(tail))
        )
    fns = list(jit_functions)
    for err in reversed(located):
        fn = next((f for f in fns if jit_source(f) == err.src), None)
        if fn is None:
            continue
        base = def_line(fn)
        if base is None:
            continue
        node = err.node
        line = base + node.lineno - 1
        column = getattr(node, "col_offset", 0) + _def_indent(fn) + 1
        call_sites = []
        for outer in located[: located.index(err)]:
            ofn = next((f for f in fns if jit_source(f) == outer.src), None)
            if ofn is not None and def_line(ofn) is not None:
                call_sites.append(f"{ofn.fn.__name__}:{def_line(ofn) + outer.node.lineno - 1}")
        where = f" (called from {', '.join(call_sites)})" if call_sites else ""
        return Diagnostic(
            "compile",
            f"{message}{where}",
            getattr(fn, "file_name", None) or fn.fn.__code__.co_filename,
            line,
            column,
            kernel,
        )
    return Diagnostic("compile", message, None, None, None, kernel)


def _source_line(err: Any) -> str:
    """The statement a CompilationError points at, from the source it carries."""
    src, line = getattr(err, "src", None), getattr(getattr(err, "node", None), "lineno", None)
    lines = src.splitlines() if isinstance(src, str) else []
    return lines[line - 1].strip() if line and 0 < line <= len(lines) else ""


def _last_line(text: str) -> str:
    """The last line of Triton's 'at L:C:\n<source>\n    ^\n<message>' that says something."""
    lines = [t.strip() for t in text.splitlines() if t.strip() and set(t.strip()) != {"^"}]
    return lines[-1] if lines else text


def syntax_diagnostic(exc: SyntaxError, file: str) -> Diagnostic:
    message = f"SyntaxError: {exc.msg}{newer_python_hint(exc)}"
    return Diagnostic("syntax", message, exc.filename or file, exc.lineno, exc.offset)


# Grammar newer than the Python that ran the file, by the line the parser stopped at:
# (first Python, what, pattern). Examples: "def wrap[OutputType, ContextType](" (PEP 695),
# "class Registry[KeyType, ValueType]:", "type Vector = list[float]", and an f-string
# reusing its own quotes, 'f"{".".join(prefix)}"' (PEP 701)
_NEWER_GRAMMAR = (
    ((3, 12), "type parameters (PEP 695)", re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w+\s*\[")),
    ((3, 12), "a type alias statement (PEP 695)", re.compile(r"^\s*type\s+\w+\s*(?:\[.*\])?\s*=")),
    (
        (3, 12),
        "an f-string that reuses its quotes (PEP 701)",
        re.compile(r"""\bf(["'])[^"'\n]*\{[^}\n]*\1"""),
    ),
)


def newer_python_hint(exc: SyntaxError) -> str:
    """' (the line uses type parameters (PEP 695), Python 3.12 grammar; this is Python
    3.11: run kx with --python PATH of a 3.12 interpreter)' where the line a SyntaxError
    names is grammar of a newer Python than the one running (Fast-LLM is written for 3.12:
    the error alone, "expected '('", says nothing of why); else ''."""
    line = exc.text or ""
    for first, what, pattern in _NEWER_GRAMMAR:
        if sys.version_info[:2] < first and pattern.search(line):
            need = ".".join(map(str, first))
            have = ".".join(map(str, sys.version_info[:2]))
            return (
                f" (the line uses {what}, Python {need} grammar; this is Python {have}: run "
                f"kx with --python PATH of a {need} interpreter)"
            )
    return ""


def runtime_diagnostic(exc: BaseException, user_file: str, prefix: str = "") -> Diagnostic:
    """A `runtime` diagnostic at the innermost user-file frame of the traceback."""
    where = deepest_user_frame(exc.__traceback__, user_file)
    # the message's first line of text: a DSL's rendered message starts with a newline
    # (CuTe DSL's "DSLUserCodeError: \n  what went wrong ...")
    text = _ANSI_RE.sub("", str(exc))
    message = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    if isinstance(exc, SyntaxError):  # a module the file imports
        first += newer_python_hint(exc)
    raised = _raised_in(exc.__traceback__, user_file)
    cause = _root_cause(exc)
    return Diagnostic(
        "runtime", prefix + first[:500] + raised + cause, user_file, where[0] if where else None
    )


def _root_cause(exc: BaseException) -> str:
    """'; caused by AssertionError at torch/_inductor/ir.py:1291: assert x' for an
    exception raised while handling another (a library wrapping an error it caught: Helion's
    InductorLoweringError around Inductor's LoweringException around a bare assert), where
    the outer message alone says nothing of where it went wrong; else ''."""
    import linecache

    root, seen = exc, {id(exc)}
    while (nxt := root.__cause__ or root.__context__) is not None and id(nxt) not in seen:
        seen.add(id(nxt))
        root = nxt
    if root is exc:
        return ""
    tb, last = root.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    message = next((t.strip() for t in _ANSI_RE.sub("", str(root)).splitlines() if t.strip()), "")
    text = f"; caused by {type(root).__name__}" + (f": {message[:200]}" if message else "")
    if last is not None:
        file, line = last.tb_frame.f_code.co_filename, last.tb_lineno
        text += f" at {shorten_path(file)}:{line}"
        if not message and (source := linecache.getline(file, line).strip()):
            text += f": {source[:200]}"  # a bare `assert cond`: the condition is the message
    return text


def _raised_in(tb: Any, user_file: str) -> str:
    """' (raised in lib/mod.py:103)' for an exception raised in another file than the
    user's (a library it calls), outside torch, triton and kx; else ''."""
    from kx_core.compile.artifacts.file_kinds import inside_libraries_file

    last = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not inside_libraries_file(name):
            last = (name, tb.tb_lineno)
        tb = tb.tb_next
    if last is None or same_file(last[0], user_file):
        return ""
    return f" (raised in {shorten_path(last[0])}:{last[1]})"


def shorten_path(path: str) -> str:
    """The last three parts of a path ('vllm/v1/logger.py')."""
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-3:])


def frame_from_fault_dump(dump: str, user_file: str) -> int | None:
    """Line of the innermost frame in the user's file in a faulthandler dump.

    faulthandler prints each thread's stack most recent call first; the main thread's
    block is the one whose frames include the user's file."""
    for m in _FAULT_FRAME_RE.finditer(dump):
        if same_file(m.group("file"), user_file):
            return int(m.group("line"))
    return None
