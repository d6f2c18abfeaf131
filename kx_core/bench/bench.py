"""`kx bench FILE`: time every launch of a file on the local GPU, and relate the times to
the model (achieved TFLOP/s and GB/s, percent of the measured ceilings); without a GPU,
check the file's own results through Triton's interpreter on CPU tensors instead."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable
from kx_core.bench.defaults import BUDGET_MS
from kx_core.bench.requests import BenchRequest, CheckRequest, CpuBenchRequest, MeasureRequest
from kx_core.bench.run import BenchResult
from kx_core.records.results import Diagnostic


class NoGPU(RuntimeError):
    """There is no CUDA GPU here: nothing can be timed."""


def has_gpu() -> bool:
    """A local NVIDIA GPU (nvidia-smi: torch-free, so the window can ask)."""
    from kx_core.records.target import local_target

    return local_target() is not None


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

    from kx_core.compile.artifacts.diagnostics import frame_from_fault_dump

    if returncode < 0:
        name = (
            signal.Signals(-returncode).name
            if -returncode in signal.Signals._value2member_map_
            else str(-returncode)
        )
        return Diagnostic("crash", f"the run crashed ({name})", path, frame_from_fault_dump(stderr, path))
    return _stderr_diagnostic("crash", stderr, path)


class MeasureJob:
    """One measuring worker, started, polled and cancellable without blocking: the CLI
    waits on it, the app polls it from a timer. What it runs is its request
    (kx_core.bench.requests: one type per kind). Qt-free."""

    def __init__(self, request: MeasureRequest, path: str) -> None:
        self.request = request
        self.kind = request.KIND
        self.path = os.path.abspath(path)
        self._tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self._tmp.name, f"{self.kind}.json")
        self.process: subprocess.Popen | None = None
        self.started = 0.0
        self.cancelled = False
        self.mode = (
            "local CPU"
            if isinstance(request, CpuBenchRequest)
            else "gpu"
            if has_gpu()
            else "interpreter (CPU)"
        )

    def command(self) -> tuple[str, list[str]]:
        """(worker module, its arguments)."""
        request_path = os.path.join(self._tmp.name, "request.json")
        return self.request.MODULE, self.request.args(self.path, self.out, request_path)

    def start(self) -> MeasureJob:
        if self.request.NO_GPU and not has_gpu():
            raise NoGPU(self.request.NO_GPU)
        env = dict(os.environ)
        # a timing worker gets the CPU as the user's own process would (lifeline): a
        # starved launch thread leaves the GPU idle between launches
        env.pop("KX_WORKER_NICE", None)
        if isinstance(self.request, CheckRequest) and self.mode != "gpu":
            env["TRITON_INTERPRET"] = "1"
        self.started = time.perf_counter()
        # output to a file, not a pipe: a chatty file would fill a pipe and stall the worker
        self._output = os.path.join(self._tmp.name, "output.txt")
        module, args = self.command()
        cwd = os.path.dirname(self.path)
        if self.request.WARM:  # a warm server's child when one answers: no imports to pay
            from kx_core.base.paths import worker_env
            from kx_core.compile.jobs import warm

            self.process = warm.start_module(
                None, module, args, env=worker_env(env), cwd=cwd, output=self._output, job_dir=self._tmp.name
            )
            if self.process is not None:
                return self
        # no memory limit: CUDA maps far more address space than it uses
        self.process = workers.start(
            module, args, output=self._output, env=env, cwd=cwd, job_dir=self._tmp.name
        )
        return self

    def output_tail(self) -> str:
        """What the worker (the user's file) printed so far, stdout and stderr as written
        (the last 64 kB); '' once the job's folder is gone."""
        path = getattr(self, "_output", None)  # set when the worker starts
        return workers.read_tail(path) if path else ""

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started if self.started else 0.0

    def done(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def cancel(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.cancelled = True
            workers.stop(self.process)

    def wait(self, timeout: float | None = None):
        """Block until the worker ends (killing it after `timeout`), then the result."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cancel()
            self.process.wait()
            return self._failed(Diagnostic("timeout", f"the run took over {timeout:.0f} s", self.path, None))
        return self.result()

    def result(self):
        """The worker's result (after done()): its request's result record."""
        workers.stop(self.process)  # what the file started goes with the worker
        stderr = workers.read_tail(self._output)
        try:
            if os.path.exists(self.out):
                with open(self.out, encoding="utf-8") as f:
                    return self.request.result_from_json(json.load(f))
            if self.cancelled:
                return self._failed(Diagnostic("cancelled", "stopped", self.path, None))
            return self._failed(_crash_diagnostic(self.process.returncode, stderr, self.path))
        finally:
            self._tmp.cleanup()

    def _failed(self, d: Diagnostic):
        return self.request.failed(self.path, self.mode, d)


def bench_file(
    path: str,
    kernel: str | None = None,
    all_configs: bool = False,
    budget_ms: float = BUDGET_MS,
    flush_l2: bool = True,
    cuda_graph: bool = False,
    timeout: float = 600.0,
    do_bench: bool = False,
) -> BenchResult:
    """Run the file for real in a worker and time its launches (with do_bench's figure on
    the same calls when `do_bench`). Raises NoGPU."""
    request = BenchRequest(kernel, all_configs, budget_ms, flush_l2, cuda_graph, do_bench)
    return MeasureJob(request, path).start().wait(timeout)


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
    env = dict(os.environ, TRITON_INTERPRET="1")
    run = workers.run("kx_core.bench.interpret", [path], timeout, env=env, cwd=os.path.dirname(path))
    if run.timed_out:
        return InterpretResult(
            path, False, timeout, (Diagnostic("timeout", f"over {timeout:.0f} s", path, None),)
        )
    if run.returncode != 0:
        return InterpretResult(
            path, False, run.seconds, (_stderr_diagnostic("runtime", run.output, path),), run.output[-4000:]
        )
    return InterpretResult(path, True, run.seconds, (), run.output[-4000:])


def check_file(path: str, timeout: float = 600.0):
    """Run the file's Checks (kx_core.bench.check) in a worker: on the GPU when there is
    one, else through Triton's interpreter on CPU tensors (and labelled so)."""
    return MeasureJob(CheckRequest(), path).start().wait(timeout)
