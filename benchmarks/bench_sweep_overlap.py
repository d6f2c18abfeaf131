"""What overlapping compile and measurement saves a sweep (issue 34), measured here with
simulated measuring workers: each job takes --measure-s seconds (the H200 measured a
matmul shape's top 4 configs in about 2 s and all 16 in 7 s: benchmarks/sweep_h200), the
compile side is the real one (kx's capture of every config of every shape).

    python benchmarks/bench_sweep_overlap.py [--shapes 4] [--measure-s 3]

Prints the wall time of the sweep with each shape measured as soon as it is compiled
against the same sweep measuring after every compile, and the ratio (same run, warm
caches on both: the first, untimed sweep compiles everything once).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.model.gpu import spec  # noqa: E402
from kx_core.sweep.run import SweepRequest, sweep  # noqa: E402

FILE = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SHAPES = [{"M": m, "N": 4096, "K": 4096} for m in (256, 512, 1024, 2048, 4096, 8192)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", type=int, default=4)
    ap.add_argument("--measure-s", type=float, default=3.0)
    args = ap.parse_args()
    shapes = tuple(SHAPES[: args.shapes])
    env = {"KX_SWEEP_SIMULATE_S": str(args.measure_s)}

    def one(overlap: bool) -> float:
        req = SweepRequest(FILE, "matmul_kernel", shapes, target="cuda:90", gpu=spec("h200"), simulate=True,
                           gpus=1, env=env, overlap=overlap)  # fmt: skip
        start = time.perf_counter()
        r = sweep(req)
        assert all(c.winner for c in r.cases), [c.error for c in r.cases]
        return time.perf_counter() - start

    one(True)  # warm: every config compiled once
    # interleaved, A B B A, medians of two: the machine's other load falls on both alike
    runs = {False: [], True: []}
    for overlap in (False, True, True, False):
        runs[overlap].append(one(overlap))
    after, overlapped = (sorted(runs[k])[0] / 2 + sorted(runs[k])[1] / 2 for k in (False, True))
    print(f"{len(shapes)} shapes, {args.measure_s:g} s of measuring each (simulated), 1 worker")
    print(f"measure after every compile: {after:.1f} s (runs {', '.join(f'{x:.1f}' for x in runs[False])})")
    print(
        f"measure as each shape compiles: {overlapped:.1f} s (runs {', '.join(f'{x:.1f}' for x in runs[True])})"
    )
    print(f"ratio (after / overlapped): {after / overlapped:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
