"""Fit the sweep ranking's learned correction from recorded H200 sweeps (issue 34).

    python benchmarks/sweep_rerank.py --validate --analytic --features benchmarks/sweep_h200/ranking_rows.jsonl
    python scripts/fit_ranking.py [--rows benchmarks/sweep_h200/ranking_rows.jsonl] [--write]

The rows are every measured config of every recorded shape (benchmarks/sweep_h200/*.json,
measured on the H200 by benchmarks/bench_sweep.py), with the features kx computes from
the config's real compile with the H200's Triton (kx_core.model.learned_rank.features).
This prints, for each fitted recording set held out in turn (sweep, validate, validate2,
validate3, validate4: measured on different days, each after the model of its day was
fixed), the analytic ranking's and the learned one's mean Spearman rho and top-3
rate on that set with trees fitted on the others; then fits on all of them and, with
--write, writes kx_core/data/ranking/h200.json, the file kx ships; a set recorded after
that (validate5) is judged by those trees.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.base.stats import spearman  # noqa: E402
from kx_core.model.learned_rank import Trees, analytic_log, fit  # noqa: E402

ROWS = ROOT / "benchmarks" / "sweep_h200" / "ranking_rows.jsonl"
OUT = ROOT / "kx_core" / "data" / "ranking" / "h200.json"
# the sets the shipped trees are fitted on; a set recorded later (validate5: measured after
# the trees were committed) is judged by them, never fitted on
FITTED = ("sweep", "validate", "validate2", "validate3", "validate4")


def shapes_of(path: Path) -> dict[str, list[tuple[str, str, str, np.ndarray, np.ndarray]]]:
    """{recording set: [(kernel, shape, its kind of work, feature rows, measured times), ...]}
    in file order."""
    grouped: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        shape = ",".join(f"{k}={v}" for k, v in row["shape"].items())
        grouped[(row["recording"].split("_")[0], row["kernel"], shape)].append(row)
    sets: dict[str, list] = defaultdict(list)
    for (name, kernel, shape), rows in grouped.items():
        x = np.array([r["features"] for r in rows], dtype=float)
        sets[name].append((kernel, shape, rows[0]["kind"], x, np.array([r["measured_us"] for r in rows])))
    return dict(sets)


def kinds_of(sets) -> tuple[str, ...]:
    """The kinds of kernel (learned_rank.kind_of) the fitted sets hold: the trees correct those only."""
    return tuple(
        sorted({kind for name, shapes in sets.items() if name in FITTED for _, _, kind, _, _ in shapes})
    )


def judge(shapes, trees: Trees | None) -> dict[str, tuple[float, float]]:
    """{kernel or 'all': (mean Spearman rho, share of shapes with the winner in the top 3)}."""
    per: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for kernel, _, kind, x, measured in shapes:
        score = analytic_log(x)
        if trees is not None and kind in trees.kinds:  # as kx ranks (learned_rank.applies)
            score = score + np.array([trees.correction(r) for r in x])
        rho = spearman(list(score), list(measured)) or 0.0
        top3 = measured[np.argsort(score, kind="stable")[:3]].min() == measured.min()
        per[kernel].append((rho, top3))
        per["all"].append((rho, top3))
    return {k: (statistics.fmean(r for r, _ in v), sum(t for _, t in v) / len(v)) for k, v in per.items()}


def held_out(sets) -> list[tuple[str, dict, dict]]:
    """(set, analytic figures, learned figures) for each fitted set held out of the fit in turn."""
    out = []
    for name in (n for n in sets if n in FITTED):
        train = [
            (x, m)
            for other, shapes in sets.items()
            if other != name and other in FITTED
            for *_, x, m in shapes
        ]
        trees = fit(train, "h200", kinds=kinds_of(sets))
        out.append((name, judge(sets[name], None), judge(sets[name], trees)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default=str(ROWS))
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = ap.parse_args()
    sets = shapes_of(Path(args.rows))
    for name, analytic, learned in held_out(sets):
        a, lr = analytic["all"], learned["all"]
        kernels = ", ".join(
            f"{k.removesuffix('_kernel')} {v[0]:.2f}/{v[1]:.0%}" for k, v in learned.items() if k != "all"
        )
        print(f"held out {name:10s} {len(sets[name]):3d} shapes: analytic rho {a[0]:.3f} top3 {a[1]:.0%}, "
              f"learned rho {lr[0]:.3f} top3 {lr[1]:.0%}  ({kernels})")  # fmt: skip
    fitted = {n: s for n, s in sets.items() if n in FITTED}
    everything = [(x, m) for shapes in fitted.values() for *_, x, m in shapes]
    counts = ", ".join(f"{n} {len(s)}" for n, s in fitted.items())
    trees = fit(everything, "h200", f"{sum(len(s) for s in fitted.values())} recorded H200 shapes: {counts}",
                kinds_of(sets))  # fmt: skip
    inside = judge([s for v in fitted.values() for s in v], trees)["all"]
    print(f"fitted on {counts}: {len(trees.trees)} trees; in sample rho {inside[0]:.3f} top3 {inside[1]:.0%}")
    for name in (n for n in sets if n not in FITTED):  # recorded after the fit: unseen
        a, lr = judge(sets[name], None), judge(sets[name], trees)
        kernels = ", ".join(
            f"{k.removesuffix('_kernel')} {v[0]:.2f}/{v[1]:.0%}" for k, v in lr.items() if k != "all"
        )
        print(f"unseen {name:10s} {len(sets[name]):3d} shapes: analytic rho {a['all'][0]:.3f} top3 {a['all'][1]:.0%}, "
              f"learned rho {lr['all'][0]:.3f} top3 {lr['all'][1]:.0%}  ({kernels})")  # fmt: skip
    # the later shapes of the fitted kernels together (newkernels: kernels never fitted, apart)
    unseen = [s for n, v in sets.items() if n not in FITTED and n.startswith("validate") for s in v]
    if unseen:
        a, lr = judge(unseen, None)["all"], judge(unseen, trees)["all"]
        print(f"unseen validate sets, {len(unseen):3d} shapes: analytic rho {a[0]:.3f} top3 {a[1]:.0%}, "
              f"learned rho {lr[0]:.3f} top3 {lr[1]:.0%}")  # fmt: skip
    if args.write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(trees.to_json()) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
