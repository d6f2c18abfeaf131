"""The sweep model's rank accuracy on recorded H200 measurements, without a GPU (issue 34).

    python benchmarks/sweep_rerank.py [--triton 3.6.0] [--cache DIR]

benchmarks/sweep_h200/sweep_*.json hold what `benchmarks/bench_sweep.py` measured on the
H200 (every config of every shape, --measure all). This compiles each recorded shape's
driver here for cuda:90 with the Triton version the H200 ran (a managed one: `kx versions
add 3.6.0`), so the records are the H200's own builds, ranks the configs with kx's model
(kx_core.sweep.rank, on the H200's spec), and prints per kernel the mean Spearman rho of
the model against the recorded times, the share of shapes whose measured winner is in the
model's top 3, and the mean regret of its pick. Compiles are cached in DIR (records as
JSON), so a model change is re-judged in seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.base.stats import spearman  # noqa: E402
from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.model.gpu import spec  # noqa: E402
from kx_core.records.results import CompileResult  # noqa: E402
from kx_core.sweep.driver import script  # noqa: E402
from kx_core.sweep.rank import figures  # noqa: E402
from kx_core.sweep.space import shape_label  # noqa: E402


def compiled(file: str, kernel: str, shape: dict, python: str | None, cache: Path) -> CompileResult:
    key = cache / f"{kernel}_{shape_label(shape).replace(',', '_').replace('=', '')}.json"
    if key.exists():
        return CompileResult.from_json(json.loads(key.read_text()))
    # one driver path for every shape of a kernel, as the sweep has (compile_side.py):
    # Triton's cache, kept per driver file, serves the configs the shapes share
    (cache / f"driver_{kernel}").mkdir(exist_ok=True)
    driver = cache / f"driver_{kernel}" / "kx_sweep_driver.py"
    driver.write_text(script(file, kernel, None, shape, None))
    result = compile_file(CompileRequest(str(driver), target="cuda:90", python=python, timeout_s=900))
    key.write_text(json.dumps(result.to_json()))
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triton", default="3.6.0")
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "kx-sweep-rerank"))
    ap.add_argument("--show", action="store_true", help="every shape's figures")
    ap.add_argument("--validate", action="store_true", help="the validate*_*.json recordings too")
    ap.add_argument("--dump", help="write every measured config's figures and model terms here (JSON lines)")
    ap.add_argument(
        "--features",
        help="write every measured config's learned-ranking features here "
        "(JSON lines: what scripts/fit_ranking.py fits on)",
    )
    ap.add_argument("--analytic", action="store_true", help="rank without the learned correction")
    ap.add_argument(
        "--jobs", type=int, default=1, help="kernels compiled at once before ranking (a cold cache)"
    )
    args = ap.parse_args()
    from kx_core.base.triton_envs import python_for

    python = python_for(args.triton) if args.triton else None
    cache = Path(args.cache) / (args.triton or "own")
    cache.mkdir(parents=True, exist_ok=True)
    gpu = spec("h200")
    folder = ROOT / "benchmarks" / "sweep_h200"
    sets = (
        ("sweep", "validate", "validate2", "validate3", "validate4", "validate5", "validate6", "newkernels")
        if args.validate
        else ("sweep",)
    )
    recordings = [p for name in sets for p in sorted(folder.glob(f"{name}_*.json"))]
    if args.jobs > 1:
        _warm(recordings, python, cache, args.jobs)
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None
    rows = open(args.features, "w", encoding="utf-8") if args.features else None
    for recorded in recordings:
        r = json.loads(recorded.read_text())
        if "cases" not in r:  # sweep_gpus.json, sweep_ship.json: wall-time runs
            continue
        rhos, top3, regrets = [], [], []
        for c in r["cases"]:
            measured = {f["label"]: f["measured_us"] for f in c["configs"] if f["measured_us"]}
            if not measured:
                continue
            result = compiled(r["file"], r["kernel"], c["shape"], python, cache)
            figs = figures(result, r["kernel"], gpu, learned=not args.analytic)
            figs = [f for f in figs if f.label in measured and f.model_rank]
            if dump:
                _dump(dump, recorded.stem, r["kernel"], c["shape"], result, measured, gpu)
            if rows:
                _features(rows, recorded.stem, r["kernel"], c["shape"], result, measured, gpu)
            rho = spearman([f.rank_us for f in figs], [measured[f.label] for f in figs])
            best = min(measured.values())
            ranked = sorted(figs, key=lambda f: f.model_rank)
            in3 = min(measured[f.label] for f in ranked[:3]) == best
            regret = measured[ranked[0].label] / best - 1
            rhos.append(rho if rho is not None else 0.0)
            top3.append(in3)
            regrets.append(regret)
            if args.show:
                print(f"  {shape_label(c['shape'])}: rho {rho}, top3 {in3}, regret {regret:.3f}")
        print(json.dumps({"recording": recorded.stem, "kernel": r["kernel"], "cases": len(rhos), "mean_spearman": statistics.fmean(rhos),
                          "top3": sum(top3) / len(top3), "mean_regret": statistics.fmean(regrets)}), flush=True)  # fmt: skip
    return 0


def _warm(recordings: list[Path], python: str | None, cache: Path, jobs: int) -> None:
    """Compile every recorded shape into the cache, one kernel per thread (each kernel has
    its own driver folder, so two kernels never share a driver file)."""
    from concurrent.futures import ThreadPoolExecutor

    per_kernel: dict[str, list[tuple[str, dict]]] = {}
    for recorded in recordings:
        r = json.loads(recorded.read_text())
        for c in r.get("cases", ()):
            per_kernel.setdefault(r["kernel"], []).append((r["file"], c["shape"]))

    def one(kernel: str) -> None:
        for file, shape in per_kernel[kernel]:
            compiled(file, kernel, shape, python, cache)

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, per_kernel))


def _features(
    out, recording: str, kernel: str, shape: dict, result: CompileResult, measured: dict, gpu
) -> None:
    """One JSON line per measured config: the learned ranking's features of it and its time."""
    from kx_core.model.kernel import model_kernel
    from kx_core.model.learned_rank import features, kind_of
    from kx_core.model.ranking import rank_terms

    for k in result.kernels:
        if k.name != kernel or k.config is None or k.config.label not in measured or k.status != "compiled":
            continue
        m = model_kernel(k, gpu)
        terms = rank_terms(m, k, gpu)
        if terms is None:
            continue
        row = {"recording": recording, "kernel": kernel, "shape": shape, "label": k.config.label,
               "measured_us": measured[k.config.label], "kind": kind_of(k),
               "features": [round(v, 9) for v in features(m, k, gpu, terms)]}  # fmt: skip
        out.write(json.dumps(row) + "\n")


def _dump(out, recording: str, kernel: str, shape: dict, result: CompileResult, measured: dict, gpu) -> None:
    """One JSON line per measured config: its figures and the ranking model's terms."""
    import dataclasses

    from kx_core.model.kernel import model_kernel
    from kx_core.model.ranking import rank_terms

    for k in result.kernels:
        if k.name != kernel or k.config is None or k.config.label not in measured or k.status != "compiled":
            continue
        m = model_kernel(k, gpu)
        t = rank_terms(m, k, gpu)
        w = m.work
        row = {
            "recording": recording, "kernel": kernel, "shape": shape, "label": k.config.label,
            "measured_us": measured[k.config.label], "kwargs": dict(k.config.kwargs),
            "num_warps": k.metadata.num_warps, "num_stages": k.metadata.num_stages,
            "registers": k.metadata.registers, "spills": k.metadata.spills, "shared": k.metadata.shared,
            "stack": k.metadata.stack, "programs": m.programs,
            "blocks": m.occupancy.blocks if m.occupancy else None,
            "loads_per_program": w.loads_per_program, "dot_flops": w.dot_flops,
            "flops_per_program": w.flops_per_program, "bytes": w.bytes, "dram_bytes": w.dram_bytes,
            "modeled_us": m.modeled_s * 1e6,
            "terms": dataclasses.asdict(t) if t else None, "rank_us": t.total * 1e6 if t else None,
        }  # fmt: skip
        out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
