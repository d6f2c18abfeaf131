"""`kx sweep` with the compile side's binaries shipped to the measuring worker against the
worker compiling every config itself (KX_SWEEP_SHIP=0), on the local GPU (issue 34).

    PYTHONPATH=. python3 benchmarks/bench_sweep_ship.py [--out DIR] [--measure all|top-k]

The same sweep (the matmul of fixtures/kernels/sweep, 16 configs, SHAPES) runs shipped
and not, twice each, interleaved (S N N S), each from its own empty Triton and kx caches
so no run reuses another's compiles. Prints per run the sweep's wall time, the worker's
compile time summed over the shapes, how many measured configs were shipped and how many
the worker compiled again, and the winners; then the ratio of the mean wall time without
shipping over the mean with it, and whether every run picked the same winners.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from sweep_cold import cold_sweep

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py"
SHAPES = ["M=1024,N=1024,K=1024", "M=4096,N=4096,K=1024", "M=2048,N=4096,K=2048", "M=512,N=8192,K=2048"]


def one(ship: bool, measure: str, timeout: float) -> dict:
    env = {"KX_SWEEP_SHIP": "1" if ship else "0"}
    args = ["--measure", measure, "--gpus", "1"]
    r, wall = cold_sweep(FILE, "matmul_kernel", SHAPES, args, env, timeout, what=f"ship={ship}")
    cases = r["cases"]
    return {
        "ship": ship,
        "wall_s": wall,
        "sweep_s": r["wall_s"],
        "capture_compile_s": sum(c["compile_s"] for c in cases),
        "measure_s": sum(c["measure_s"] for c in cases),
        "shipped": r["summary"]["shipped"],
        "compiled_again": r["summary"]["compiled_again"],
        "measured": sum(1 for c in cases for f in c["configs"] if f["measured_us"] is not None),
        "winners": [c["winner"] for c in cases],
        "errors": [c["error"] for c in cases if c.get("error")],
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--measure", default="all", choices=["all", "top-k"])
    ap.add_argument("--timeout", type=float, default=240.0, help="per sweep")
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    runs = [one(s, args.measure, args.timeout) for s in (True, False, False, True)]
    for r in runs:
        print(json.dumps(r), flush=True)
    shipped_s = statistics.fmean(r["wall_s"] for r in runs if r["ship"])
    own_s = statistics.fmean(r["wall_s"] for r in runs if not r["ship"])
    summary = {"measure": args.measure, "shapes": len(SHAPES), "wall_shipped_s": shipped_s,
               "wall_compiled_again_s": own_s, "ratio_unshipped_over_shipped": own_s / shipped_s,
               "same_winners": all(r["winners"] == runs[0]["winners"] for r in runs)}  # fmt: skip
    print(json.dumps(summary), flush=True)
    Path(args.out, "sweep_ship.json").write_text(json.dumps({"runs": runs, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
