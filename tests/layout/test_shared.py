"""Shared layouts: kx's placement against Triton's linear layouts, kx's bank-conflict
simulation against Gluon's `bank_conflicts` helper (live where it runs, else the answers
triton 3.6 gave, captured by scripts/capture_bank_conflicts.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from kx_core.layout.linear import LayoutError, linear_bases, ownership
from kx_core.layout.shared import bank_access, offsets, placement, shared_bases
from kx_testing import ROOT

sys.path.insert(0, str(ROOT))
from scripts.capture_bank_conflicts import draw_cases, helper_works, triton_conflicts  # noqa: E402

FIXTURES = sorted((ROOT / "fixtures" / "layout").glob("bank_conflicts.*.json"))


def _shared_linear_layout_works() -> bool:
    """triton 3.6's to_linear_layout aborts the process on a shared layout; 3.9's works."""
    probe = (
        "import sys; sys.path.insert(0, "
        + repr(str(ROOT))
        + "); from kx_core.layout.shared import shared_bases; "
        "shared_bases('#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>', [8, 8])"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120).returncode == 0


def _placement_cases(n: int, seed: int):
    rng = random.Random(seed)
    p2 = lambda lo, hi: 1 << rng.randint(lo, hi)
    while n:
        rank = rng.choice([2, 2, 3])
        shape = [p2(0, 6) for _ in range(rank)]
        shape[0] = max(shape[0], 2)  # a 1-element tensor has no offset bases for Gluon to wrap
        order = list(range(rank))
        rng.shuffle(order)
        if rng.random() < 0.5:
            attr = (
                f"#ttg.swizzled_shared<{{vec = {p2(0, 3)}, perPhase = {p2(0, 2)}, maxPhase = {p2(0, 3)}, "
                f"order = {order}}}>"
            )
        else:
            bits, swizzle, transposed = (
                rng.choice([8, 16, 32]),
                rng.choice([0, 32, 64, 128]),
                rng.random() < 0.5,
            )
            shape = shape[:2]
            contiguous = 0 if transposed else 1
            shape[contiguous] = max(shape[contiguous], max(swizzle, 16) * 8 // bits)
            shape[1 - contiguous] = max(shape[1 - contiguous], 8)
            attr = (
                f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = {str(transposed).lower()}, "
                f"elementBitWidth = {bits}}}>"
            )
        n -= 1
        yield attr, shape


def test_placement_matches_tritons_linear_layout():
    if not _shared_linear_layout_works():
        pytest.skip("this triton's to_linear_layout aborts on shared layouts (3.6); 3.9 runs it")
    checked = 0
    for attr, shape in _placement_cases(150, seed=0):
        mine = placement(attr, shape)
        theirs = offsets(shared_bases(attr, shape))
        assert np.array_equal(mine, theirs), (attr, shape)
        checked += 1
    assert checked == 150


def test_bank_conflicts_match_the_captured_triton_answers():
    assert FIXTURES, "run scripts/capture_bank_conflicts.py under triton 3.6"
    for path in FIXTURES:
        data = json.loads(path.read_text())
        assert len(data["cases"]) >= 200
        for case in data["cases"]:
            own = ownership(linear_bases(case["reg"], case["shape"]))
            got = bank_access(own, placement(case["shared"], case["shape"]), case["bits"])
            assert got.conflicts == case["triton_conflicts"], (path.name, case, got)


def test_bank_conflicts_match_the_live_helper_where_it_runs():
    if not helper_works():
        pytest.skip(
            "this triton's get_shared_bank_conflicts crashes (3.9.0); the captured answers are checked"
        )
    cases = draw_cases(40, seed=1)
    for case, theirs in zip(cases, triton_conflicts(cases)):
        own = ownership(linear_bases(case["reg"], case["shape"]))
        assert bank_access(own, placement(case["shared"], case["shape"]), case["bits"]).conflicts == theirs


COLUMN = (
    "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>"
)


def test_a_warp_down_a_column_of_a_32_wide_fp32_tile_hits_one_bank():
    """The textbook case: 32 lanes read column 0 of a row-major 32x32 fp32 tile (a
    thread's registers step 4 columns, so nothing vectorises): every lane is in bank 0,
    31 extra wavefronts. A swizzle of 32 phases spreads the lanes over all 32 banks."""
    own = ownership(linear_bases(COLUMN, [32, 32]))
    plain = bank_access(
        own,
        placement("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", [32, 32]),
        32,
    )
    assert plain.banks == (0,) * 32 and plain.conflicts == 31 and plain.vector == 1
    swizzled = bank_access(
        own,
        placement("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 32, order = [1, 0]}>", [32, 32]),
        32,
    )
    assert sorted(swizzled.banks) == list(range(32)) and swizzled.conflicts == 0


def test_vectors_stop_at_the_swizzle_vec_and_128_bits():
    row = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    own = ownership(linear_bases(row, [64, 64]))
    for vec, expect in ((1, 1), (2, 2), (8, 8)):
        attr = f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = 1, maxPhase = 8, order = [1, 0]}}>"
        assert bank_access(own, placement(attr, [64, 64]), 16).vector == expect
    flat = placement("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", [64, 64])
    assert bank_access(own, flat, 32).vector == 4  # 128 bits of fp32
    assert bank_access(own, flat, 32).lanes_per_wavefront == 8


def test_unknown_shared_kinds_are_declared_errors():
    with pytest.raises(LayoutError, match="not a shared layout"):
        placement(COLUMN, [32, 32])
