"""Probe: how far two workers timing the same launch disagree (kx_core.bench.paired),
with and without kx bench's lead, and do_bench's own spread.

    PYTHONPATH=. python3 benchmarks/probe_paired_noise.py [--runs 6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.bench.paired import time_pair  # noqa: E402
from kx_core.compile import CompileRequest, compile_file  # noqa: E402

FILE = str(ROOT / "kx_core" / "data" / "examples" / "matmul_autotune.py")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=6)
    args = ap.parse_args()
    names = [
        k.display_name
        for k in compile_file(CompileRequest(FILE, target="local")).kernels
        if k.status == "compiled"
    ]
    for lead in ("1", "0"):
        os.environ["KX_PAIRED_LEAD"] = lead
        ratios, dbs = [], []
        for run in range(args.runs):
            t = time_pair(FILE, names[0], FILE, names[0], rounds=20, seed=run, do_bench_runs=4)
            ratios.append(t.ratio)
            dbs.append(statistics.median(t.do_bench_ratios))
            print(
                f"lead={lead} run {run}: ratio {t.ratio:.4f} [{t.low:.4f}, {t.high:.4f}] {t.verdict}; "
                f"A {t.median_a_ms * 1e3:.2f} us; do_bench B/A {dbs[-1]:.4f}",
                flush=True,
            )
        spread = max(abs(r - 1) for r in ratios)
        print(
            f"lead={lead}: worst |ratio-1| {spread:.4f}, stdev {statistics.pstdev(ratios):.4f}; "
            f"do_bench stdev {statistics.pstdev(dbs):.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
