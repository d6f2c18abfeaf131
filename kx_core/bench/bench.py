"""`kx bench FILE`: time every launch of a file on the local GPU, and relate the times to
the model (achieved TFLOP/s and GB/s, percent of the measured ceilings); without a GPU,
check the file's own results through Triton's interpreter on CPU tensors instead."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from kx_core.bench.run import BenchResult
from kx_core.compile.types import Diagnostic
from kx_core.jsonable import Jsonable


class NoGPU(RuntimeError):
    """There is no CUDA GPU here: nothing can be timed."""


def has_gpu() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _worker_env() -> dict[str, str]:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


# Example: '  File "/path/kernel.py", line 42, in <module>'
_FRAME_RE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)


# Example: "runtime: AssertionError: Tensor-likes are not close!" (kx_core.bench.interpret)
_KIND_RE = re.compile(r"^(syntax|runtime|compile): (.*)$")


def _stderr_diagnostic(kind: str, stderr: str, path: str) -> Diagnostic:
    """The last line of a worker's stderr as a diagnostic, at the deepest frame in the
    user's file; a 'kind: message' line sets the kind."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    frames = [(f, int(n)) for f, n in _FRAME_RE.findall(stderr) if os.path.abspath(f) == path]
    message = lines[-1] if lines else "the process failed"
    if m := _KIND_RE.match(message):
        kind, message = m.groups()
    return Diagnostic(kind, message, path, frames[-1][1] if frames else None)


def _crash_diagnostic(returncode: int, stderr: str, path: str) -> Diagnostic:
    """The worker died: by which signal, at which line of the user's file (from
    faulthandler's dump of the Python stack)."""
    import signal

    from kx_core.compile.diagnostics import frame_from_fault_dump

    if returncode < 0:
        name = (
            signal.Signals(-returncode).name
            if -returncode in signal.Signals._value2member_map_
            else str(-returncode)
        )
        return Diagnostic("crash", f"the run crashed ({name})", path, frame_from_fault_dump(stderr, path))
    return _stderr_diagnostic("crash", stderr, path)


def bench_file(
    path: str,
    kernel: str | None = None,
    all_configs: bool = False,
    budget_ms: float = 400.0,
    flush_l2: bool = True,
    cuda_graph: bool = False,
    timeout: float = 600.0,
) -> BenchResult:
    """Run the file for real in a worker and time its launches. Raises NoGPU."""
    if not has_gpu():
        raise NoGPU("no CUDA GPU on this machine: nothing to time")
    path = os.path.abspath(path)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        cmd = [sys.executable, "-m", "kx_core.bench.run", path, "--out", out, "--budget-ms", str(budget_ms)]
        if kernel:
            cmd += ["--kernel", kernel]
        if all_configs:
            cmd.append("--all-configs")
        if not flush_l2:
            cmd.append("--no-flush")
        if cuda_graph:
            cmd.append("--cuda-graph")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_worker_env())
        except subprocess.TimeoutExpired:
            return BenchResult(
                path, "", "", (), (Diagnostic("timeout", f"the run took over {timeout:.0f} s", path, None),)
            )
        if not os.path.exists(out):
            return BenchResult(path, "", "", (), (_crash_diagnostic(p.returncode, p.stderr, path),))
        with open(out, encoding="utf-8") as f:
            return BenchResult.from_json(json.load(f))


@dataclass(frozen=True)
class InterpretResult(Jsonable):
    """The file run under TRITON_INTERPRET=1 (kernels executed by Triton's interpreter on
    CPU tensors): whether it finished cleanly (its own checks included)."""

    file: str
    ok: bool
    seconds: float
    diagnostics: tuple[Diagnostic, ...] = ()
    output: str = ""


def interpret_file(path: str, timeout: float = 600.0) -> InterpretResult:
    """Correctness without a GPU: run the file with Triton's interpreter (its
    `get_active_torch_device()` is then the CPU)."""
    path = os.path.abspath(path)
    env = _worker_env()
    env["TRITON_INTERPRET"] = "1"
    start = time.perf_counter()
    try:
        p = subprocess.run(
            [sys.executable, "-m", "kx_core.bench.interpret", path],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=os.path.dirname(path),
        )
    except subprocess.TimeoutExpired:
        return InterpretResult(
            path, False, timeout, (Diagnostic("timeout", f"over {timeout:.0f} s", path, None),)
        )
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        return InterpretResult(
            path, False, seconds, (_stderr_diagnostic("runtime", p.stderr, path),), p.stdout[-4000:]
        )
    return InterpretResult(path, True, seconds, (), p.stdout[-4000:])


def check_file(path: str, timeout: float = 600.0):
    """Run the file's Checks (kx_core.bench.check) in a worker: on the GPU when there is
    one, else through Triton's interpreter on CPU tensors (and labelled so)."""
    from kx_core.bench.check import CheckReport

    path = os.path.abspath(path)
    env = _worker_env()
    if not has_gpu():
        env["TRITON_INTERPRET"] = "1"
    mode = "gpu" if has_gpu() else "interpreter (CPU)"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "check.json")
        cmd = [sys.executable, "-m", "kx_core.bench.check", path, "--out", out]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return CheckReport(path, mode, (), f"timeout: over {timeout:.0f} s")
        if not os.path.exists(out):
            d = _crash_diagnostic(p.returncode, p.stderr, path)
            return CheckReport(path, mode, (), f"{d.kind}: {d.message} (line {d.line})")
        with open(out, encoding="utf-8") as f:
            return CheckReport.from_json(json.load(f))
