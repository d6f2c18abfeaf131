"""conversion_class(src, dst) == 'registers' exactly when Triton calls the conversion
trivial (Gluon's convert_layout(..., assert_trivial=True), i.e. the compiler's
is_convert_layout_trivial), over random blocked layouts and linear layouts built from
them: the same bases, registers permuted, lanes swapped, warps swapped."""

from __future__ import annotations

import random

from kx_core.layout.gluon_oracle import triton_says_trivial
from kx_core.layout.linear import conversion_class, linear_bases, ownership


def _linear(reg, lane, warp) -> str:
    return f"#ttg.linear<{{register = {[list(b) for b in reg]}, lane = {[list(b) for b in lane]}, warp = {[list(b) for b in warp]}, block = []}}>"


def _cases(n: int, seed: int):
    rng = random.Random(seed)
    p2 = lambda lo, hi: 1 << rng.randint(lo, hi)
    for i in range(n):
        shape = [p2(3, 6), p2(3, 6)]
        lanes0, warps0 = p2(0, 5), p2(0, 2)
        src = (
            f"#ttg.blocked<{{sizePerThread = {[p2(0, 2), p2(0, 2)]}, threadsPerWarp = {[lanes0, 32 // lanes0]}, "
            f"warpsPerCTA = {[warps0, 4 // warps0]}, order = {rng.choice([[1, 0], [0, 1]])}}}>"
        )
        b = linear_bases(src, shape)
        reg, lane, warp = list(b.reg), list(b.lane), list(b.warp)
        kind = i % 5
        if kind == 0:
            dst = _linear(reg, lane, warp)  # the same ownership, spelled as a linear layout
        elif kind == 1 and len(reg) > 1:
            rng.shuffle(reg)  # registers renumbered inside each thread
            dst = _linear(reg, lane, warp)
        elif kind == 2 and len(lane) > 1:
            lane[0], lane[-1] = lane[-1], lane[0]  # elements trade lanes within a warp
            dst = _linear(reg, lane, warp)
        elif kind == 3 and len(warp) > 1:
            warp[0], warp[1] = warp[1], warp[0]
            dst = _linear(reg, lane, warp)
        else:
            lanes1, warps1 = p2(0, 5), p2(0, 2)
            dst = (
                f"#ttg.blocked<{{sizePerThread = {[p2(0, 2), p2(0, 2)]}, threadsPerWarp = {[lanes1, 32 // lanes1]}, "
                f"warpsPerCTA = {[warps1, 4 // warps1]}, order = {rng.choice([[1, 0], [0, 1]])}}}>"
            )
        yield src, dst, shape


def test_registers_only_is_what_triton_calls_trivial():
    verdicts = {True: 0, False: 0}
    for src, dst, shape in _cases(60, seed=0):
        mine = conversion_class(ownership(linear_bases(src, shape)), ownership(linear_bases(dst, shape)))
        theirs = triton_says_trivial(src, dst, shape)
        assert (mine == "registers") == theirs, (src, dst, shape, mine)
        verdicts[theirs] += 1
    assert verdicts[True] >= 15 and verdicts[False] >= 15  # both answers are exercised
