"""Which Python runs the worker: kx's own (sys.executable) or the user's (--python, the
app's "Python interpreter" setting), so that files importing the user's own packages run.
kx's engine is put on that interpreter's path (base.paths.worker_env); it needs only the
standard library, torch and triton there.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass

from kx_core.base.paths import worker_env
from kx_core.base.tools import ToolFailed, run_tool

# The oldest versions kx's capture supports (pyproject's own floor).
MIN_PYTHON = (3, 10)
MIN_TRITON = (3, 5)
MIN_TORCH = (2, 5)

_PROBE = (
    "import json, sys\n"
    "out = {'python': list(sys.version_info[:3])}\n"
    "for name in ('torch', 'triton'):\n"
    "    try:\n"
    "        out[name] = __import__(name).__version__\n"
    "    except Exception as e:\n"
    "        out[name + '_error'] = f'{type(e).__name__}: {e}'\n"
    "print(json.dumps(out))\n"
)


@dataclass(frozen=True)
class Interpreter:
    """A Python interpreter as kx found it; `problem` says why it cannot run the worker."""

    path: str
    python: str = ""
    torch: str = ""
    triton: str = ""
    problem: str = ""


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def probe(path: str | None, timeout_s: float = 120.0) -> Interpreter:
    """What `path` (None: kx's own interpreter) has, asked of it in a subprocess once per
    interpreter file version, within `timeout_s` (the request's --timeout)."""
    path = os.path.abspath(os.path.expanduser(path)) if path else sys.executable
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return Interpreter(path, problem=f"no interpreter at {path}")
    return _probe(path, stamp, timeout_s)


@functools.cache
def _probe(path: str, stamp: int, timeout_s: float = 120.0) -> Interpreter:
    try:
        out = run_tool(path, ["-c", _PROBE], timeout_s, env=worker_env(), cwd="/")
        got = json.loads(out.strip().splitlines()[-1])
    except (ToolFailed, ValueError, IndexError) as e:
        timed_out = getattr(e, "timed_out", False)
        why = (
            f"did not answer within {timeout_s:g} s (--timeout)"
            if timed_out
            else "is not a Python interpreter kx can start"
        )
        return Interpreter(path, problem=f"{path} {why}")
    python = ".".join(str(x) for x in got["python"])
    info = Interpreter(path, python, got.get("torch", ""), got.get("triton", ""))
    if tuple(got["python"][:2]) < MIN_PYTHON:
        return _with_problem(info, f"Python {python} is older than kx supports (3.10 or newer)")
    for name, floor in (("torch", MIN_TORCH), ("triton", MIN_TRITON)):
        version = got.get(name)
        if not version:
            return _with_problem(
                info,
                f"it cannot import {name} ({got.get(name + '_error', 'missing')}): {path} -m pip install {name}",
            )
        if _version_tuple(version) < floor:
            need = ".".join(map(str, floor))
            return _with_problem(info, f"its {name} {version} is older than kx supports ({need} or newer)")
    return info


def _with_problem(info: Interpreter, problem: str) -> Interpreter:
    return Interpreter(info.path, info.python, info.torch, info.triton, f"{info.path}: {problem}")
