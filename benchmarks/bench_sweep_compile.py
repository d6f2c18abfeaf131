"""What the sweep's compile side costs per shape (issue 34): every shape's driver at one
path (Triton's cache, kept per driver file, then serves a config whose specialization the
shapes share) and a warm worker for the shapes after the first (torch's and Triton's
imports paid once), against the reference of each shape compiled as a file of its own in
a cold worker, as the sweep did before. Same run, each side with an empty kx cache.

    python benchmarks/bench_sweep_compile.py [--shapes 4]

Prints both totals, the per-shape times and the ratio reference / sweep.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.sweep.driver import script  # noqa: E402
from kx_core.sweep.run import SweepRequest, sweep  # noqa: E402

FILE = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SHAPES = [{"M": m, "N": n, "K": k} for m, n, k in ((1024, 1024, 1024), (2048, 2048, 1024), (4096, 4096, 512),
                                                    (4096, 2048, 1024), (8192, 1024, 1024), (2048, 8192, 512))]  # fmt: skip


def reference(shapes, folder: str) -> list[float]:
    """Each shape its own driver file, compiled in a cold worker (no warm server)."""
    times = []
    for i, shape in enumerate(shapes):
        path = os.path.join(folder, f"shape_{i}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script(FILE, "matmul_kernel", None, shape, None))
        start = time.perf_counter()
        compile_file(CompileRequest(path, target="cuda:90"))
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", type=int, default=4)
    args = ap.parse_args()
    shapes = tuple(SHAPES[: args.shapes])
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        os.environ["KX_CACHE_DIR"] = a
        ref = reference(shapes, tempfile.mkdtemp(dir=a))
        os.environ["KX_CACHE_DIR"] = b
        start = time.perf_counter()
        result = sweep(SweepRequest(FILE, "matmul_kernel", shapes, target="cuda:90", measure="none"))
        total = time.perf_counter() - start
    ours = [c.compile_s for c in result.cases]
    print(f"{len(shapes)} shapes x 16 configs of matmul_kernel for cuda:90")
    print(
        f"reference (a driver file per shape, cold workers): {sum(ref):6.1f} s  per shape {[round(t, 1) for t in ref]}"
    )
    print(
        f"sweep (one driver path, warm worker after the first): {total:6.1f} s  per shape {[round(t, 1) for t in ours]}"
    )
    print(f"ratio reference / sweep: {sum(ref) / total:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
