"""A torch.compile script's capture against the same script's own first run.

    PYTHONPATH=. python3 benchmarks/bench_torch_compile.py [--runs 2] [MODEL.py ...]

On a GPU machine, for each model script (default: benchmarks/real_files/inductor/*.py),
in one run and alternating: the script's own first run (`python MODEL.py`, a fresh
Inductor cache folder, no graph cache: Inductor generates and compiles every kernel as a
user's first run does; its compile worker pool as by default) and kx's cold capture of
it (`kx compile MODEL.py --no-cache`, a fresh worker, Inductor compiling in-process).
Prints each wall time and the ratio capture / first run (target: <= 1.0). Without a GPU
only the capture is timed (a training step's backward is then not captured: said so).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "benchmarks" / "real_files" / "inductor"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    env.update(extra)
    return env


def first_run(model: Path) -> float:
    cache = tempfile.mkdtemp(prefix="bench-inductor-")
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(model)],
        env=_env(TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=cache + "/triton"),
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def capture(model: Path) -> tuple[float, int, str]:
    cache = tempfile.mkdtemp(prefix="bench-kx-")
    started = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "kx_core.cli", "compile", str(model), "--no-cache", "--target", "cuda:90", "--gpu", "h200"],
        env=_env(TORCHINDUCTOR_CACHE_DIR=cache, KX_CACHE_DIR=cache + "/kx"),
        capture_output=True,
        text=True,
    )
    kernels = sum(1 for line in p.stdout.splitlines() if " compiled " in line)
    note = next((line for line in p.stdout.splitlines() if "not-captured" in line), "")
    return time.perf_counter() - started, kernels, note


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    import torch

    gpu = torch.cuda.is_available()
    models = args.models or sorted(MODELS.glob("*.py"))
    print(f"# bench_torch_compile  torch {torch.__version__}  GPU: {torch.cuda.get_device_name() if gpu else 'none'}")
    print(f"{'model':22} {'first run s':>12} {'capture s':>10} {'ratio':>7} {'kernels':>8}")
    ratios = []
    for model in models:
        runs, caps, kernels, note = [], [], 0, ""
        for _ in range(args.runs):
            if gpu:
                runs.append(first_run(model))
            t, kernels, note = capture(model)
            caps.append(t)
        cap = statistics.median(caps)
        run = statistics.median(runs) if runs else None
        ratio = cap / run if run else None
        if ratio:
            ratios.append(ratio)
        print(
            f"{model.stem:22} {run if run else float('nan'):12.2f} {cap:10.2f} "
            f"{ratio if ratio else float('nan'):7.2f} {kernels:8d}" + (f"  ({note[:80]})" if note else "")
        )
    if ratios:
        print(f"capture / first run: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}  (target <= 1.0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
