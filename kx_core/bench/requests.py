"""What each measuring job is asked: one request type per kind (time, check, profile, an
edited stage, a C++ kernel), each with its options spelled and defaulted once, the
worker module it runs and the command line that worker reads.

    MeasureJob(BenchRequest(all_configs=True), "kernel.py").start().wait()

The worker modules' own argument parsers default to the same constants
(kx_core.bench.defaults), so `python -m kx_core.bench.run FILE` and the app time alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

from kx_core.base.jsonable import Jsonable
from kx_core.bench.defaults import BUDGET_MS, WINDOW_MS
from kx_core.records.results import Diagnostic


@dataclass(frozen=True)
class MeasureRequest(Jsonable):
    """A measuring job's options; subclasses name their worker and its failure record."""

    KIND: ClassVar[str] = ""
    MODULE: ClassVar[str] = ""  # the worker, run as python -m MODULE
    NO_GPU: ClassVar[str] = ""  # why it cannot run without an NVIDIA GPU ('' = it can)
    WARM: ClassVar[bool] = False  # a warm server's child may run it (no imports to pay)

    def args(self, path: str, out: str) -> list[str]:
        """The worker's command line for `path`, writing its result to `out`."""
        return [path, "--out", out]

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        """The result record of a run that ended without a result of its own."""
        raise NotImplementedError

    def result_type(self) -> type:
        """The record its worker writes (imported when needed: the workers import torch)."""
        raise NotImplementedError

    def result_from_json(self, data: dict) -> Any:
        return self.result_type().from_json(data)


@dataclass(frozen=True)
class BenchRequest(MeasureRequest):
    """Time every launch of the file (kx_core.bench.run)."""

    KIND: ClassVar[str] = "bench"
    MODULE: ClassVar[str] = "kx_core.bench.run"
    NO_GPU: ClassVar[str] = "no CUDA GPU on this machine: nothing to time"

    kernel: str | None = None
    all_configs: bool = False
    budget_ms: float = BUDGET_MS
    flush_l2: bool = True
    cuda_graph: bool = False
    do_bench: bool = False

    def args(self, path: str, out: str) -> list[str]:
        cmd = [path, "--out", out, "--budget-ms", str(self.budget_ms)]
        cmd += ["--kernel", self.kernel] if self.kernel else []
        cmd += ["--all-configs"] if self.all_configs else []
        cmd += [] if self.flush_l2 else ["--no-flush"]
        cmd += ["--cuda-graph"] if self.cuda_graph else []
        cmd += ["--do-bench"] if self.do_bench else []
        return cmd

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, "", "", (), (d,))

    def result_type(self) -> type:
        from kx_core.bench.run import BenchResult

        return BenchResult


@dataclass(frozen=True)
class CheckRequest(MeasureRequest):
    """Run the file's checks: on the GPU, or through Triton's interpreter without one."""

    KIND: ClassVar[str] = "check"
    MODULE: ClassVar[str] = "kx_core.bench.check"

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, mode, (), d.short())

    def result_type(self) -> type:
        from kx_core.bench.check import CheckReport

        return CheckReport


@dataclass(frozen=True)
class CpuBenchRequest(MeasureRequest):
    """Build a C++ kernel and time it against its PyTorch baseline (kx_core.bench.cpu_bench)."""

    KIND: ClassVar[str] = "cpu"
    MODULE: ClassVar[str] = "kx_core.bench.cpu_bench"

    baseline: str = ""
    op: str = ""
    perf: bool = False

    def args(self, path: str, out: str) -> list[str]:
        from kx_core.base.paths import cache_dir

        cmd = [path, "--out", out, "--cache", str(cache_dir()), "--baseline", os.path.abspath(self.baseline)]
        cmd += ["--op", self.op] if self.op else []
        cmd += ["--perf"] if self.perf else []
        return cmd

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, self.op, False, diagnostics=(d,))

    def result_type(self) -> type:
        from kx_core.bench.cpu_result import CpuBenchResult

        return CpuBenchResult


@dataclass(frozen=True)
class ProfileRequest(MeasureRequest):
    """Sample the running kernels' instructions (kx_core.bench.profile)."""

    KIND: ClassVar[str] = "profile"
    MODULE: ClassVar[str] = "kx_core.bench.profile"
    NO_GPU: ClassVar[str] = (
        "profiling samples a running kernel's instructions: it needs an NVIDIA GPU, and there is none here"
    )
    WARM: ClassVar[bool] = True

    window_ms: float = WINDOW_MS
    calls: int = 0  # a fixed number of calls (0: as many as the window takes)
    kernel: str | None = None
    proton: bool = False  # sample with Proton (the oracle)

    def args(self, path: str, out: str) -> list[str]:
        cmd = [path, "--out", out, "--window-ms", str(self.window_ms)]
        cmd += ["--calls", str(self.calls)] if self.calls else []
        cmd += ["--kernel", self.kernel] if self.kernel else []
        cmd += ["--proton"] if self.proton else []
        return cmd

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, "", "", "cupti", (), (d,))

    def result_type(self) -> type:
        from kx_core.bench.profile import ProfileResult

        return ProfileResult


@dataclass(frozen=True)
class OverrideRequest(MeasureRequest):
    """Run one kernel from an edited stage against the original (kx_core.bench.override)."""

    KIND: ClassVar[str] = "override"
    MODULE: ClassVar[str] = "kx_core.bench.override"
    NO_GPU: ClassVar[str] = "an edited stage runs on the GPU: it needs an NVIDIA GPU, and there is none here"
    WARM: ClassVar[bool] = True

    stage_file: str = ""
    kernel: str | None = None

    def args(self, path: str, out: str) -> list[str]:
        cmd = [path, "--out", out, "--override", os.path.abspath(self.stage_file)]
        cmd += ["--kernel", self.kernel] if self.kernel else []
        return cmd

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        stage = os.path.splitext(self.stage_file)[1][1:]
        return self.result_type()(path, self.stage_file, stage, "", False, diagnostics=(d,))

    def result_type(self) -> type:
        from kx_core.bench.override import OverrideResult

        return OverrideResult


REQUESTS: dict[str, type[MeasureRequest]] = {
    r.KIND: r for r in (BenchRequest, CheckRequest, CpuBenchRequest, ProfileRequest, OverrideRequest)
}
