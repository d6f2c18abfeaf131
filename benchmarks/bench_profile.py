"""Profiling speed (issue 21): seconds from Profile (the worker started) to hot lines
(samples attributed to every stage), against the same file run plainly as a script in
the same run (python FILE: start-up, compile, launches). Prints both and the ratio, for
a cold worker and for a warm server's child (the app keeps one; `kx daemon start`).

    PYTHONPATH=. python3 benchmarks/bench_profile.py [FILE] [--runs 3] [--window-ms 100]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=os.path.join(HERE, "kernels", "matmul_1ms.py"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--window-ms", type=float, default=100.0)
    args = ap.parse_args()
    from kx_core.bench.bench import MeasureJob
    from kx_core.bench.requests import ProfileRequest
    from kx_core.compile.jobs import warm
    from kx_core.ir.hot_lines import attribute

    warm.stop()
    for mode in ("cold", "warm"):
        if mode == "warm":
            server = warm.launch(wait_s=120)
        for run in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, args.file], check=True, cwd=os.path.dirname(args.file))
            plain = time.perf_counter() - t0
            t0 = time.perf_counter()
            job = MeasureJob(ProfileRequest(window_ms=args.window_ms), args.file).start()
            how = "warm child" if isinstance(job.process, warm.WarmProcess) else "cold worker"
            result = job.wait(600)
            hot = [attribute(k) for k in result.kernels]
            profiled = time.perf_counter() - t0
            k = result.kernels[0] if result.kernels else None
            print(
                f"{mode} run {run} ({how}): profile to hot lines {profiled:.2f} s, plain run {plain:.2f} s,"
                f" ratio {profiled / plain:.2f}; "
                + (
                    f"{k.kernel}: {k.window_ms / k.calls:.3f} ms per call, {k.samples} samples, "
                    f"{len(hot[0].by_stage['sass'])} SASS lines hot"
                    if k
                    else f"no kernel: {result.diagnostics}"
                )
            )
    warm.stop()
    if server is not None:
        server.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
