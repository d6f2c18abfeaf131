"""Run a user's file as `__main__`, as `python FILE` would, turning every way it can end
badly into diagnostics. The capture worker and the bench worker both run files so."""

from __future__ import annotations

import linecache
import os
import sys
import types
from collections.abc import Callable

from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.wire.source_file import SourceDecodeError, decode_source
from kx_core.records.results import Diagnostic


def run_as_main(
    path: str, classify: Callable[[BaseException, str], Diagnostic], text: str | None = None
) -> tuple[dict, list[Diagnostic]]:
    """(the module's namespace, diagnostics). `classify` turns an exception the file
    raised into a diagnostic; a syntax error and a non-zero sys.exit are handled here.
    With `text`, that runs as the file at `path` (unsaved edits): linecache holds it, so
    `inspect.getsource` (Triton's JIT, tracebacks) reads the text, not the disk."""
    if text is not None:
        data = text.encode("utf-8")
        # mtime None: linecache.checkcache keeps the entry (it never stats such a one)
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    else:
        with open(path, "rb") as f:
            data = f.read()
    try:
        # dont_inherit: this module's own `from __future__ import annotations` must not
        # reach the user's file (its annotations would turn into strings: CuTe DSL's
        # @cute.struct reads them as types)
        code = compile(decode_source(data, path), path, "exec", dont_inherit=True)
    except SourceDecodeError as e:
        return {}, [Diagnostic("syntax", str(e), path, e.line)]
    except SyntaxError as e:
        return {}, [diag.syntax_diagnostic(e, path)]
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        exec(code, module.__dict__)
    except SystemExit as e:
        if e.code not in (None, 0):
            return module.__dict__, [
                Diagnostic("runtime", f"the file called sys.exit({e.code!r})", path, None)
            ]
    except BaseException as e:  # noqa: BLE001 - every failure becomes a diagnostic
        return module.__dict__, [classify(e, path)]
    return module.__dict__, []
