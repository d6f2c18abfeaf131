"""Issue 16's timing stability, on the GPU machine: ten consecutive `kx bench` runs (each
its own process, as a user runs it) of a small (~10 us) and a large (>1 ms) kernel.

    PYTHONPATH=. python3 benchmarks/bench_timing_stability.py [--runs 10]

For each file: the spread of the ten medians (max / min, target within 3%) and each run's
median against triton.testing.do_bench timed on the same call in the same run
(`kx bench --do-bench`; target within 3%). The first call is printed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "fixtures" / "kernels" / "gpu" / n for n in ("softmax_rows.py", "matmul_large.py")]


def one_run(path: Path) -> dict:
    p = subprocess.run(
        [sys.executable, "-m", "kx_core.cli", "bench", str(path), "--json", "--do-bench"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=False,
    )
    if p.returncode != 0:
        raise SystemExit(f"kx bench {path.name} failed ({p.returncode}): {p.stderr[-2000:]}")
    (t,) = json.loads(p.stdout)["timings"]
    return t


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
