"""What each measuring job is asked: one request type per kind (time, check, profile, an
edited stage, a C++ kernel), each with its options spelled and defaulted once, and the
worker module it runs. The worker reads the request itself, as JSON:

    MeasureJob(BenchRequest(all_configs=True), "kernel.py").start().wait()
    python -m kx_core.bench.run kernel.py --out result.json --request request.json

(`read_request` is each worker's whole command line: the file, where its result goes,
and the request; without --request, the request type's defaults.)
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

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

    def resolved(self) -> MeasureRequest:
        """The request as its worker reads it (paths made absolute, folders filled)."""
        return self

    def args(self, path: str, out: str, request_path: str) -> list[str]:
        """The worker's command line for `path`, writing its result to `out`, its
        request written as JSON to `request_path`."""
        with open(request_path, "w", encoding="utf-8") as f:
            json.dump(self.resolved().to_json(), f)
        return [path, "--out", out, "--request", request_path]

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        """The result record of a run that ended without a result of its own."""
        raise NotImplementedError

    RESULT: ClassVar[str] = ""  # the record its worker writes, "module:Class"

    def result_type(self) -> type:
        """The record its worker writes, imported when needed (the workers' modules
        import torch, and import this module: named by string, not imported here)."""
        import importlib

        module, _, name = self.RESULT.partition(":")
        return getattr(importlib.import_module(module), name)

    def result_from_json(self, data: dict) -> Any:
        return self.result_type().from_json(data)


@dataclass(frozen=True)
class BenchRequest(MeasureRequest):
    """Time every launch of the file (kx_core.bench.run)."""

    KIND: ClassVar[str] = "bench"
    MODULE: ClassVar[str] = "kx_core.bench.run"
    RESULT: ClassVar[str] = "kx_core.bench.run:BenchResult"
    NO_GPU: ClassVar[str] = "no CUDA GPU on this machine: nothing to time"

    kernel: str | None = None
    all_configs: bool = False
    budget_ms: float = BUDGET_MS
    flush_l2: bool = True
    cuda_graph: bool = False
    do_bench: bool = False

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, "", "", (), (d,))


@dataclass(frozen=True)
class CheckRequest(MeasureRequest):
    """Run the file's checks: on the GPU, or through Triton's interpreter without one."""

    KIND: ClassVar[str] = "check"
    MODULE: ClassVar[str] = "kx_core.bench.check"
    RESULT: ClassVar[str] = "kx_core.bench.check:CheckReport"

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, mode, (), d.short())


@dataclass(frozen=True)
class CpuBenchRequest(MeasureRequest):
    """Build a C++ kernel and time it against its PyTorch baseline (kx_core.bench.cpu_bench)."""

    KIND: ClassVar[str] = "cpu"
    MODULE: ClassVar[str] = "kx_core.bench.cpu_bench"
    RESULT: ClassVar[str] = "kx_core.bench.cpu_result:CpuBenchResult"

    baseline: str = ""
    op: str = ""
    perf: bool = False
    cache: str = ""  # kx's cache folder (the extension builds are kept there)

    def resolved(self) -> CpuBenchRequest:
        from kx_core.base.paths import cache_dir

        return replace(self, baseline=os.path.abspath(self.baseline), cache=self.cache or str(cache_dir()))

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, self.op, False, diagnostics=(d,))


@dataclass(frozen=True)
class ProfileRequest(MeasureRequest):
    """Sample the running kernels' instructions (kx_core.bench.profile)."""

    KIND: ClassVar[str] = "profile"
    MODULE: ClassVar[str] = "kx_core.bench.profile"
    RESULT: ClassVar[str] = "kx_core.bench.profile:ProfileResult"
    NO_GPU: ClassVar[str] = (
        "profiling samples a running kernel's instructions: it needs an NVIDIA GPU, and there is none here"
    )
    WARM: ClassVar[bool] = True

    window_ms: float = WINDOW_MS
    calls: int = 0  # a fixed number of calls (0: as many as the window takes)
    kernel: str | None = None
    proton: bool = False  # sample with Proton (the oracle)
    # an autotuned kernel's config to sample (its label, as kx names configs), instead of
    # the one the autotuner chose: kx compare's two configs of one kernel
    config: str | None = None

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        return self.result_type()(path, "", "", "cupti", (), (d,))


@dataclass(frozen=True)
class OverrideRequest(MeasureRequest):
    """Run one kernel from an edited stage against the original (kx_core.bench.override)."""

    KIND: ClassVar[str] = "override"
    MODULE: ClassVar[str] = "kx_core.bench.override"
    RESULT: ClassVar[str] = "kx_core.bench.override:OverrideResult"
    NO_GPU: ClassVar[str] = "an edited stage runs on the GPU: it needs an NVIDIA GPU, and there is none here"
    WARM: ClassVar[bool] = True

    stage_file: str = ""
    kernel: str | None = None

    def resolved(self) -> OverrideRequest:
        return replace(self, stage_file=os.path.abspath(self.stage_file))

    def failed(self, path: str, mode: str, d: Diagnostic) -> Any:
        stage = os.path.splitext(self.stage_file)[1][1:]
        return self.result_type()(path, self.stage_file, stage, "", False, diagnostics=(d,))


REQUESTS: dict[str, type[MeasureRequest]] = {
    r.KIND: r for r in (BenchRequest, CheckRequest, CpuBenchRequest, ProfileRequest, OverrideRequest)
}


R = TypeVar("R", bound=MeasureRequest)


def read_request(cls: type[R], argv: list[str] | None, prog: str) -> tuple[R, str, str]:
    """A worker's command line: FILE --out RESULT.json [--request REQUEST.json]. Returns
    (the request, the file's absolute path, where the result goes)."""
    ap = argparse.ArgumentParser(prog=prog, description=cls.__doc__)
    ap.add_argument("file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--request", help=f"the {cls.__name__} as JSON (default: its defaults)")
    args = ap.parse_args(argv)
    request = cls()
    if args.request:
        with open(args.request, encoding="utf-8") as f:
            request = cls.from_json(json.load(f))
    return request, os.path.abspath(args.file), args.out
