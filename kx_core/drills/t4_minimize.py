"""Drill T4 (bug minimisation) as its tests call it: kx_core.bench.minimize and the
drill's buggy tiled row sum."""

from __future__ import annotations

import numpy as np

from kx_core.bench.minimize import (
    ddmin,
    differential_check,
    fuzz,
    shrink_case,
    shrink_int,
    to_pytest,
)

__all__ = ["buggy_row_sum", "ddmin", "differential_check", "fuzz", "shrink_case", "shrink_int", "to_pytest"]


def buggy_row_sum(x, BLOCK=64):
    """A 'tiled kernel' with a classic bug: the single-block path is masked, the
    multi-block path walks only full blocks and forgets the tail."""
    m, n = x.shape
    acc = np.zeros(m, np.float32)
    if n <= BLOCK:
        acc += x.astype(np.float32).sum(axis=1)
    else:
        for k0 in range(0, n - BLOCK + 1, BLOCK):  # BUG: drops n % BLOCK trailing columns
            acc += x[:, k0 : k0 + BLOCK].astype(np.float32).sum(axis=1)
    return acc
