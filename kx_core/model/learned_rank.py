"""A learned correction to the ranking time, fitted on one GPU's recorded sweeps (issue 34).

The analytic ranking (kx_core.model.ranking) gets the shape of a config's time right and
its fine order wrong in ways the recordings show again and again: on the H200 a 128x256
GEMM tile runs its tensor cores closer to peak than 64x64 tiles do; BLOCK_K=32 loops pay
a fixed cost per trip that BLOCK_K=64 halves; a 32-row tile falls back to mma.sync; rows
that spread over few threads per SM wait on memory longer than the latency chain says. No
single constant of the analytic model captures them, so, as TVM's and Ansor's cost models
do, kx learns what is left: gradient-boosted regression trees over generic figures of
the compiled config (never a config's name or its block sizes: warps, stages, registers,
shared memory, programs resident and rounds, the MMA instruction's N from the TTGIR, the
loads and FLOPs a program does, the analytic time itself), added to the analytic log
time. They are fitted on a pairwise ranking loss, not on the times themselves: only
which of two configs of one shape is faster matters to a sweep, and pairs near the
shape's fastest weigh more (the winner's place in the top 3 is what the sweep needs
most). A least-squares fit of the log times ranked held-out sets less well (NOTES.md).

The trees live in kx_core/data/ranking/<gpu>.json, written by scripts/fit_ranking.py from
the rows benchmarks/sweep_rerank.py --features records (real H200 measurements, real
compiles with the H200's Triton); on any other GPU the ranking is the analytic one, and
so it is for a kind of kernel the trees were not fitted on (kind_of: an elementwise
kernel has neither the dots nor the reductions of the fitted five), said in the sweep's
notes. NOTES.md gives the fit, its leave-one-set-out figures and how it did on shapes
and kernels measured after it was committed.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from math import log, log2

import numpy as np

from kx_core.model.gpu import GPU, table_key
from kx_core.model.kernel import KernelModel
from kx_core.records.results import CompiledKernel

# the fit's settings (scripts/fit_ranking.py; chosen by leave-one-set-out on the recordings)
ROUNDS = 100
LEARNING_RATE = 0.1
DEPTH = 3
MIN_LEAF = 30
SIGMA = 10.0  # the pairwise loss's steepness: scores 10% apart are one unit of it
TOP_WEIGHT = 2.0  # a pair of the fastest config and a far slower one weighs 1 + TOP_WEIGHT
TOP_SCALE = 0.1  # how fast "near the fastest" falls off: 1/e at 10% slower

# per-program figures, each twice: once for kernels with dots, once for those without (a
# GEMM's warps and a softmax's warps mean different things)
_BASE = ("rank", "warps", "stages", "resident", "rounds", "regs", "shared", "flops_per_thread", "loads",
         "programs", "warps_per_sm", "bytes_in_flight", "reread", "bytes_per_thread", "filled")  # fmt: skip
FEATURES = tuple(f"{p}_{n}" for n in _BASE for p in ("dot", "plain")) + ("mma_n", "mma_sync")

# Example: "#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1],
#           instrShape = [16, 256, 16]}>"
_MMA_RE = re.compile(r"nvidia_mma<\{versionMajor = (\d+),[^}]*?instrShape = \[(\d+), (\d+)")


def mma_shape(ttgir: str) -> tuple[int, int] | None:
    """(version, instruction N) of the first NVIDIA MMA layout in a TTGIR text."""
    m = _MMA_RE.search(ttgir or "")
    return (int(m.group(1)), int(m.group(3))) if m else None


def features(m: KernelModel, kernel: CompiledKernel, gpu: GPU, terms) -> tuple[float, ...]:
    """The figures the trees read, in FEATURES' order (terms: the config's RankTerms)."""
    w = m.work
    meta = kernel.metadata
    dot = 1.0 if w.dot_flops else 0.0
    threads = meta.num_warps * gpu.warp_size
    programs = max(1, m.programs)
    per_load = w.bytes / programs / max(1, w.loads_per_program)
    base = {
        "rank": log(terms.total * 1e6),
        "warps": log2(meta.num_warps),
        "stages": float(meta.num_stages),
        "resident": log2(terms.resident),
        "rounds": log2(terms.rounds),
        "regs": log2(max(meta.registers or 0, 16)),
        "shared": log2((meta.shared or 0) + 1024),
        "flops_per_thread": log2(max(1.0, w.flops_per_program / threads)),
        "loads": log2(max(1, w.loads_per_program)),
        "programs": log2(programs),
        "warps_per_sm": log2(terms.resident * meta.num_warps),
        "bytes_in_flight": log2(max(1.0, terms.resident * per_load)),
        "reread": log2(max(1.0, w.bytes / max(1, w.dram_bytes or w.bytes))),
        "bytes_per_thread": log2(max(1.0, per_load / threads)),
        # the share of the last round's slots the grid fills (a wave's tail)
        "filled": log2(max(1e-3, terms.rounds * terms.resident * gpu.sm_count / programs)),
    }
    row = {
        f"{p}_{n}": v * (dot if p == "dot" else 1 - dot) for n, v in base.items() for p in ("dot", "plain")
    }
    mma = mma_shape(kernel.stages.get("ttgir", ""))
    wgmma = mma is not None and mma[0] >= 3
    row["mma_n"] = log2(mma[1] if wgmma else 8) if dot else 0.0
    row["mma_sync"] = 1.0 if dot and not wgmma else 0.0
    return tuple(row[f] for f in FEATURES)


@dataclass(frozen=True)
class Trees:
    """A fitted correction: log(measured / analytic) = learning_rate * sum of the trees."""

    gpu: str
    features: tuple[str, ...]
    learning_rate: float
    trees: tuple  # each a leaf (float) or [feature index, threshold, left, right]
    fitted_on: str = ""
    kinds: tuple[str, ...] = ()  # the kinds of kernel (kind_of) the rows had: the only ones corrected

    def correction(self, row) -> float:
        return self.learning_rate * sum(_leaf(t, row) for t in self.trees)

    def to_json(self) -> dict:
        return {"gpu": self.gpu, "features": list(self.features), "learning_rate": self.learning_rate,
                "fitted_on": self.fitted_on, "kinds": list(self.kinds), "trees": list(self.trees)}  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> Trees:
        return cls(d["gpu"], tuple(d["features"]), d["learning_rate"], tuple(d["trees"]), d.get("fitted_on", ""),
                   tuple(d.get("kinds", ())))  # fmt: skip


def _leaf(t, row) -> float:
    while not isinstance(t, float | int):
        t = t[2] if row[t[0]] <= t[1] else t[3]
    return float(t)


def trees_for(gpu: GPU | str) -> Trees | None:
    """The shipped correction for this GPU's table entry (a GPU, or a name: 'h200' for
    "NVIDIA H200"), or None (the analytic ranking)."""
    key = table_key(gpu if isinstance(gpu, str) else gpu.name)
    return _shipped(key) if key else None


def analytic_log(x: np.ndarray) -> np.ndarray:
    """The analytic log time of feature rows (FEATURES' order): a row has it as dot_rank
    or as plain_rank, the other 0."""
    return x[:, FEATURES.index("dot_rank")] + x[:, FEATURES.index("plain_rank")]


@functools.cache
def _shipped(key: str) -> Trees | None:
    from kx_core.base.data import data_path

    path = data_path("ranking", f"{key}.json")
    if not path.exists():
        return None
    trees = Trees.from_json(json.loads(path.read_text(encoding="utf-8")))
    # a file written for another feature list would read the wrong figures: refuse it
    return trees if trees.features == FEATURES else None


# what kind_of says, in a note's words
KIND_WORDS = {
    "dot": "dots without reductions (GEMMs)",
    "dot+reduce": "dots and reductions (attention)",
    "reduce": "reductions without dots (softmax, norms)",
    "elementwise": "neither dots nor reductions (elementwise)",
}


def kind_of(kernel: CompiledKernel) -> str | None:
    """The kernel's kind of work, from its TTIR: "dot", "dot+reduce", "reduce" or
    "elementwise"; None without a TTIR. Trees fitted on some kinds say nothing about the
    others (measured: a SwiGLU, elementwise, was ranked worse with them: NOTES.md)."""
    ttir = kernel.stages.get("ttir")
    if not ttir:
        return None
    dot, reduce = "tt.dot" in ttir, "tt.reduce" in ttir
    return ("dot+reduce" if reduce else "dot") if dot else ("reduce" if reduce else "elementwise")


def applies(trees: Trees | None, kernel: CompiledKernel) -> bool:
    """Whether the trees correct this kernel's ranking: fitted on its kind of work."""
    return trees is not None and kind_of(kernel) in trees.kinds


def ranking_note(gpu_name: str, kind: str | None) -> str:
    """What ranked a sweep's configs on this GPU for a kernel of this kind, for its notes."""
    trees = trees_for(gpu_name)
    if trees is None:
        return f"ranked by kx's analytic model alone: no learned correction for {gpu_name}"
    if kind not in trees.kinds:
        fitted = ", ".join(KIND_WORDS[k] for k in trees.kinds)
        what = KIND_WORDS.get(kind, "no TTIR to tell its kind")
        return (
            f"ranked by kx's analytic model alone: the learned correction for {gpu_name} was fitted on"
            f" kernels with {fitted}; this one has {what}"
        )
    return f"ranked by kx's analytic model with its learned correction for {gpu_name} (fitted on {trees.fitted_on})"


# -- fitting (scripts/fit_ranking.py and its test) ------------------------------------------


def fit(
    shapes: list[tuple[np.ndarray, np.ndarray]], gpu: str, fitted_on: str = "", kinds: tuple[str, ...] = ()
) -> Trees:
    """Trees from recorded shapes, each (feature rows, measured times), boosted on a
    pairwise ranking loss (LambdaRank's, as LightGBM's lambdarank and TVM's cost model
    use): for every two configs of a shape, log(1 + exp(SIGMA * (score of the faster -
    score of the slower))), starting from the analytic log time. A pair weighs 1, plus
    TOP_WEIGHT times how much closer one of the two is to the shape's fastest (a pair
    that decides the top 3 weighs most). Each tree is a Newton step fitted to the
    pairs' gradients. Deterministic: the same rows give the same trees."""
    xs, faster, slower, weight = [], [], [], []
    offset = 0
    for x, measured in shapes:
        lm = np.log(measured)
        near = np.exp(-(lm - lm.min()) / TOP_SCALE)  # 1 for the fastest, 1/e for one 10% slower
        for i in range(len(lm)):
            for j in range(i + 1, len(lm)):
                if lm[i] == lm[j]:
                    continue
                a, b = (i, j) if lm[i] < lm[j] else (j, i)
                faster.append(offset + a)
                slower.append(offset + b)
                weight.append(1 + TOP_WEIGHT * abs(near[a] - near[b]))
        xs.append(x)
        offset += len(lm)
    x = np.vstack(xs)
    a, b, w = np.array(faster), np.array(slower), np.array(weight)
    analytic = analytic_log(x)
    f = np.zeros(len(x))
    trees = []
    for _ in range(ROUNDS):
        score = analytic + f
        p = 1 / (1 + np.exp(-np.clip(SIGMA * (score[a] - score[b]), -30, 30)))  # each pair's wrongness
        grad, hess = np.zeros(len(x)), np.zeros(len(x))
        np.add.at(grad, a, w * p * SIGMA)
        np.add.at(grad, b, -w * p * SIGMA)
        curv = w * p * (1 - p) * SIGMA * SIGMA
        np.add.at(hess, a, curv)
        np.add.at(hess, b, curv)
        hess += 1e-9
        t = _tree(x, -grad / hess, hess, DEPTH)
        f += LEARNING_RATE * np.array([_leaf(t, r) for r in x])
        trees.append(t)
    return Trees(gpu, FEATURES, LEARNING_RATE, tuple(trees), fitted_on, tuple(sorted(kinds)))


def _tree(x: np.ndarray, g: np.ndarray, w: np.ndarray, depth: int):
    """One weighted least-squares regression tree: the split of least squared error."""
    mean = float((g * w).sum() / w.sum())
    if depth == 0 or len(g) < 2 * MIN_LEAF:
        return mean
    best = None
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        xs, gs, ws = x[order, j], g[order], w[order]
        cw, cs, cs2 = np.cumsum(ws), np.cumsum(gs * ws), np.cumsum(ws * gs * gs)
        i = np.arange(MIN_LEAF, len(gs) - MIN_LEAF + 1)
        apart = xs[i - 1] < xs[np.minimum(i, len(gs) - 1)]  # a threshold between two values
        if not apart.any():
            continue
        left = cs2[i - 1] - cs[i - 1] ** 2 / cw[i - 1]
        right = (cs2[-1] - cs2[i - 1]) - (cs[-1] - cs[i - 1]) ** 2 / (cw[-1] - cw[i - 1])
        sse = np.where(apart, left + right, np.inf)
        k = int(np.argmin(sse))
        if best is None or sse[k] < best[0]:
            best = (float(sse[k]), j, float((xs[i[k] - 1] + xs[i[k]]) / 2))
    if best is None or best[0] >= float((w * (g - mean) ** 2).sum()) - 1e-12:
        return mean
    _, j, threshold = best
    left = x[:, j] <= threshold
    return [
        j,
        threshold,
        _tree(x[left], g[left], w[left], depth - 1),
        _tree(x[~left], g[~left], w[~left], depth - 1),
    ]
