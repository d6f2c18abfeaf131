"""Hardware counters the seed profiler's way (issue 19): perf stat attached to the
measuring process, counting only the calls. The oracle where this machine has perf: its
task-clock over the window lies between the calling thread's CPU time over the calls and
the process's over the whole window. Where the CPU exposes no hardware counters (a VM without a PMU, as here) the
report says so and gives no advice; where perf is missing, a plain message."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from kx_core.cpu import perf_stat


def _busy():
    return sum(i * i for i in range(20_000))


# The count runs in a process of its own: a pytest worker keeps what earlier tests left
# (threads, a warm worker's pipes), and perf attached to it counted 8% more than the
# process's own clock in two full runs (245 ms against 227 ms) while alone they agree.
_COUNT_IN_A_FRESH_PROCESS = """
import json
from kx_core.cpu import perf_stat
def _busy():
    return sum(i * i for i in range(20_000))
r = perf_stat.count(_busy, iters=300, warmup=5)
print(json.dumps(r.to_json()))
"""


@pytest.mark.skipif(perf_stat.find_perf() is None, reason="needs perf")
def test_perf_counts_exactly_the_calls():
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_IN_A_FRESH_PROCESS],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=pathlib.Path(__file__).resolve().parents[2],
    )
    r = json.loads(done.stdout.strip().splitlines()[-1])
    assert r["iters"] == 300 and r["perf"] and set(r["counters"]) == set(perf_stat.COUNTERS)
    # perf's task-clock over its enabled window holds the calls' CPU time and lies inside
    # the window from before the enable to after the disable: its process CPU time, or its
    # wall time where that is larger (task-clock, by perf's own clock, ran 8% past the
    # process's CPU clock in two full runs; perf_stat.count's comment) (2 ms: the
    # scheduler accounts another CPU's running thread at its next tick)
    window = max(r["window_cpu_ms"], r["window_wall_ms"])
    assert r["calls_cpu_ms"] - 2.0 <= r["counters"]["task-clock"] <= window + 2.0
    assert r["calls_cpu_ms"] > 50  # a window of real work, not of perf's start-up
    if r["counters"]["cycles"] is None:  # no PMU: said plainly, no figures, no advice
        assert not r["available"] and "no hardware counters" in r["message"]
        assert r["ipc"] is None and not r["recommendations"]
    else:
        assert r["available"] and r["ipc"] > 0 and r["recommendations"]


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
