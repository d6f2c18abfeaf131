"""One lookup for every external program kx runs.

A program is looked for, in order: where its own environment variable points (Triton's
TRITON_PTXAS_PATH and the like), in the folder its package installs it to (the triton
wheel's backends/nvidia/bin, Debian's /usr/lib/llvm-*/bin), next to the running
interpreter (a virtual environment's bin/ or Scripts/ folder, which is not on PATH when
the environment is not activated), then on PATH. A missing program is a `ToolMissing`
whose message names the package that provides it.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import shutil
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Tool:
    """An external program: its executable name, the package that provides it (for the
    message when it is missing), and the variable that may name its path."""

    name: str
    provider: str
    env_var: str | None = None


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("ptxas", "the triton wheel (pip install triton)", "TRITON_PTXAS_PATH"),
        Tool("cuobjdump", "the triton wheel (pip install triton)", "TRITON_CUOBJDUMP_PATH"),
        Tool("nvdisasm", "the triton wheel (pip install triton)", "TRITON_NVDISASM_PATH"),
        Tool("graphviz-pure", "graphviz-pure (pip install graphviz-pure)"),
        Tool("FileCheck", "LLVM's FileCheck (Debian: apt-get install llvm-14-tools)", "KX_FILECHECK"),
        Tool("nvidia-smi", "the NVIDIA driver"),
        Tool("g++", "the GNU C++ compiler (Debian: apt-get install g++)", "CXX"),
    )
}


class ToolMissing(RuntimeError):
    """An external program kx needs is not installed; the message says what provides it."""


class ToolFailed(RuntimeError):
    """An external program could not be started, ran too long, or exited non-zero."""

    timed_out = False  # it ran past its time (set on that failure only)


class ToolStopped(ToolFailed):
    """The tool's output stopped being wanted while it ran (`stopped_by`): it was ended."""


# what says, in this context, that a running tool's output is no longer wanted
_STOP: ContextVar[Callable[[], bool] | None] = ContextVar("kx_tool_stop", default=None)


@contextmanager
def stopped_by(stop: Callable[[], bool] | None) -> Iterator[None]:
    """Tools run inside are ended, raising ToolStopped, once `stop()` is true (checked
    every 50 ms): the window's disassembly of a build it no longer shows gives its cores
    back to the next compile at once, not after nvdisasm's half second."""
    token = _STOP.set(stop)
    try:
        yield
    finally:
        _STOP.reset(token)


def run_tool(
    tool: str,
    args: list[str],
    timeout: float,
    data: bytes | None = None,
    suffix: str = "",
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    check: bool = True,
):
    """Run an external program (nvdisasm, cuobjdump, dot, nvidia-smi, g++, a Python to
    probe) and return its stdout; with `data`, on a temporary file holding it (appended to
    args); with `stdin`, that text on its standard input. The one way kx starts a tool: a
    short, bounded call whose failure is a ToolFailed naming the tool. With check=False
    an exit status other than 0 is not a failure: the CompletedProcess comes back (a
    compiler's errors are its output). (Workers, which run long and are killed and
    watched, start through kx_core.base.workers.)"""
    import subprocess
    import tempfile

    name = os.path.basename(tool)
    path = None
    try:
        if data is not None:
            fd, path = tempfile.mkstemp(suffix=suffix)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        # a session of its own: what it started ends with it at a timeout (subprocess.run
        # killed the tool alone; a `--python` wrapper script's own children lived on)
        proc = subprocess.Popen(
            [tool, *args, *([path] if path else [])],
            stdin=subprocess.PIPE if stdin is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            out, err = _communicate(proc, stdin, timeout, name)
        except BaseException:
            _end(proc)
            raise
        proc = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        failure = ToolFailed(f"{name} took over {timeout:.0f} s")
        failure.timed_out = True
        raise failure from None
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolFailed(f"{name} could not run: {e}") from None
    finally:
        if path:
            os.unlink(path)
    if not check:
        return proc
    if proc.returncode != 0:
        raise ToolFailed(f"{name} failed: {proc.stderr.strip()[-300:]}")
    return proc.stdout


def _communicate(proc, stdin: str | None, timeout: float, name: str) -> tuple[str, str]:
    """proc.communicate, asking `stopped_by`'s stop every 50 ms where one is set."""
    import subprocess

    stop = _STOP.get()
    if stop is None:
        return proc.communicate(stdin, timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return proc.communicate(stdin, timeout=max(0.0, min(0.05, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
        stdin = None  # sent with the first call; a retry reads on without losing output
        if stop():
            raise ToolStopped(f"{name} stopped: its output is no longer wanted")


def _end(proc) -> None:
    """Kill a tool, everything below it and everything in its session's group."""
    import signal

    from kx_core.base.process_tree import end_tree

    end_tree(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


@functools.cache
def triton_nvidia_bin() -> str | None:
    """The triton wheel's backends/nvidia/bin folder, found without importing triton
    (which costs a second), or None."""
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = os.path.join(base, "backends", "nvidia", "bin")
        if os.path.isdir(path):
            return path
    return None


def interpreter_scripts_dirs() -> list[str]:
    """Where the running interpreter's environment installs console scripts: its scripts
    folder, and the folder of sys.executable (the same in a venv; not always elsewhere)."""
    out = []
    for d in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if d and d not in out and os.path.isdir(d):
            out.append(d)
    return out


def _package_dirs(name: str) -> list[str]:
    if name in ("ptxas", "cuobjdump", "nvdisasm"):
        folder = triton_nvidia_bin()
        return [folder] if folder else []
    if name == "FileCheck":
        # Debian's llvm-N-tools puts FileCheck in /usr/lib/llvm-N/bin, off PATH; newest first
        return sorted(glob.glob("/usr/lib/llvm-*/bin"), key=_llvm_version, reverse=True)
    return []


def _llvm_version(folder: str) -> int:
    digits = "".join(c for c in os.path.basename(os.path.dirname(folder)) if c.isdigit())
    return int(digits or 0)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_tool(name: str) -> str | None:
    """Absolute path of the program `name` (a key of TOOLS, or any executable name), or None."""
    tool = TOOLS.get(name, Tool(name, name))
    if tool.env_var and (env := os.environ.get(tool.env_var)):
        found = env if os.path.isabs(env) else shutil.which(env)
        if found and _executable(found):
            return found
    for folder in (*_package_dirs(name), *interpreter_scripts_dirs()):
        path = os.path.join(folder, name)
        if _executable(path):
            return path
    return shutil.which(name)


def require_tool(name: str, purpose: str = "") -> str:
    """Like find_tool, but a missing program raises ToolMissing saying what provides it."""
    path = find_tool(name)
    if path is None:
        tool = TOOLS.get(name, Tool(name, name))
        why = f" ({purpose})" if purpose else ""
        raise ToolMissing(f"{name} is not installed{why}: it comes with {tool.provider}")
    return path


def tool_output(
    name: str, purpose: str, args: list[str], timeout: float, data: bytes | None = None, suffix: str = ""
) -> str:
    """The output of the named tool on `data` (kx's derived stages: nvdisasm, cuobjdump).
    Raises ToolMissing, or ToolFailed (also when it printed nothing)."""
    out = run_tool(require_tool(name, purpose), args, timeout, data=data, suffix=suffix)
    if not out.strip():
        raise ToolFailed(f"{name} printed nothing")
    return out
