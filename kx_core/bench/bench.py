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

    from kx_core.compile.diagnostics import frame_from_fault_dump

    if returncode < 0:
        name = (
            signal.Signals(-returncode).name
            if -returncode in signal.Signals._value2member_map_
            else str(-returncode)
        )
        return Diagnostic("crash", f"the run crashed ({name})", path, frame_from_fault_dump(stderr, path))
    return _stderr_diagnostic("crash", stderr, path)


# the jobs a warm server (kx_core.compile.warm) may run: one click from hot lines
WARM_KINDS = ("profile", "override")


class MeasureJob:
    """One measuring worker (`bench` or `check` of a Triton file, `cpu`: a C++ kernel
    built and timed against its PyTorch baseline), started, polled and cancellable
    without blocking: the CLI waits on it, the app polls it from a timer. Qt-free."""

    def __init__(self, kind: str, path: str, **options) -> None:
        if kind not in ("bench", "check", "cpu", "profile", "override"):
            raise ValueError("kind is bench, check, cpu, profile or override")
        self.kind = kind
        self.path = os.path.abspath(path)
        self.options = options
        self._tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self._tmp.name, f"{kind}.json")
        self.process: subprocess.Popen | None = None
        self.started = 0.0
        self.cancelled = False
        self.mode = "local CPU" if kind == "cpu" else "gpu" if has_gpu() else "interpreter (CPU)"

    def command(self) -> tuple[str, list[str]]:
        """(worker module, its arguments)."""
        o = self.options
        if self.kind == "check":
            return "kx_core.bench.check", [self.path, "--out", self.out]
        if self.kind == "cpu":
            from kx_core.base.paths import cache_dir

            cmd = [self.path, "--out", self.out, "--cache", str(cache_dir())]
            cmd += ["--baseline", os.path.abspath(o["baseline"])]
            cmd += ["--op", o["op"]] if o.get("op") else []
            cmd += ["--perf"] if o.get("perf") else []
            return "kx_core.bench.cpu_bench", cmd
        if self.kind == "profile":
            cmd = [self.path, "--out", self.out, "--window-ms", str(o.get("window_ms", 100.0))]
            cmd += ["--calls", str(o["calls"])] if o.get("calls") else []
            cmd += ["--kernel", o["kernel"]] if o.get("kernel") else []
            cmd += ["--proton"] if o.get("proton") else []
            return "kx_core.bench.profile", cmd
        if self.kind == "override":
            cmd = [self.path, "--out", self.out, "--override", os.path.abspath(o["stage_file"])]
            cmd += ["--kernel", o["kernel"]] if o.get("kernel") else []
            return "kx_core.bench.override", cmd
        cmd = [self.path, "--out", self.out]
        cmd += ["--budget-ms", str(o.get("budget_ms", 400.0))]
        if o.get("kernel"):
            cmd += ["--kernel", o["kernel"]]
        if o.get("all_configs"):
            cmd.append("--all-configs")
        if not o.get("flush_l2", True):
            cmd.append("--no-flush")
        if o.get("cuda_graph"):
            cmd.append("--cuda-graph")
        if o.get("do_bench"):
            cmd.append("--do-bench")
        return "kx_core.bench.run", cmd

    def start(self) -> MeasureJob:
        if self.kind == "bench" and not has_gpu():
            raise NoGPU("no CUDA GPU on this machine: nothing to time")
        if self.kind == "override" and not has_gpu():
            raise NoGPU("an edited stage runs on the GPU: it needs an NVIDIA GPU, and there is none here")
        if self.kind == "profile" and not has_gpu():
            raise NoGPU(
                "profiling samples a running kernel's instructions: it needs an NVIDIA GPU, and there is none here"
            )
        env = dict(os.environ)
        if self.kind == "check" and self.mode != "gpu":
            env["TRITON_INTERPRET"] = "1"
        self.started = time.perf_counter()
        # output to a file, not a pipe: a chatty file would fill a pipe and stall the worker
        self._output = os.path.join(self._tmp.name, "output.txt")
        module, args = self.command()
        cwd = os.path.dirname(self.path)
        if self.kind in WARM_KINDS:  # a warm server's child when one answers: no imports to pay
            from kx_core.base.paths import worker_env
            from kx_core.compile import warm

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

    def last_line(self) -> str:
        """The worker's latest output line (progress, or the start of a traceback)."""
        lines = [ln for ln in workers.read_tail(self._output, 4096).splitlines() if ln.strip()]
        return lines[-1] if lines else ""

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
        """The worker's result (after done()): BenchResult, CheckReport or CpuBenchResult."""
        from kx_core.bench.check import CheckReport
        from kx_core.bench.cpu_result import CpuBenchResult

        workers.stop(self.process)  # what the file started goes with the worker
        stderr = workers.read_tail(self._output)
        try:
            if os.path.exists(self.out):
                with open(self.out, encoding="utf-8") as f:
                    data = json.load(f)
                from kx_core.bench.override import OverrideResult
                from kx_core.bench.profile import ProfileResult

                kind = {
                    "bench": BenchResult,
                    "check": CheckReport,
                    "cpu": CpuBenchResult,
                    "profile": ProfileResult,
                    "override": OverrideResult,
                }[self.kind]
                return kind.from_json(data)
            if self.cancelled:
                return self._failed(Diagnostic("cancelled", "stopped", self.path, None))
            return self._failed(_crash_diagnostic(self.process.returncode, stderr, self.path))
        finally:
            self._tmp.cleanup()

    def _failed(self, d: Diagnostic):
        from kx_core.bench.check import CheckReport
        from kx_core.bench.cpu_result import CpuBenchResult

        if self.kind == "cpu":
            return CpuBenchResult(self.path, self.options.get("op") or "", False, diagnostics=(d,))
        if self.kind == "profile":
            from kx_core.bench.profile import ProfileResult

            return ProfileResult(self.path, "", "", "cupti", (), (d,))
        if self.kind == "override":
            from kx_core.bench.override import OverrideResult

            stage_file = self.options.get("stage_file", "")
            return OverrideResult(
                self.path, stage_file, os.path.splitext(stage_file)[1][1:], "", False, diagnostics=(d,)
            )
        if self.kind == "bench":
            return BenchResult(self.path, "", "", (), (d,))
        return CheckReport(self.path, self.mode, (), d.short())


def bench_file(
    path: str,
    kernel: str | None = None,
    all_configs: bool = False,
    budget_ms: float = 400.0,
    flush_l2: bool = True,
    cuda_graph: bool = False,
    timeout: float = 600.0,
    do_bench: bool = False,
) -> BenchResult:
    """Run the file for real in a worker and time its launches (with do_bench's figure on
    the same calls when `do_bench`). Raises NoGPU."""
    job = MeasureJob(
        "bench",
        path,
        kernel=kernel,
        all_configs=all_configs,
        budget_ms=budget_ms,
        flush_l2=flush_l2,
        cuda_graph=cuda_graph,
        do_bench=do_bench,
    )
    return job.start().wait(timeout)


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
    return MeasureJob("check", path).start().wait(timeout)
