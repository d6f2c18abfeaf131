"""Inductor's output modules (what TORCH_LOGS=output_code prints) of kx's small models,
written by a real run on a GPU machine.

    python3 scripts/record_inductor_output.py --out DIR [benchmarks/real_files/inductor/mlp.py ...]

Each model script (default: every file in benchmarks/real_files/inductor/) runs as
`python FILE` would, with a fresh Inductor cache folder of its own, compiles in the
process (TORCHINDUCTOR_COMPILE_THREADS=1) and no graph cache; afterwards every module
Inductor wrote that holds a graph's `call` is copied to DIR as
`<model>_<graph>_output_code.py` (graph: Inductor's AOT id, e.g. 0_forward, 0_backward,
0_inference). Those files are kx's Inductor fixtures (fixtures/inductor/) and corpus
entries; nothing in them is edited.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "benchmarks" / "real_files" / "inductor"
# TORCHINDUCTOR_CACHE_DIR of each model's run: CACHE_ROOT/<model>
CACHE_ROOT = "/tmp/kx-inductor"

# Example: "# AOT ID: ['0_forward']"
_AOT_ID_RE = re.compile(r"^# AOT ID: \['([^']+)'\]", re.M)


def output_modules(cache: Path) -> list[Path]:
    """The graph modules under an Inductor cache folder (not its kernel modules)."""
    found = []
    for path in cache.rglob("*.py"):
        text = path.read_text(errors="replace")
        if "async_compile = AsyncCompile()" in text and re.search(
            r"^def call\(|^\s+def call\(self, args\)", text, re.M
        ):
            found.append(path)
    return sorted(found)


def record(model: Path, out: Path, timeout: float, ground: Path | None = None) -> list[Path]:
    """Run `model` with a fresh Inductor cache; copy its output modules to `out`. With
    `ground`, the run is scripts/record_real_runs.py's (every compile logged, with its
    hash and PTX digest, into ground/<model>.json)."""
    # a fresh cache folder named by the model (its kernel modules' paths are in the PTX:
    # a capture given the same folder compiles the same bytes)
    cache = Path(CACHE_ROOT) / model.stem
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache)  # inherited by the child
    if ground is not None:
        sys.path.insert(0, str(ROOT / "scripts"))
        from record_real_runs import record as record_run

        got = record_run(
            str(model), str(ground), [], name=model.stem, timeout=timeout, inductor_cache_root=CACHE_ROOT
        )
        print(f"{model.name}: {got['status'][:100]}", file=sys.stderr)
    else:
        env = dict(
            os.environ,
            TORCHINDUCTOR_COMPILE_THREADS="1",
            TORCHINDUCTOR_FX_GRAPH_CACHE="0",
            TORCHINDUCTOR_AUTOGRAD_CACHE="0",
        )
        p = subprocess.run(
            [sys.executable, str(model)], env=env, capture_output=True, text=True, timeout=timeout
        )
        if p.returncode != 0:
            print(f"{model.name}: exit {p.returncode}\n{p.stderr[-2000:]}", file=sys.stderr)
    written = []
    for path in output_modules(cache):
        m = _AOT_ID_RE.search(path.read_text(errors="replace"))
        graph = m.group(1) if m else path.stem[:8]
        dest = out / f"{model.stem}_{graph}_output_code.py"
        shutil.copyfile(path, dest)
        written.append(dest)
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument(
        "--ground", type=Path, help="also record each model's compiles (record_real_runs.py) here"
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.ground:
        args.ground.mkdir(parents=True, exist_ok=True)
    models = args.models or sorted(MODELS.glob("*.py"))
    if len(models) > 1:  # one process per model, all at once (each compiles on its own core)
        procs = [
            subprocess.Popen(
                [sys.executable, __file__, str(m), "--out", str(args.out), "--timeout", str(args.timeout)]
                + (["--ground", str(args.ground)] if args.ground else [])
            )
            for m in models
        ]
        return max(p.wait() for p in procs)
    for model in models:
        written = record(model, args.out, args.timeout, args.ground)
        print(f"{model.name}: {', '.join(p.name for p in written) or 'no output module'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
