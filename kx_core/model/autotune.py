"""T3 · GEMM tile / resource sweep, the way triton.autotune does it.

python/triton/runtime/autotuner.py runs, per new key:
    configs -> early_config_prune(configs, nargs)       # drop configs that cannot work
            -> perf_model + top_k                        # keep only the k most promising
            -> do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))  # measure the survivors
            -> pick the smallest median
The same pipeline, with K1's resource model for pruning and prediction and `measure`
injectable: a real Triton launch on a GPU, the model itself (plus a config-specific
factor and seeded noise) without one. Names and semantics are the drill's."""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import dataclass
from itertools import product
from math import ceil

from kx_core.model.gemm import (  # noqa: F401 - RTX3070 and gemm_flops are part of the drill's surface
    RTX3070,
    TileConfig,
    gemm_flops,
    occupancy,
    roofline,
    smem_bytes,
    tiled_bytes,
)


def config_space(
    BM=(32, 64, 128, 256), BN=(32, 64, 128, 256), BK=(32, 64), num_warps=(4, 8), num_stages=(2, 3, 4)
):
    return [TileConfig(*c) for c in product(BM, BN, BK, num_warps, num_stages)]


def early_prune(configs, gpu, M, N, K):
    """Drop configs that cannot launch (K1 occupancy invalid) or whose tile is pointlessly
    larger than the problem (BM > 2 * M, likewise BN and BK)."""
    return [
        c for c in configs if occupancy(gpu, c)["valid"] and c.BM <= 2 * M and c.BN <= 2 * N and c.BK <= 2 * K
    ]


def perf_model(gpu, M, N, K, c, in_bytes=2):
    """Predicted seconds = max(compute with wave quantization, DRAM traffic) + launch.

    Tiles run in waves of sm_count * blocks_per_sm CTAs; a partly empty last wave still
    costs a full wave: compute = waves * per_wave * tile_flops / peak."""
    blocks = occupancy(gpu, c, in_bytes)["blocks"]
    if blocks == 0:
        return float("inf")
    tiles = ceil(M / c.BM) * ceil(N / c.BN)
    per_wave = gpu.sm_count * blocks
    n_waves = ceil(tiles / per_wave)
    t_compute = n_waves * per_wave * (2 * c.BM * c.BN * K) / gpu.peak_flops
    t_memory = tiled_bytes(M, N, K, c, in_bytes, in_bytes) / gpu.peak_bw
    return max(t_compute, t_memory) + gpu.launch_overhead


def top_k(configs, model, k):
    """The k configs with the smallest predicted time (stable on ties)."""
    return sorted(configs, key=model)[:k]


def quantiles(samples, qs=(0.5, 0.2, 0.8)):
    """Linear-interpolated quantiles, as torch.quantile (do_bench's) computes them."""
    xs = sorted(samples)
    out = []
    for q in qs:
        pos = q * (len(xs) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(xs) - 1)
        out.append(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))
    return tuple(out)


def sweep(configs, measure, repeats=25):
    """Measure each config `repeats` times. Rows: cfg fields + median/p20/p80/cv/smem."""
    rows = []
    for c in configs:
        samples = [measure(c) for _ in range(repeats)]
        med, p20, p80 = quantiles(samples)
        mean = statistics.fmean(samples)
        rows.append(
            {
                "BM": c.BM,
                "BN": c.BN,
                "BK": c.BK,
                "num_warps": c.num_warps,
                "num_stages": c.num_stages,
                "median": med,
                "p20": p20,
                "p80": p80,
                "cv": statistics.pstdev(samples) / mean if mean else 0.0,
                "smem": smem_bytes(c),
            }
        )
    return rows


@dataclass(frozen=True)
class Pick:
    """The row `pick_best` picks, the rows it tied with, and the rule that decided.

    rule: 'smallest median' (no tie), or the tie-break that settled it: 'least shared
    memory', 'least shared memory, then smallest median', 'least shared memory, then
    first ranked' (equal on both: the first in the order measured, which is top_k's: the
    model's ranking, equal model times in the config space's order)."""

    row: dict
    tied: tuple[dict, ...]  # rows within noise of the fastest, the picked one among them
    rule: str
    measured: int  # rows measured

    def text(self) -> str:
        """One sentence: the tie, if any, and the rule that broke it (times in µs)."""
        if len(self.tied) == 1:
            return f"picked by the smallest median ({self.row['median'] * 1e6:.3f} µs): no other config within its noise"
        medians = {r["median"] for r in self.tied}
        fastest = min(medians)
        how = (
            f"all at {fastest * 1e6:.3f} µs"
            if len(medians) == 1
            else f"their p20-p80 overlap the fastest's ({fastest * 1e6:.3f} µs median)"
        )
        least = sum(r["smem"] == self.row["smem"] for r in self.tied)
        broken = f"the least shared memory ({self.row['smem']} B)"
        if self.rule.endswith("smallest median"):
            broken += f", which {least} share, then the smallest median ({self.row['median'] * 1e6:.3f} µs)"
        elif self.rule.endswith("first ranked"):
            broken += (
                f", which {least} share at the same median, then the first in the model's top-k order "
                "(equal model times keep the config space's order)"
            )
        return f"{len(self.tied)} of {self.measured} configs tie ({how}); the tie is broken by {broken}"


def explain_pick(rows) -> Pick:
    """Smallest median; if another row's [p20, p80] overlaps the winner's, prefer the one
    with less shared memory (more occupancy headroom, same speed within noise), then the
    smaller median, then the first in the rows' order. Said: which rows tied and which rule decided."""
    winner = min(rows, key=lambda r: r["median"])
    ties = [r for r in rows if r["p20"] <= winner["p80"] and winner["p20"] <= r["p80"]]
    row = min(ties, key=lambda r: (r["smem"], r["median"]))  # min keeps the first of equals
    if len(ties) == 1:
        rule = "smallest median"
    else:
        least = [r for r in ties if r["smem"] == row["smem"]]
        if len(least) == 1:
            rule = "least shared memory"
        elif sum(r["median"] == row["median"] for r in least) == 1:
            rule = "least shared memory, then smallest median"
        else:
            rule = "least shared memory, then first ranked"
    return Pick(row, tuple(ties), rule, len(rows))


def pick_best(rows):
    """The row `explain_pick` picks."""
    return explain_pick(rows).row


def bound(gpu, M, N, K, c):
    """'memory' | 'compute' | 'launch' from the K1 roofline of this config's real traffic."""
    return roofline(gpu, gemm_flops(M, N, K), tiled_bytes(M, N, K, c))["bound"]


def floor_bound(gpu, M, N, K, in_bytes=2, out_bytes=2):
    """(seconds, 'compute' | 'memory' | 'launch') as kx's roofline places the GEMM: its
    compulsory traffic (A and B read once, C written once), re-reads served by L2. This is
    what the Roofline pane and the CLI say; `bound` above is the drill's tiled-traffic
    figure, with no L2 (a 4096^3 fp16 GEMM is 'memory' there, 'compute' here)."""
    from kx_core.model.gemm import gemm_min_bytes
    from kx_core.model.roofline import roofline as placed

    r = placed(gpu, gemm_flops(M, N, K), gemm_min_bytes(M, N, K, in_bytes, out_bytes))
    return r.time_s, r.bound


def to_csv(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def autotune(gpu, M, N, K, measure, configs=None, k=8, repeats=25):
    """prune -> perf_model top-k -> sweep -> pick. Returns (best_row, rows, n_pruned)."""
    configs = config_space() if configs is None else configs
    alive = early_prune(configs, gpu, M, N, K)
    top = top_k(alive, lambda c: perf_model(gpu, M, N, K, c), k)
    rows = sweep(top, measure, repeats)
    return pick_best(rows), rows, len(configs) - len(alive)
