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
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "benchmarks" / "real_files" / "inductor"


def _env(**extra: str) -> dict[str, str]:
    env = dict(
        os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0"
    )
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


def capture(model: Path, json_out: Path | None) -> tuple[float, int, str]:
    """kx's cold capture; its Inductor cache folder is /tmp/kx-inductor/<model> (where
    scripts/record_inductor_output.py's real run had it: the PTX's paths are the same)."""
    cache = tempfile.mkdtemp(prefix="bench-kx-")
    inductor = Path("/tmp/kx-inductor") / model.stem
    shutil.rmtree(inductor, ignore_errors=True)
    started = time.perf_counter()
    # `kx compile FILE --no-cache` as a process of its own, keeping the whole result (its
    # kernels' specializations: the comparison with the real run needs them)
    p = subprocess.run(
        [sys.executable, "-c", _CAPTURE, str(model)],
        env=_env(TORCHINDUCTOR_CACHE_DIR=str(inductor), KX_CACHE_DIR=cache + "/kx"),
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    try:
        doc = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return seconds, 0, p.stderr.strip()[-120:]
    if json_out is not None:
        (json_out / f"{model.stem}.json").write_text(json.dumps(doc))
    kernels = sum(k["status"] == "compiled" for k in doc["kernels"])
    note = next((d["message"] for d in doc["diagnostics"] if d["kind"] in ("not-captured", "runtime")), "")
    return seconds, kernels, note


_CAPTURE = """
import json, sys
from kx_core.compile import CompileRequest, compile_file
r = compile_file(CompileRequest(sys.argv[1], target="cuda:90", gpu="h200", cold=True), use_cache=False)
print(json.dumps(r.to_json()))
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--json-out", type=Path, help="keep each capture's `kx compile --json` here")
    args = ap.parse_args()
    if args.json_out:
        args.json_out.mkdir(parents=True, exist_ok=True)
    import torch

    gpu = torch.cuda.is_available()
    models = args.models or sorted(MODELS.glob("*.py"))
    print(
        f"# bench_torch_compile  torch {torch.__version__}  GPU: {torch.cuda.get_device_name() if gpu else 'none'}"
    )
    print(f"{'model':22} {'first run s':>12} {'capture s':>10} {'ratio':>7} {'kernels':>8}")
    ratios = []
    for model in models:
        runs, caps, kernels, note = [], [], 0, ""
        for _ in range(args.runs):
            if gpu:
                runs.append(first_run(model))
            t, kernels, note = capture(model, args.json_out)
            caps.append(t)
        cap = statistics.median(caps)
        run = statistics.median(runs) if runs else None
        ratio = cap / run if run else None
        if ratio:
            ratios.append(ratio)
        print(
            f"{model.stem:22} {run if run else float('nan'):12.2f} {cap:10.2f} "
            f"{ratio if ratio else float('nan'):7.2f} {kernels:8d}" + (f"  ({note[:80]})" if note else ""),
            flush=True,
        )
    if ratios:
        print(
            f"capture / first run: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}  (target <= 1.0)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
