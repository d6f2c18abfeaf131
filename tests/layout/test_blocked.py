"""Drill T2's tests against kx_core.layout.blocked, and Triton's coalesce pass as the oracle:
the layouts it chose in real TTGIR are the ones coalesced_layout derives."""

from __future__ import annotations

import re

import pytest

from kx_core.ir.anatomy import layout_aliases
from kx_core.layout import blocked as t2
from kx_testing import ROOT

B = t2.Blocked


def test_parse_roundtrip():
    s = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
    L = t2.parse_blocked(s)
    assert L == B((1, 4), (2, 16), (4, 1), (1, 0))
    assert str(L) == s
    with pytest.raises(ValueError, match="threadsPerWarp"):
        t2.parse_blocked("#ttg.blocked<{sizePerThread = [1, 4], order = [1, 0]}>")
    with pytest.raises(ValueError, match="not a list of integers"):
        t2.parse_blocked(
            "#ttg.blocked<{sizePerThread = [1, x], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
        )


def test_reproduces_coalesce_mlir_transpose():
    # test/TritonGPU/coalesce.mlir @transpose: 64x64 f32, num-warps 4, tt.divisibility = 16
    row = t2.coalesced_layout([64, 64], order=[1, 0], elem_bits=32, contiguity=64)
    col = t2.coalesced_layout([64, 64], order=[0, 1], elem_bits=32, contiguity=64)
    assert str(row) == (
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
    )
    assert str(col) == (
        "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>"
    )


def test_elements_per_thread_limits():
    assert t2.elements_per_thread([128, 64], [1, 0], 16, 64, 16, 4) == 8
    assert t2.elements_per_thread([128, 64], [1, 0], 32, 64, 8, 4) == 2
    assert t2.elements_per_thread([128, 64], [1, 0], 32, 1, 16, 4) == 1
    assert t2.elements_per_thread([64], [0], 32, 64, 16, 4) == 1


def test_build_blocked_1d_and_small():
    assert t2.build_blocked([1024], [4], [0], 4) == B((4,), (32,), (4,), (0,))
    L = t2.build_blocked([64, 16], [1, 8], [1, 0], 4)
    assert L == B((1, 8), (16, 2), (4, 1), (1, 0))


def test_thread_elements_and_lane_table():
    L = B((1, 4), (2, 16), (4, 1), (1, 0))
    assert t2.tile(L) == (8, 64)
    assert t2.thread_elements(L, [8, 64], 0, 0) == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert t2.thread_elements(L, [8, 64], 0, 17) == [(1, 4), (1, 5), (1, 6), (1, 7)]
    assert t2.thread_elements(L, [8, 64], 3, 16)[0] == (7, 0)
    regs = t2.thread_elements(L, [64, 64], 0, 0)
    assert len(regs) == 32 and regs[4] == (8, 0)
    table = t2.lane_table(L, [8, 64])
    assert len(table) == 32 and table[16][1][0] == (1, 0)


def test_broadcast_when_tensor_smaller_than_tile():
    L = B((1, 4), (2, 16), (4, 1), (1, 0))
    own = t2.owners(L, [4, 64])
    assert len(own) == 4 * 64
    assert len(own[(0, 0)]) == 2
    assert own[(0, 0)] == {(0, 0), (2, 0)}


def test_coalescing():
    row = B((1, 4), (2, 16), (4, 1), (1, 0))
    n, sectors, eff = t2.first_load_sectors(row, [64, 64], 4)
    assert n == 32 * 16 and sectors == 16 and eff == 1.0
    n, sectors, eff = t2.first_load_sectors(row, [64, 64], 4, strides=[1, 64])
    assert sectors == 64 and eff == 0.25
    bad = B((1, 1), (32, 1), (4, 1), (1, 0))
    assert t2.first_load_sectors(bad, [128, 64], 4)[1] == 32


def test_classify_conversion():
    shape = [64, 64]
    row = B((1, 4), (2, 16), (4, 1), (1, 0))
    assert t2.classify_conversion(row, row, shape) == "registers"
    flipped = B((1, 4), (2, 16), (4, 1), (0, 1))
    assert t2.classify_conversion(row, flipped, shape) != "registers"
    narrow = B((1, 2), (2, 16), (4, 1), (1, 0))
    assert t2.classify_conversion(row, narrow, shape) == "warp_shuffle"
    tall = B((1, 4), (16, 2), (4, 1), (1, 0))
    assert t2.classify_conversion(row, tall, shape) == "shared_memory"
    col = B((4, 1), (16, 2), (1, 4), (0, 1))
    assert t2.classify_conversion(row, col, shape) == "shared_memory"


# ---------------------------------------------------------------- oracle: Triton's coalesce pass

# Examples: "%x_4 = tt.load %x_3, %mask_2 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc24)"
#           "ttg.async_copy_global_to_local %a_ptrs, %buf : tensor<64x32x!tt.ptr<f16>, #blocked> -> ..."
#           "tt.store %out, %v, %mask : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc30)"
_LOAD_RE = re.compile(
    r"\b(?:tt\.load|tt\.store|ttg\.async_copy_global_to_local) [^:]*: tensor<([\dx]+)x!tt\.ptr<(f16|f32|bf16|i32)>, (#\w+)>"
)
BITS = {"f16": 16, "bf16": 16, "f32": 32, "i32": 32}
FIXTURES = sorted((ROOT / "fixtures" / "ir").glob("*/cuda*"))


@pytest.mark.parametrize("d", FIXTURES, ids=[f"{d.parent.name}-{d.name}" for d in FIXTURES])
@pytest.mark.parametrize("name", ["add", "matmul"])
def test_coalesce_pass_agrees(d, name):
    """Every load of the real TTGIR (after the coalesce pass) has the layout kx derives
    for a fully contiguous, 16-byte aligned pointer (what these kernels load through)."""
    ttgir = (d / f"{name}.ttgir.mlir").read_text()
    aliases = layout_aliases(ttgir)
    num_warps = int(re.search(r'"ttg.num-warps" = (\d+)', ttgir).group(1))
    loads = _LOAD_RE.findall(ttgir)
    assert loads
    for dims, dtype, alias in loads:
        shape = [int(x) for x in dims.split("x")]
        real = aliases[alias]
        order = real["order"]
        derived = t2.coalesced_layout(
            shape, order, BITS[dtype], contiguity=shape[order[0]], num_warps=num_warps
        )
        assert list(derived.size_per_thread) == real["sizePerThread"]
        assert list(derived.threads_per_warp) == real["threadsPerWarp"]
        assert list(derived.warps_per_cta) == real["warpsPerCTA"]
