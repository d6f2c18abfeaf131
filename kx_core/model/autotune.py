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


def pick_best(rows):
    """Smallest median; if another row's [p20, p80] overlaps the winner's, prefer the one
    with less shared memory (more occupancy headroom, same speed within noise)."""
    winner = min(rows, key=lambda r: r["median"])
    ties = [r for r in rows if r["p20"] <= winner["p80"] and winner["p20"] <= r["p80"]]
    return min(ties, key=lambda r: (r["smem"], r["median"]))


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
