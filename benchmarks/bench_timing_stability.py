"""Issue 16's timing stability, on the GPU machine: ten consecutive `kx bench` runs (each
its own process, as a user runs it) of a small (~10 us) and a large (>1 ms) kernel.

    PYTHONPATH=. python3 benchmarks/bench_timing_stability.py [--runs 10]

(The engine's bench_file, which `kx bench` calls: the CLI's own start-up and its model
compile are left out to save device time.) For each file: the spread of the ten medians (max / min, target within 3%) and each run's
median against triton.testing.do_bench timed on the same call in the same run
(`kx bench --do-bench`; target within 3%). The first call is printed apart.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FILES = [ROOT / "fixtures" / "kernels" / "gpu" / n for n in ("softmax_rows.py", "matmul_large.py")]


def one_run(path: Path) -> dict:
    """One `kx bench FILE --do-bench` (kx_core.bench.bench_file: a fresh worker process
    runs the file), its one timed launch as JSON."""
    from kx_core.bench.bench import bench_file

    r = bench_file(str(path), do_bench=True)
    if not r.ok or len(r.timings) != 1:
        raise SystemExit(f"kx bench {path.name}: {r.diagnostics}")
    return r.timings[0].to_json()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    print(f"# bench_timing_stability  {args.runs} runs of kx bench --do-bench per file")
    for path in FILES:
        runs = [one_run(path) for _ in range(args.runs)]
        ours = [r["timing"]["median_ms"] * 1e3 for r in runs]
        ref = [r["do_bench_ms"] * 1e3 for r in runs]
        ratios = [o / d for o, d in zip(ours, ref)]
        first = [r["timing"]["first_call_ms"] for r in runs]
        print(f"{path.name}: kx medians (us) {', '.join(f'{x:.2f}' for x in ours)}")
        print(f"  do_bench in the same runs (us) {', '.join(f'{x:.2f}' for x in ref)}")
        print(f"  spread of kx medians: max/min = {max(ours) / min(ours):.4f}   (target <= 1.03)")
        print(
            f"  kx / do_bench per run: {min(ratios):.4f} .. {max(ratios):.4f}   (target within 0.97 .. 1.03)"
        )
        print(f"  first call (ms, compile included): {', '.join(f'{x:.0f}' for x in first)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
