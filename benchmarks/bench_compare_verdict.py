"""How often `kx compare --time`'s verdict is right, on the local GPU (issue 32).

    PYTHONPATH=. python3 benchmarks/bench_compare_verdict.py [--runs 10] [--out FILE.json]

Two pairs, each timed --runs times with kx_core.bench.paired (20 interleaved rounds):
the same autotune config of fixtures/kernels/gpu/matmul_two_tiles.py (4096^3) twice (the right verdict: no significant
difference), and its first config against its last, with triton.testing.do_bench run on
both sides in the same workers as the reference (10 runs each) (the verdict should have do_bench's
sign; do_bench's ratio should lie in kx's interval). Prints the counts and every run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.bench.paired import time_pair  # noqa: E402
from kx_core.compile import CompileRequest, compile_file  # noqa: E402

FILE = str(ROOT / "fixtures" / "kernels" / "gpu" / "matmul_two_tiles.py")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--out")
    ap.add_argument("--file", default=FILE, help="an autotuned file: its first config against its last")
    args = ap.parse_args()
    names = [
        k.display_name
        for k in compile_file(CompileRequest(args.file, target="local")).kernels
        if k.status == "compiled"
    ]
    path = args.file
    rows = {"same": [], "different": []}
    for run in range(args.runs):
        start = time.perf_counter()
        t = time_pair(path, names[0], path, names[0], rounds=20, seed=run)
        rows["same"].append(
            {
                "ratio": t.ratio,
                "low": t.low,
                "high": t.high,
                "verdict": t.verdict,
                "wall_s": time.perf_counter() - start,
            }
        )
        start = time.perf_counter()
        t = time_pair(path, names[0], path, names[-1], rounds=20, seed=run, do_bench_runs=10)
        oracle = statistics.median(t.do_bench_ratios)
        inside = t.low - t.floor <= oracle <= t.high + t.floor
        sign = "slower" if oracle > 1 + 2 * t.floor else "faster" if oracle < 1 - 2 * t.floor else None
        rows["different"].append(
            {
                "ratio": t.ratio,
                "low": t.low,
                "high": t.high,
                "verdict": t.verdict,
                "do_bench_ratio": oracle,
                "inside": inside,
                "sign_agrees": sign is None or sign == t.verdict,
                "a_us": t.median_a_ms * 1e3,
                "b_us": t.median_b_ms * 1e3,
                "do_bench_a_us": statistics.median(t.do_bench_a_ms) * 1e3,
                "do_bench_b_us": statistics.median(t.do_bench_b_ms) * 1e3,
                "do_bench_plain_a_us": statistics.median(t.do_bench_plain_a_ms) * 1e3,
                "do_bench_plain_b_us": statistics.median(t.do_bench_plain_b_ms) * 1e3,
                "wall_s": time.perf_counter() - start,
            }
        )
        print(
            json.dumps({"run": run, "same": rows["same"][-1], "different": rows["different"][-1]}), flush=True
        )
    same_ok = sum(r["verdict"] == "no significant difference" for r in rows["same"])
    inside = sum(r["inside"] for r in rows["different"])
    agrees = sum(r["sign_agrees"] for r in rows["different"])
    print(f"same kernel twice: 'no significant difference' in {same_ok} of {args.runs} runs")
    print(
        f"{names[0]} vs {names[-1]}: do_bench's ratio inside kx's interval in {inside} of {args.runs}, "
        f"verdict with do_bench's sign in {agrees} of {args.runs}"
    )
    print(
        f"median wall time of one timed pair: {statistics.median(r['wall_s'] for r in rows['different']):.1f} s"
    )
    if args.out:
        Path(args.out).write_text(json.dumps({"names": [names[0], names[-1]], **rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
