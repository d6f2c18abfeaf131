"""What `kx bench FILE.cpp` measured: the op's and the PyTorch baseline's times, the
comparator's verdict, and perf stat's counters (kx_core.bench.cpu_bench measures)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable
from kx_core.cpu.perf_stat import PerfReport
from kx_core.records.results import Diagnostic


@dataclass(frozen=True)
class Timed(Jsonable):
    median_us: float
    iqr_us: float
    runs: int


@dataclass(frozen=True)
class CpuBenchResult(Jsonable):
    file: str
    op: str
    correct: bool
    mismatches: tuple[str, ...] = ()
    kernel: Timed | None = None
    baseline: Timed | None = None
    speedup: float | None = None  # baseline median / kernel median
    threads: int = 0
    diagnostics: tuple[Diagnostic, ...] = ()
    build_s: float = 0.0
    extra: dict = field(default_factory=dict)
    perf: PerfReport | None = None  # hardware counters over the op's calls (--perf)
