"""K2 · A benchmark harness you can trust.

  * warm up first (JIT compile, autotune, caches, clocks) and never time the warmup;
  * synchronize before reading the clock (GPU launches are asynchronous);
  * repeat, and report the median and the spread, not the best run;
  * keep compile / search time separate from steady-state run time;
  * only call a change faster when the difference is larger than the noise.

Everything takes an injectable `timer` and `sync`: tests drive it with a fake clock, a
real run passes `time.perf_counter` and `torch.cuda.synchronize` (kx_core.bench.gpu
times with CUDA events instead). Names and semantics are the drill's."""

from __future__ import annotations

import statistics
import time


def percentile(xs, q):
    """Linear-interpolation percentile, q in [0, 100] (numpy's default)."""
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of no samples")
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize(samples):
    """Robust statistics of a list of timings."""
    q1, q3 = percentile(samples, 25), percentile(samples, 75)
    return {
        "n": len(samples),
        "median": percentile(samples, 50),
        "mean": statistics.fmean(samples),
        "stdev": statistics.stdev(samples) if len(samples) > 1 else 0.0,
        "min": min(samples),
        "max": max(samples),
        "q1": q1,
        "q3": q3,
        "iqr": q3 - q1,
    }


def bench(fn, warmup=10, repeats=50, timer=time.perf_counter, sync=lambda: None):
    """Time fn() `repeats` times after `warmup` untimed calls. sync() runs once after the
    warmup, then before starting and before stopping the clock of every timed call.
    Returns summarize(samples) plus the raw samples."""
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        sync()
        t0 = timer()
        fn()
        sync()
        samples.append(timer() - t0)
    return {**summarize(samples), "samples": samples}


def compile_vs_run(make_fn, repeats=20, timer=time.perf_counter, sync=lambda: None):
    """One-time cost (building the callable + its first call) apart from steady state."""
    sync()
    t0 = timer()
    fn = make_fn()
    fn()
    sync()
    first = timer() - t0
    steady = bench(fn, warmup=0, repeats=repeats, timer=timer, sync=sync)
    return {
        "first_call": first,
        "steady_median": steady["median"],
        "one_time_cost": first - steady["median"],
        "steady": steady,
    }


def outliers(samples, k=1.5):
    """Indices outside Tukey's fences [q1 - k*IQR, q3 + k*IQR]."""
    q1, q3 = percentile(samples, 25), percentile(samples, 75)
    lo, hi = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
    return [i for i, x in enumerate(samples) if x < lo or x > hi]


def compare(base, new):
    """Is `new` faster than `base` (both summarize() results)? speedup = base median /
    new median; "faster"/"slower" only when the interquartile ranges do not overlap."""
    speedup = base["median"] / new["median"]
    if new["q3"] < base["q1"]:
        verdict = "faster"
    elif new["q1"] > base["q3"]:
        verdict = "slower"
    else:
        verdict = "within noise"
    return {"speedup": speedup, "verdict": verdict}
