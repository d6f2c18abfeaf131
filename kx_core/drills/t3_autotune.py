"""Drill T3 (autotune sweep) as its tests call it: kx_core.model.autotune and the drill's
seeded stand-in for a real launch."""

from __future__ import annotations

import random

from kx_core.model.autotune import (
    autotune,
    bound,
    config_space,
    early_prune,
    perf_model,
    pick_best,
    quantiles,
    sweep,
    to_csv,
    top_k,
)

__all__ = [
    "autotune",
    "bound",
    "config_space",
    "early_prune",
    "fake_measure",
    "perf_model",
    "pick_best",
    "quantiles",
    "sweep",
    "to_csv",
    "top_k",
]


def fake_measure(gpu, M, N, K, seed=0, noise=0.03):
    """A seeded stand-in for a real launch: the perf model times a config-specific
    efficiency factor (what the model does not know) times multiplicative noise."""
    rng = random.Random(seed)

    def m(c):
        eff = 1.0 + 0.15 * ((hash((c.BM, c.BN, c.BK, c.num_warps, c.num_stages)) % 7) / 7)
        return perf_model(gpu, M, N, K, c) * eff * (1 + rng.gauss(0, noise))

    return m
