"""K4 · Fusion: fewer launches and less DRAM traffic vs more register pressure.

A chain of ops is a list of stages. Unfused, every stage is its own kernel: it reads its
inputs from DRAM and writes its output back. Fused, a group of consecutive stages runs
in one kernel: only the group's external inputs are read and only its last output is
written; the intermediates live in registers. Names and semantics are the drill's."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product


@dataclass(frozen=True)
class Stage:
    name: str
    out_elems: int  # elements written by this stage
    ext_in_elems: int  # elements read from outside the chain (weights, bias, residual, ...)
    flops: int
    live_regs: int = 0  # registers per thread this stage keeps live inside a fused kernel


def chain_mlp_epilogue(M, N, K):
    """GEMM followed by bias, GELU, residual add: the canonical fused epilogue."""
    return [
        Stage("matmul", M * N, M * K + K * N, 2 * M * N * K, live_regs=128),
        Stage("bias", M * N, N, M * N, live_regs=8),
        Stage("gelu", M * N, 0, 8 * M * N, live_regs=16),
        Stage("residual", M * N, M * N, M * N, live_regs=8),
    ]


def groups_of(stages, fuse):
    """fuse: list of group sizes summing to len(stages), e.g. [1, 1, 1, 1] or [4]."""
    assert sum(fuse) == len(stages) and all(g > 0 for g in fuse)
    out, i = [], 0
    for g in fuse:
        out.append(stages[i : i + g])
        i += g
    return out


def _group_costs(stages, fuse, elem_bytes):
    """Per group: (DRAM bytes, flops, live registers). A group reads its stages' external
    inputs and, unless it starts the chain, the previous stage's output; it writes only
    its last stage's output."""
    out, start = [], 0
    for group in groups_of(stages, fuse):
        elems = sum(s.ext_in_elems for s in group) + group[-1].out_elems
        if start > 0:
            elems += stages[start - 1].out_elems
        out.append((elems * elem_bytes, sum(s.flops for s in group), sum(s.live_regs for s in group)))
        start += len(group)
    return out


def traffic(stages, fuse, elem_bytes=2):
    """DRAM bytes, launches, and peak live registers for a fusion plan."""
    costs = _group_costs(stages, fuse, elem_bytes)
    return {
        "bytes": sum(c[0] for c in costs),
        "launches": len(costs),
        "peak_regs": max(c[2] for c in costs),
    }


def time_estimate(
    stages, fuse, peak_flops, peak_bw, launch=5e-6, elem_bytes=2, reg_limit=255, spill_penalty=2.0
):
    """Roofline per group + launch overhead. A group whose live registers exceed
    reg_limit has its memory time multiplied by spill_penalty (local-memory spills)."""
    total = 0.0
    for nbytes, flops, regs in _group_costs(stages, fuse, elem_bytes):
        t_mem = nbytes / peak_bw * (spill_penalty if regs > reg_limit else 1.0)
        total += max(flops / peak_flops, t_mem) + launch
    return total


def plans(n):
    """Every way to cut a chain of n stages into consecutive groups (2^(n-1) plans)."""
    for cuts in product((False, True), repeat=n - 1):
        sizes, size = [], 1
        for cut in cuts:
            if cut:
                sizes.append(size)
                size = 1
            else:
                size += 1
        yield sizes + [size]


def best_plan(stages, peak_flops, peak_bw, **kw):
    """(time, plan) of the fastest way to cut the chain (the first of equals)."""
    return min(
        ((time_estimate(stages, p, peak_flops, peak_bw, **kw), p) for p in plans(len(stages))),
        key=lambda t: t[0],
    )
