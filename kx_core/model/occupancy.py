"""Occupancy from a compiled kernel's real numbers, the way the CUDA occupancy
calculator counts: registers are granted per warp in units of `reg_alloc_unit` (256),
shared memory per CTA in units of `smem_alloc_unit` (128 B) plus the 1 KB the driver
reserves per CTA (sm_80 and later), threads per CTA rounded up to whole warps. The
limiter is the resource that allows the fewest CTAs per SM.

K1's first-order estimate (kx_core.model.gemm.occupancy) skips the granularities;
both are shown side by side."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from kx_core.base.jsonable import Jsonable
from kx_core.model.gpu import GPU


@dataclass(frozen=True)
class Occupancy(Jsonable):
    blocks: int  # CTAs resident per SM
    limiter: str  # "threads" | "regs" | "smem" | "blocks"
    warps_per_sm: int
    fraction: float  # resident warps / the SM's maximum
    limits: tuple[tuple[str, int], ...]  # CTAs per SM each resource allows
    threads: int
    regs: int
    smem: int
    valid: bool = True
    reason: str = ""


def occupancy(gpu: GPU, threads: int, regs: int, smem: int) -> Occupancy:
    """CTAs per SM for `threads` threads of `regs` registers each and `smem` bytes of
    shared memory per CTA."""
    warps = ceil(threads / gpu.warp_size)
    max_warps = gpu.max_threads_per_sm // gpu.warp_size
    regs_per_warp = ceil(max(regs, 1) * gpu.warp_size / gpu.reg_alloc_unit) * gpu.reg_alloc_unit
    smem_per_cta = ceil((smem + gpu.smem_reserved_per_block) / gpu.smem_alloc_unit) * gpu.smem_alloc_unit
    limits = {
        "threads": max_warps // warps,
        "regs": (gpu.regs_per_sm // regs_per_warp) // warps,
        "smem": gpu.smem_per_sm // smem_per_cta if smem_per_cta else gpu.max_blocks_per_sm,
        "blocks": gpu.max_blocks_per_sm,
    }
    reason = ""
    if regs > gpu.max_regs_per_thread:
        reason = f"{regs} registers per thread > {gpu.max_regs_per_thread}"
    elif smem > gpu.smem_per_block:
        reason = f"{smem} B of shared memory > {gpu.smem_per_block} B per CTA"
    elif threads > gpu.max_threads_per_block:
        reason = f"{threads} threads > {gpu.max_threads_per_block} per CTA"
    limiter = min(limits, key=lambda k: limits[k])
    blocks = 0 if reason else limits[limiter]
    return Occupancy(
        blocks=blocks,
        limiter=limiter
        if not reason
        else ("regs" if "registers" in reason else "smem" if "shared" in reason else "threads"),
        warps_per_sm=blocks * warps,
        fraction=blocks * warps / max_warps,
        limits=tuple(limits.items()),
        threads=threads,
        regs=regs,
        smem=smem,
        valid=not reason and blocks > 0,
        reason=reason or ("" if blocks else f"not one CTA fits ({limiter})"),
    )


def curves(gpu: GPU, threads: int, regs: int, smem: int) -> dict[str, tuple[list[int], list[float]]]:
    """The calculator's three curves through the current point: occupancy (fraction of
    the SM's warps) against threads per CTA, registers per thread and shared memory per
    CTA, the other two held."""
    step = gpu.warp_size
    t_axis = list(range(step, gpu.max_threads_per_block + 1, step))
    r_axis = list(range(8, gpu.max_regs_per_thread + 1, 8))
    s_axis = list(range(0, gpu.smem_per_block + 1, 1024))
    return {
        "threads": (t_axis, [occupancy(gpu, t, regs, smem).fraction for t in t_axis]),
        "regs": (r_axis, [occupancy(gpu, threads, r, smem).fraction for r in r_axis]),
        "smem": (s_axis, [occupancy(gpu, threads, regs, s).fraction for s in s_axis]),
    }
