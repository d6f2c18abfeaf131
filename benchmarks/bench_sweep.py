"""How well `kx sweep`'s model ranks configs, and its wall time against triton.autotune,
on the local GPU (issue 34).

    PYTHONPATH=. python3 benchmarks/bench_sweep.py --group gemm|rows|all [--out DIR] [--only STEM] [--timeout S]

Groups: gemm = the matmul (16 configs) and persistent matmul (8) of fixtures/kernels/sweep
over their shapes; rows = softmax (12), layer norm (12), attention (8). Every config of
every shape is measured (--measure all), so Spearman's rho of the model against the
measured times and whether the winner was in the model's top 3 are over the whole space.
Then the wall-time figure: `kx sweep --measure top-k` against triton.autotune over the
same configs, both from empty Triton and kx caches, on a few shapes (--versus-autotune).
Prints per kernel: cases, mean rho, top-3 rate, mean regret of the model's pick; and the
ratio triton.autotune / kx sweep. Writes each kernel's JSON to DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWEEP = ROOT / "fixtures" / "kernels" / "sweep"

CASES = {
    "gemm": [
        ("matmul.py", "matmul_kernel", [
            "M=512,N=512,K=512", "M=1024,N=1024,K=1024", "M=2048,N=2048,K=2048", "M=4096,N=4096,K=4096",
            "M=8192,N=8192,K=1024", "M=1024,N=4096,K=4096", "M=4096,N=1024,K=4096", "M=256,N=4096,K=4096",
            "M=4096,N=4096,K=256", "M=8192,N=2048,K=2048", "M=3000,N=3000,K=3000", "M=128,N=8192,K=8192",
        ]),
        ("persistent_matmul.py", "persistent_matmul_kernel", [
            "M=1024,N=1024,K=1024", "M=2048,N=2048,K=2048", "M=4096,N=4096,K=4096", "M=8192,N=8192,K=1024",
            "M=1024,N=4096,K=4096", "M=4096,N=1024,K=4096", "M=512,N=8192,K=2048", "M=4096,N=4096,K=512",
            "M=3000,N=3000,K=3000", "M=2048,N=8192,K=4096",
        ]),
    ],
    "rows": [
        ("softmax.py", "softmax_kernel", [
            "M=4096,N=1024", "M=8192,N=512", "M=1024,N=4096", "M=2048,N=8192", "M=16384,N=256",
            "M=512,N=16384", "M=32768,N=128", "M=4096,N=2048", "M=1000,N=3000", "M=8192,N=1024",
        ]),
        ("layer_norm.py", "layer_norm_kernel", [
            "M=4096,N=1024", "M=4096,N=4096", "M=8192,N=2048", "M=1024,N=8192", "M=2048,N=16384",
            "M=16384,N=512", "M=4096,N=768", "M=8192,N=3072", "M=512,N=4096", "M=2048,N=12288",
        ]),
        ("attention.py", "attention_kernel", [
            "B=1,H=8,S=1024", "B=2,H=16,S=2048", "B=4,H=8,S=512", "B=1,H=32,S=4096", "B=8,H=16,S=256",
            "B=1,H=16,S=8192", "B=2,H=8,S=1536", "B=4,H=4,S=3000",
        ]),
    ],
}  # fmt: skip
# shapes the ranking model's constants were not fitted on (kx_core.model.ranking: fitted on
# CASES' recordings): the model judged on them, `--group validate`
VALIDATE = {
    "matmul.py": ["M=2048,N=4096,K=1024", "M=6144,N=6144,K=2048", "M=512,N=2048,K=8192", "M=8192,N=8192,K=512"],
    "persistent_matmul.py": ["M=6144,N=6144,K=2048", "M=2048,N=4096,K=1024", "M=8192,N=2048,K=4096",
                             "M=1536,N=1536,K=6144"],
    "softmax.py": ["M=6000,N=1500", "M=2048,N=2048", "M=65536,N=64", "M=3072,N=768"],
    "layer_norm.py": ["M=6000,N=1500", "M=2048,N=2048", "M=32768,N=256", "M=256,N=32768"],
    "attention.py": ["B=2,H=12,S=1024", "B=1,H=8,S=2048", "B=16,H=8,S=128", "B=3,H=6,S=2500"],
}  # fmt: skip
# shapes neither the constants nor the L2 terms (kx_core.model.ranking, 2026-12-04) were
# fitted or chosen on: `--group validate2`
VALIDATE2 = {
    "matmul.py": ["M=3072,N=3072,K=3072", "M=1536,N=6144,K=1024", "M=768,N=768,K=4096", "M=8192,N=4096,K=768"],
    "persistent_matmul.py": ["M=3072,N=3072,K=3072", "M=1024,N=8192,K=1024", "M=6144,N=2048,K=2048",
                             "M=768,N=768,K=4096"],
    "softmax.py": ["M=12288,N=768", "M=3000,N=5000", "M=2048,N=3072", "M=24576,N=192"],
    "layer_norm.py": ["M=12288,N=768", "M=3000,N=5000", "M=1536,N=6144", "M=65536,N=128"],
    "attention.py": ["B=2,H=16,S=768", "B=1,H=24,S=2048", "B=8,H=8,S=384", "B=4,H=12,S=1280"],
}  # fmt: skip
# shapes measured after the model of 2026-12-04 was committed (its L2 terms, the busiest
# program): `--group validate3`, the figure no choice of the model has seen
VALIDATE3 = {
    "matmul.py": ["M=2560,N=2560,K=2560", "M=4096,N=2048,K=512", "M=1024,N=2048,K=8192", "M=6144,N=1024,K=2048"],
    "persistent_matmul.py": ["M=2560,N=2560,K=2560", "M=4096,N=2048,K=512", "M=512,N=4096,K=4096",
                             "M=8192,N=8192,K=512"],
    "softmax.py": ["M=6144,N=1024", "M=1536,N=6144", "M=20000,N=300", "M=4096,N=4096"],
    "layer_norm.py": ["M=6144,N=1024", "M=1536,N=8192", "M=20000,N=300", "M=3072,N=2048"],
    "attention.py": ["B=1,H=16,S=3072", "B=4,H=16,S=512", "B=2,H=4,S=4096", "B=6,H=8,S=640"],
}  # fmt: skip


def _both_gemms_both_rows(gemm: list[str], rows: list[str], attention: list[str]) -> dict[str, list[str]]:
    """A validation set from validate4 on: both GEMM kernels at the same shapes, both row
    kernels (softmax, layer norm) at the same shapes."""
    return {"matmul.py": gemm, "persistent_matmul.py": gemm, "softmax.py": rows, "layer_norm.py": rows,
            "attention.py": attention}  # fmt: skip


# shapes chosen and measured after the learned correction (kx_core.model.learned_rank)
# was fitted on every set above and committed: `--group validate4`, its unseen figure
VALIDATE4 = _both_gemms_both_rows(
    gemm=["M=4096,N=3072,K=1536", "M=1024,N=1024,K=8192", "M=5120,N=5120,K=1024", "M=2048,N=6144,K=3072",
          "M=12288,N=1536,K=1024", "M=1536,N=1536,K=1536"],
    rows=["M=10240,N=640", "M=2560,N=2560", "M=49152,N=96", "M=1024,N=12288", "M=5000,N=2000", "M=16384,N=1536"],
    attention=["B=2,H=8,S=2560", "B=1,H=12,S=6144", "B=12,H=8,S=256", "B=3,H=16,S=1024", "B=1,H=4,S=5000",
               "B=5,H=10,S=896"],
)  # fmt: skip
# shapes chosen and measured after the pairwise-fitted trees (fitted on every set above,
# validate4 included) were committed: `--group validate5`
VALIDATE5 = _both_gemms_both_rows(
    gemm=["M=3584,N=3584,K=2048", "M=2048,N=1024,K=6144", "M=7168,N=2048,K=1536", "M=1024,N=5120,K=2560",
          "M=640,N=4096,K=4096", "M=10240,N=10240,K=256"],
    rows=["M=7168,N=896", "M=3584,N=3584", "M=40960,N=160", "M=768,N=10240", "M=6000,N=2500", "M=20480,N=1280"],
    attention=["B=2,H=8,S=3584", "B=1,H=20,S=2560", "B=10,H=8,S=320", "B=2,H=24,S=1152", "B=1,H=6,S=7000",
               "B=6,H=6,S=1536"],
)  # fmt: skip
# more shapes for the same trees, chosen and measured after validate5 came back (the trees
# unchanged): `--group validate6`; with validate5, 60 shapes the shipped trees never saw
VALIDATE6 = _both_gemms_both_rows(
    gemm=["M=2304,N=4608,K=2304", "M=4608,N=768,K=3072", "M=896,N=2816,K=5632", "M=6656,N=6656,K=768",
          "M=3328,N=1792,K=4352", "M=1152,N=1152,K=12288"],
    rows=["M=9216,N=1152", "M=1792,N=7168", "M=30000,N=500", "M=14336,N=384", "M=2500,N=4000", "M=5632,N=2816"],
    attention=["B=3,H=8,S=1792", "B=1,H=16,S=4608", "B=16,H=4,S=448", "B=2,H=12,S=2304", "B=7,H=8,S=640",
               "B=1,H=28,S=1536"],
)  # fmt: skip
# kernels the learned ranking was never fitted on (an elementwise SwiGLU, a batched GEMM):
# `--group newkernels`, how the trees do on an unfamiliar kernel
NEWKERNELS = [
    ("swiglu.py", "swiglu_kernel", ["N=1048576", "N=4194304", "N=16777216", "N=3000000", "N=67108864",
                                    "N=50000000"]),
    ("bmm.py", "bmm_kernel", ["B=16,M=512,N=512,K=512", "B=64,M=256,N=256,K=128", "B=8,M=1024,N=1024,K=1024",
                              "B=4,M=2048,N=512,K=2048", "B=32,M=384,N=384,K=768", "B=2,M=4096,N=4096,K=512"]),
]  # fmt: skip
# the wall-time figure: a few shapes of each GEMM kernel, top-k against triton.autotune
VERSUS = {
    "matmul.py": ["M=4096,N=4096,K=4096", "M=1024,N=4096,K=4096"],
    "softmax.py": ["M=4096,N=1024", "M=1000,N=3000"],
}


def sweep(
    file: str, kernel: str, shapes: list[str], extra: list[str], env: dict, timeout: float
) -> dict | None:
    # the sweep stops itself short of the timeout, so a slow kernel keeps what it measured
    cmd = [sys.executable, "-m", "kx_core.cli", "sweep", str(SWEEP / file), "--kernel", kernel, "--json"]
    cmd += ["--deadline", str(max(timeout - 30, timeout * 0.8))]
    for s in shapes:
        cmd += ["--shape", s]
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd + extra, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        print(f"{file}: timed out after {timeout:.0f} s", flush=True)
        return None
    wall = time.perf_counter() - start
    if p.returncode not in (0, 4) or not p.stdout.strip():
        print(f"{file}: exit {p.returncode}\n{p.stderr[-3000:]}", flush=True)
        return None
    out = json.loads(p.stdout)
    out["process_wall_s"] = wall
    return out


def report(name: str, r: dict) -> dict:
    cases = [c for c in r["cases"] if c.get("winner")]
    rhos = [c["spearman"] for c in cases if c["spearman"] is not None]
    row = {
        "kernel": name,
        "cases": len(cases),
        "configs": max((len(c["configs"]) for c in r["cases"]), default=0),
        "mean_spearman": statistics.fmean(rhos) if rhos else None,
        "top3": sum(1 for c in cases if c["winner_in_top3"]) / len(cases) if cases else None,
        "mean_regret_model": statistics.fmean([c["regret_model"] for c in cases]) if cases else None,
        "errors": [c["error"] for c in r["cases"] if c.get("error")],
        "stopped": r.get("stopped"),
    }
    print(json.dumps(row), flush=True)
    for c in r["cases"]:
        print(f"   {c['shape']}: rho {c['spearman']}, top3 {c['winner_in_top3']}, winner {c['winner']}, "
              f"pick {c['model_pick']}, regret {c['regret_model']}", flush=True)  # fmt: skip
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--group",
        choices=[
            "gemm",
            "rows",
            "all",
            "versus",
            "validate",
            "validate2",
            "validate3",
            "validate4",
            "validate5",
            "validate6",
            "newkernels",
        ],
        default="all",
    )
    ap.add_argument("--out", default=".")
    ap.add_argument("--timeout", type=float, default=280.0, help="per kernel's sweep")
    # one kernel per call: a device call has 10 minutes, and the rows group's softmax
    # alone ran past 150 s (its 10 shapes x 12 configs, every one measured)
    ap.add_argument("--only", help="only these fixtures (file stems, commas: softmax,attention)")
    # a kernel's later shapes only, after a run that stopped at its deadline (own JSON name)
    ap.add_argument("--from-shape", type=int, default=0, help="start at this shape index of --only's list")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    groups = ["gemm", "rows"] if args.group == "all" else [] if args.group == "versus" else [args.group]
    rows = []
    cases = dict(CASES)
    kernels = {f: k for g in CASES.values() for f, k, _ in g}
    cases["validate"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE.items()]
    cases["validate2"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE2.items()]
    cases["validate3"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE3.items()]
    cases["validate4"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE4.items()]
    cases["validate5"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE5.items()]
    cases["validate6"] = [(f, kernels[f], shapes) for f, shapes in VALIDATE6.items()]
    cases["newkernels"] = NEWKERNELS
    prefix = args.group if args.group.startswith("validate") or args.group == "newkernels" else "sweep"
    for g in groups:
        for file, kernel, shapes in cases[g]:
            if args.only and Path(file).stem not in args.only.split(","):
                continue
            tail = f"_from{args.from_shape}" if args.from_shape else ""
            shapes = shapes[args.from_shape :]
            r = sweep(file, kernel, shapes, ["--measure", "all"], dict(os.environ), args.timeout)
            if r is None:
                continue
            Path(args.out, f"{prefix}_{Path(file).stem}{tail}.json").write_text(json.dumps(r))
            rows.append(report(kernel, r))
    if args.group in ("all", "versus"):
        for file, shapes in VERSUS.items():
            kernel = next(k for g in CASES.values() for f, k, _ in g if f == file)
            with tempfile.TemporaryDirectory() as cache:  # both sides from empty caches
                env = dict(
                    os.environ,
                    TRITON_CACHE_DIR=os.path.join(cache, "triton"),
                    KX_CACHE_DIR=os.path.join(cache, "kx"),
                )
                r = sweep(
                    file, kernel, shapes, ["--measure", "top-k", "--versus-autotune"], env, args.timeout
                )
            if r is None:
                continue
            Path(args.out, f"versus_{Path(file).stem}.json").write_text(json.dumps(r))
            ref, own = r.get("triton_autotune_s"), r["wall_s"]
            print(json.dumps({"versus": file, "shapes": len(shapes), "kx_sweep_s": own, "process_s": r["process_wall_s"],
                              "triton_autotune_s": ref, "ratio_triton_over_kx": ref / own if ref else None,
                              "same_winner": [c["winner"] == c["triton_pick"] for c in r["cases"]]}), flush=True)  # fmt: skip
    if rows:
        cases = sum(r["cases"] for r in rows)
        print(f"{cases} cases; per kernel above", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
