"""L3 · Search cost vs measured latency: a Luminal-style genome search.

After saturation the e-graph holds many programs. Luminal's CUDA backend does not trust
a cost formula to choose between them; it measures (luminal_cuda_lite search.rs,
finalists.rs, extraction.rs):

  Genome      one producer choice per e-class
  GA          a genetic search over genomes; each candidate is compiled and run
  rank_insert keep only the best `keep` genomes, sorted by measured ns
  finalists   walk the ranking; a candidate that fails validation (e.g. its arena exceeds
              the device memory budget) is rejected and the next rank is tried

The "e-graph" is a dict {class: [option, ...]} and `measure(genome)` is injectable.
Names and semantics are the drill's; the genetic search's order of random draws is kx's.
"""

from __future__ import annotations

import bisect
import random
from itertools import product
from math import prod

from kx_core.base.stats import spearman as _spearman


def space_size(space):
    return prod(len(v) for v in space.values())


def all_genomes(space):
    keys = sorted(space)
    return [dict(zip(keys, combo)) for combo in product(*(space[k] for k in keys))]


def fingerprint(genome):
    return tuple(sorted(genome.items()))


def random_genome(space, rng):
    return {k: rng.choice(v) for k, v in sorted(space.items())}


def mutate(genome, space, rng, p=0.3):
    g = dict(genome)
    for k in sorted(space):
        if rng.random() < p:
            g[k] = rng.choice(space[k])
    return g


def crossover(a, b, rng):
    return {k: (a if rng.random() < 0.5 else b)[k] for k in sorted(a)}


def rank_insert(ranked, nanos, genome, keep):
    """search.rs rank_insert: `ranked` is [(nanos, genome)] ascending, at most `keep`
    long; a newcomer goes after equals, so it cannot displace an equal worst."""
    pos = bisect.bisect_right([n for n, _ in ranked], nanos)
    if pos >= keep:
        return
    ranked.insert(pos, (nanos, genome))
    del ranked[keep:]


def genetic_search(space, measure, budget, population=6, keep=4, seed=0, mutation=0.3):
    """Measure at most `budget` distinct genomes: a random population first, then
    children (crossover of two ranked parents, then mutation) until the budget is spent
    or nothing new turns up. Returns {"ranked", "measured", "curve" (best so far after
    each measurement), "log" ([(genome, ns)] in order)}."""
    rng = random.Random(seed)
    ranked: list = []
    seen: dict = {}
    curve: list = []
    log: list = []
    budget = min(budget, space_size(space))

    def try_measure(g):
        fp = fingerprint(g)
        if fp in seen or len(seen) >= budget:
            return
        ns = measure(g)
        seen[fp] = ns
        log.append((g, ns))
        rank_insert(ranked, ns, g, keep)
        curve.append(min(ns, curve[-1]) if curve else ns)

    for _ in range(population):
        try_measure(random_genome(space, rng))
    stale = 0
    while len(seen) < budget and stale < 10_000:
        before = len(seen)
        parents = [g for _, g in ranked] or [random_genome(space, rng)]
        a, b = rng.choice(parents), rng.choice(parents)
        try_measure(mutate(crossover(a, b, rng), space, rng, mutation))
        stale = 0 if len(seen) > before else stale + 1
    return {"ranked": ranked, "measured": len(seen), "curve": curve, "log": log}


def proxy_search(space, proxy, measure, k):
    """The cheap alternative: rank every genome by a cost proxy, measure only the top k.
    Returns [(measured ns, genome)] ascending."""
    top = sorted(all_genomes(space), key=proxy)[:k]
    return sorted(((measure(g), g) for g in top), key=lambda t: t[0])


def spearman(xs, ys):
    """Rank correlation; ties get average ranks."""
    return _spearman(xs, ys)


def select_finalist(ranked, validate):
    """finalists.rs: walk ranks 1, 2, ...; (rank, nanos, genome, rejected) of the first
    that validates; rejected = [(genome, reason)]. RuntimeError when none does."""
    rejected = []
    for rank, (ns, g) in enumerate(ranked, start=1):
        why = validate(g)
        if why is None:
            return rank, ns, g, rejected
        rejected.append((g, why))
    raise RuntimeError(f"no finalist: all {len(ranked)} ranked candidates were rejected")


def break_even_runs(search_seconds_a, latency_a, search_seconds_b, latency_b):
    """How many executions until spending more search time (a) pays off over b."""
    if latency_a >= latency_b:
        return float("inf")
    return (search_seconds_a - search_seconds_b) / (latency_b - latency_a)


# ---------------------------------------------------------------- the workload
def mlp_space():
    """Decision points for y = relu(x @ w + b) after saturation (simplified)."""
    return {
        "matmul": ["primitive_loop", "tiled_kernel", "cublaslt"],
        "epilogue": ["separate", "fused"],
        "w_layout": ["row_major", "col_major"],
        "accumulate": ["fp32", "fp16"],
    }


MATMUL_NS = {"primitive_loop": 2400, "tiled_kernel": 130, "cublaslt": 95}
FUSE_SAVING = {"primitive_loop": 0, "tiled_kernel": 25, "cublaslt": 22}  # cuBLASLt: EPILOGUE_RELU_BIAS


def mlp_measure(noise=0.0, seed=0):
    """'Measured' ns: what a GPU would show, including effects a FLOP proxy cannot see."""
    rng = random.Random(seed)

    def m(g):
        ns = MATMUL_NS[g["matmul"]]
        ns += 30 if g["epilogue"] == "separate" else 30 - FUSE_SAVING[g["matmul"]]
        if g["matmul"] == "tiled_kernel" and g["w_layout"] == "row_major":
            ns += 20  # B tile loads along K are strided for this kernel
        if g["accumulate"] == "fp16":
            ns -= 8
        return ns * (1 + rng.gauss(0, noise)) if noise else ns

    return m


def mlp_proxy(g):
    """A FLOP/byte proxy: knows the primitive loop is bad and fusion saves a pass, but
    cannot tell a hand-written tile from cuBLASLt, nor see layout effects."""
    base = {"primitive_loop": 2000, "tiled_kernel": 100, "cublaslt": 100}[g["matmul"]]
    return base + (30 if g["epilogue"] == "separate" else 10) + (-5 if g["accumulate"] == "fp16" else 0)


def mlp_validate(budget_bytes=8 << 20, M=64, N=64, K=256, max_err_ulps=None):
    """Reject plans whose intermediates exceed the arena budget, and fp16 accumulation."""

    def v(g):
        if g["matmul"] == "primitive_loop" and M * N * K * 4 > budget_bytes:
            return f"arena {M * N * K * 4} B > budget {budget_bytes} B"
        if g["accumulate"] == "fp16":
            return f"fp16 accumulation fails the K={K} tolerance"
        return None

    return v
