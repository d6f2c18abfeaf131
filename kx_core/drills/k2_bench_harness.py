"""Drill K2 (benchmark harness) as its tests call it: kx_core.bench.harness and the
drill's deterministic clock."""

from __future__ import annotations

from kx_core.bench.harness import bench, compare, compile_vs_run, outliers, percentile, summarize

__all__ = ["FakeClock", "bench", "compare", "compile_vs_run", "outliers", "percentile", "summarize"]


class FakeClock:
    """Deterministic clock: each work() call advances time by the next duration in
    `durations` (cycled)."""

    def __init__(self, durations):
        self.t = 0.0
        self.durations = list(durations)
        self.i = 0
        self.calls = 0

    def __call__(self):
        return self.t

    def work(self):
        self.t += self.durations[self.i % len(self.durations)]
        self.i += 1
        self.calls += 1
