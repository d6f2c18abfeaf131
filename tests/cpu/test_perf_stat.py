"""Hardware counters the seed profiler's way (issue 19): perf stat attached to the
measuring process, counting only the calls. The oracle where this machine has perf: its
task-clock over the window equals the process's own CPU time (getrusage) over the same
calls. Where the CPU exposes no hardware counters (a VM without a PMU, as here) the
report says so and gives no advice; where perf is missing, a plain message."""

from __future__ import annotations

import pytest

from kx_core.cpu import perf_stat


def _busy():
    return sum(i * i for i in range(20_000))


@pytest.mark.skipif(perf_stat.find_perf() is None, reason="needs perf")
def test_perf_counts_exactly_the_calls():
    r = perf_stat.count(_busy, iters=300, warmup=5)
    assert r.iters == 300 and r.perf and set(r.counters) == set(perf_stat.COUNTERS)
    # perf's task-clock over the enabled window is the process's CPU time over the calls
    assert r.counters["task-clock"] == pytest.approx(r.process_cpu_ms, rel=0.05, abs=2.0)
    assert r.process_cpu_ms > 50  # a window of real work, not of perf's start-up
    if r.counters["cycles"] is None:  # no PMU: said plainly, no figures, no advice
        assert not r.available and "no hardware counters" in r.message
        assert r.ipc is None and r.recommendations == ()
    else:
        assert r.available and r.ipc > 0 and r.recommendations


def test_without_perf_the_report_says_so(monkeypatch):
    perf_stat.find_perf.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(perf_stat.glob, "glob", lambda pattern: [])
    try:
        r = perf_stat.count(_busy, iters=3)
    finally:
        perf_stat.find_perf.cache_clear()
    assert not r.available and r.message.startswith("perf not found") and r.counters == {}


def test_the_seed_profilers_thresholds():
    # memory-bound, thrashing L1 and L3, branchy: all four of the seed's findings
    recs = perf_stat.recommend(0.6, 12.0, 25.0, 6.0)
    assert [r.split()[0] for r in recs] == ["IPC", "L1", "LLC", "branch"]
    assert perf_stat.recommend(1.5, 2.0, 5.0, 1.0)[0].startswith("IPC 1.50 (1.0-2.0)")
    assert perf_stat.recommend(2.5, 10.0, 20.0, 5.0) == (
        perf_stat.recommend(2.5, 0, 0, 0)[0],
    )  # at, not over
    assert perf_stat.recommend(None, 50.0, 50.0, 50.0) == ()  # no IPC, no advice


def test_perf_stat_csv_lines_parse():
    text = (
        "# started on Tue Dec  1 08:36:26 2026\n\n"
        "114.84,msec,task-clock,114841563,100.00,0.997,CPUs utilized\n"
        "0,,page-faults,114841563,100.00,0.000,/sec\n"
        "<not supported>,,cycles,0,100.00,,\n"
        "1234567,,instructions:u,1000,100.00,1.2,insn per cycle\n"
    )
    assert perf_stat.parse(text) == {
        "task-clock": 114.84,
        "page-faults": 0.0,
        "cycles": None,
        "instructions": 1234567.0,
    }
