"""K1 · GEMM tile & resource model: predict, before running anything, a GEMM config's
FLOPs, DRAM bytes (minimum and tiled), shared memory, registers, occupancy and its
limiter, waves and tail, and the roofline bound. Names and semantics are the drill's;
`GPU` is kx_core.model.gpu's spec (the drill's fields, and more)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import ceil

from kx_core.model.gpu import GPU, RTX3070  # noqa: F401 - RTX3070 is part of the drill's surface


@dataclass(frozen=True)
class TileConfig:
    BM: int
    BN: int
    BK: int
    num_warps: int = 4
    num_stages: int = 3


# The separators a GEMM shape is written with. Examples: "4096x4096x4096", "4096 4096 4096",
# "4096, 4096, 4096", "4096*4096*4096"
_SHAPE_SEPARATOR_RE = re.compile(r"\s*[x×*,]\s*|\s+")


def parse_gemm_shape(text: str) -> tuple[int, int, int]:
    """'4096x4096x4096' (or '4096 4096 4096', '4096, 4096, 4096') -> (M, N, K), each a
    positive size. Raises ValueError saying what was expected."""
    parts = [p for p in _SHAPE_SEPARATOR_RE.split(text.strip().lower()) if p]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{text!r}: expected M N K (or MxNxK), like 4096 4096 4096") from None
    if len(dims) != 3 or any(n <= 0 for n in dims):
        raise ValueError(f"{text!r}: three positive sizes M N K (or MxNxK), like 4096 4096 4096")
    return dims


def gemm_flops(M, N, K):
    """One multiply + one add per (m, n, k)."""
    return 2 * M * N * K


def gemm_min_bytes(M, N, K, in_bytes=2, out_bytes=2):
    """Read A and B once, write C once: the lower bound on DRAM traffic."""
    return (M * K + K * N) * in_bytes + M * N * out_bytes


def arithmetic_intensity(flops, nbytes):
    return flops / nbytes if nbytes else float("inf")


def tiled_bytes(M, N, K, cfg: TileConfig, in_bytes=2, out_bytes=2):
    """Bytes a tiled kernel loads from DRAM (ignoring L2 hits): A once per column of
    tiles, B once per row of tiles, C written once; partial tiles count whole."""
    return M * K * in_bytes * ceil(N / cfg.BN) + K * N * in_bytes * ceil(M / cfg.BM) + M * N * out_bytes


def smem_bytes(cfg: TileConfig, in_bytes=2):
    """num_stages copies of one A tile (BM x BK) and one B tile (BK x BN)."""
    return cfg.num_stages * (cfg.BM * cfg.BK + cfg.BK * cfg.BN) * in_bytes


def threads(cfg: TileConfig):
    return cfg.num_warps * 32


def regs_per_thread(cfg: TileConfig, overhead=40):
    """The fp32 accumulator tile spread over the CTA's threads, plus a fixed overhead
    (addresses, counters, operand fragments). ptxas's real count is in the cubin."""
    return cfg.BM * cfg.BN // threads(cfg) + overhead


def occupancy_from(gpu: GPU, n_threads: int, regs: int, smem: int) -> dict:
    """CTAs resident per SM for a CTA of n_threads threads using `regs` registers each
    and `smem` bytes of shared memory, with the limiting resource (K1's arithmetic,
    no allocation granularity: see kx_core.model.occupancy for the hardware's)."""
    if smem > gpu.smem_per_block:
        return {
            "blocks": 0,
            "limiter": "smem",
            "valid": False,
            "reason": f"{smem} B > {gpu.smem_per_block} B per block",
        }
    if regs > gpu.max_regs_per_thread:
        return {
            "blocks": 0,
            "limiter": "regs",
            "valid": False,
            "reason": f"{regs} registers > {gpu.max_regs_per_thread} per thread (spills)",
        }
    if n_threads > gpu.max_threads_per_block:
        return {"blocks": 0, "limiter": "threads", "valid": False, "reason": f"{n_threads} threads per block"}
    limits = {
        "threads": gpu.max_threads_per_sm // n_threads,
        "regs": gpu.regs_per_sm // (regs * n_threads),
        "smem": gpu.smem_per_sm // smem if smem else gpu.max_blocks_per_sm,
        "blocks": gpu.max_blocks_per_sm,
    }
    limiter = min(limits, key=lambda k: limits[k])  # first on ties: threads, regs, smem, blocks
    blocks = limits[limiter]
    if blocks == 0:
        return {"blocks": 0, "limiter": limiter, "valid": False, "reason": f"not one CTA fits ({limiter})"}
    return {"blocks": blocks, "limiter": limiter, "valid": True, "reason": ""}


def occupancy(gpu: GPU, cfg: TileConfig, in_bytes=2):
    """CTAs that can be resident on one SM, and which resource is the limit.
    Returns {"blocks": int, "limiter": str, "valid": bool, "reason": str}."""
    return occupancy_from(gpu, threads(cfg), regs_per_thread(cfg), smem_bytes(cfg, in_bytes))


def waves(gpu: GPU, M, N, cfg: TileConfig, blocks_per_sm):
    """How many rounds of CTAs the grid needs, and how full the last round is (0..1]."""
    tiles = ceil(M / cfg.BM) * ceil(N / cfg.BN)
    per_wave = gpu.sm_count * blocks_per_sm
    n = ceil(tiles / per_wave)
    last = tiles - (n - 1) * per_wave
    return {"tiles": tiles, "per_wave": per_wave, "waves": n, "tail_fill": last / per_wave}


def roofline(gpu: GPU, flops, nbytes):
    """Lower-bound time and the bound that sets it."""
    t_compute = flops / gpu.peak_flops
    t_memory = nbytes / gpu.peak_bw
    t = max(t_compute, t_memory)
    if t < gpu.launch_overhead:
        return {"time": gpu.launch_overhead, "bound": "launch", "t_compute": t_compute, "t_memory": t_memory}
    bound = "compute" if t_compute >= t_memory else "memory"
    return {"time": t, "bound": bound, "t_compute": t_compute, "t_memory": t_memory}


def analyze(gpu: GPU, M, N, K, cfg: TileConfig, in_bytes=2, out_bytes=2):
    """Everything above for one (shape, config) pair."""
    flops = gemm_flops(M, N, K)
    tb = tiled_bytes(M, N, K, cfg, in_bytes, out_bytes)
    occ = occupancy(gpu, cfg, in_bytes)
    out = {
        "flops": flops,
        "min_bytes": gemm_min_bytes(M, N, K, in_bytes, out_bytes),
        "tiled_bytes": tb,
        "intensity": arithmetic_intensity(flops, tb),
        "smem": smem_bytes(cfg, in_bytes),
        "threads": threads(cfg),
        "regs_per_thread": regs_per_thread(cfg),
        "occupancy": occ,
        "roofline": roofline(gpu, flops, tb),
    }
    if occ["valid"]:
        out["waves"] = waves(gpu, M, N, cfg, occ["blocks"])
    return out
