"""`kx sweep` with one measuring worker against N (issue 37): wall time, winners, each
worker's share of the measured configs, and any result keyed to a GPU it was not
measured on.

    PYTHONPATH=. python3 benchmarks/bench_sweep_gpus.py [--gpus N] [--devices 0,0] [--out DIR]

The same sweep (the matmul of fixtures/kernels/sweep, 16 configs, SHAPES: 8 shapes, every
config measured) runs with --gpus 1 and with --gpus N, each twice, interleaved (1 N N 1),
each from its own empty Triton cache so neither run reuses the other's compiles. N
defaults to every local GPU. On a machine of one GPU, --devices 0,0 pins N workers to the
same GPU: the dispatch path of N GPUs, its timings sharing one chip (the wall time then
says what the queue costs, not what N GPUs gain). Prints the ratio of the mean wall time
with one worker over the mean with N (the speed-up), whether every run picked the same
winners, the shares, and each result's GPU key against the worker's own.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from sweep_cold import cold_sweep

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py"
SHAPES = [
    "M=1024,N=1024,K=1024", "M=2048,N=2048,K=2048", "M=4096,N=4096,K=1024", "M=1024,N=4096,K=4096",
    "M=4096,N=1024,K=4096", "M=2048,N=4096,K=2048", "M=8192,N=1024,K=1024", "M=512,N=8192,K=2048",
]  # fmt: skip


def one(gpus: int, devices: str | None, timeout: float) -> dict:
    args = ["--measure", "all", "--gpus", str(gpus)] + (["--devices", devices] if devices else [])
    r, wall = cold_sweep(FILE, "matmul_kernel", SHAPES, args, timeout=timeout, what=f"--gpus {gpus}")
    return {
        "gpus": gpus,
        "wall_s": wall,
        "sweep_s": r["wall_s"],
        "winners": [c["winner"] for c in r["cases"]],
        "shares": r["shares"],
        "workers": r.get("workers"),
        "keys": sorted({c.get("gpu_key") for c in r["cases"]} - {None}),
        "measured_on": [c.get("measured_on") for c in r["cases"]],
        # configs each worker measured (by worker index)
        "worker_shares": {
            str(w): sum(
                len([f for f in c["configs"] if f["measured_us"]]) for c in r["cases"] if c.get("worker") == w
            )
            for w in sorted({c.get("worker") for c in r["cases"]} - {None})
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, help="N (default: every local GPU)")
    ap.add_argument("--devices", help="pin the N workers (0,0: two on GPU 0)")
    ap.add_argument("--timeout", type=float, default=280.0, help="per sweep")
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    from kx_core.sweep.dispatch import local_gpu_count

    n = args.gpus or local_gpu_count()
    if n < 2:
        raise SystemExit("one GPU here: give --gpus 2 --devices 0,0 to run N workers on it")
    runs = [one(g, args.devices if g > 1 else None, args.timeout) for g in (1, n, n, 1)]
    for r in runs:
        print(json.dumps(r), flush=True)
    one_s = statistics.fmean(r["wall_s"] for r in runs if r["gpus"] == 1)
    n_s = statistics.fmean(r["wall_s"] for r in runs if r["gpus"] == n)
    same = all(r["winners"] == runs[0]["winners"] for r in runs)
    # a result keyed to another GPU than the one its worker measured on: the worker's key
    # ('workers' lists each worker's device and key) must be the case's key
    worker_keys = {k for r in runs for k in (r["workers"] or [])}
    wrong = sum(1 for r in runs for k in r["keys"] if worker_keys and k not in worker_keys)
    summary = {"n": n, "devices": args.devices, "wall_1_s": one_s, "wall_n_s": n_s, "speedup": one_s / n_s,
               "goal": 0.8 * n, "same_winners": same, "shares_n": [r["shares"] for r in runs if r["gpus"] == n],
               "worker_shares_n": [r["worker_shares"] for r in runs if r["gpus"] == n],
               "wrong_key": wrong}  # fmt: skip
    print(json.dumps(summary), flush=True)
    Path(args.out, "sweep_gpus.json").write_text(json.dumps({"runs": runs, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
