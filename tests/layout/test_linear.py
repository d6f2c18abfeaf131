"""Ownership through Triton's linear layouts: the blocked model of drill T2 agrees with
Triton on random layouts and shapes (broadcast included), and every layout kind of the
real TTGIR fixtures converts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kx_core.ir.anatomy import layout_alias_texts, layout_aliases
from kx_core.layout import blocked as t2
from kx_core.layout.linear import LayoutError, linear_bases, ownership
from kx_testing import ROOT

pow2 = lambda hi: st.sampled_from([1 << k for k in range(hi + 1)])


@st.composite
def blocked_and_shape(draw):
    rank = draw(st.sampled_from([1, 2]))
    order = draw(st.permutations(list(range(rank))))
    spt = [draw(pow2(3)) for _ in range(rank)]
    # 32 lanes and 1-8 warps split across the dimensions
    lanes = [1] * rank
    for _ in range(5):
        lanes[draw(st.integers(0, rank - 1))] *= 2
    warps = [1] * rank
    for _ in range(draw(st.integers(0, 3))):
        warps[draw(st.integers(0, rank - 1))] *= 2
    shape = [draw(pow2(7)) for _ in range(rank)]  # often smaller than the tile: broadcast
    return t2.Blocked(tuple(spt), tuple(lanes), tuple(warps), tuple(order)), shape


@settings(max_examples=200, deadline=None, derandomize=True)
@given(blocked_and_shape())
def test_blocked_model_matches_triton_linear_layouts(case):
    layout, shape = case
    own = ownership(linear_bases(str(layout), shape))
    nw, nl, nr = own.coords.shape[:3]
    assert (nw, nl) == (t2.prod(layout.warps_per_cta), 32)
    for w in range(nw):
        for lane in range(nl):
            model = t2.thread_elements(layout, shape, w, lane)
            triton = [tuple(int(x) for x in own.coords[w, lane, r]) for r in range(nr)]
            # Triton drops repeated registers of a broadcast; the model lists them
            assert sorted(set(model)) == sorted(set(triton))
            if len(model) == nr:
                assert model == triton  # same register order
    assert int(own.count.min()) >= 1  # every element has an owner


def test_every_layout_of_the_real_ttgir_converts():
    seen = set()
    for path in sorted((ROOT / "fixtures" / "ir").glob("*/*/matmul.ttgir.mlir")):
        text = path.read_text()
        aliases = layout_alias_texts(text)
        for alias, layout in layout_aliases(text).items():
            if layout["kind"] in ("blocked", "nvidia_mma"):
                own = ownership(linear_bases(alias, [64, 64], aliases))
                assert own.count.min() >= 1
                seen.add(layout["kind"])
            elif layout["kind"] in ("swizzled_shared", "nvmma_shared", "shared_memory"):
                try:
                    linear_bases(alias, [64, 64], aliases)
                except LayoutError as e:
                    assert "no distributed ownership" in str(e)
    assert seen == {"blocked", "nvidia_mma"}


def test_mma_and_dot_operand_ownership():
    mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    own = ownership(linear_bases(mma, [64, 64]))
    # mma.sync m16n8: lane 0 of warp 0 holds (0,0),(0,1),(8,0),(8,1) of its first tile
    regs = {tuple(int(x) for x in own.coords[0, 0, r]) for r in range(4)}
    assert regs == {(0, 0), (0, 1), (8, 0), (8, 1)}
    assert (own.count == 1).all()
    assert (own.first_warp[8, 1], own.first_lane[8, 1], own.first_register[8, 1]) == (0, 0, 3)
    dot = linear_bases("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", [64, 32], {"#mma": mma})
    assert ownership(dot).count.min() >= 1


def test_bad_layouts_are_declared_errors():
    for bad, shape in [
        ("#ttg.blocked<{sizePerThread = [1]}>", [64]),
        ("#nonsense", [8]),
        ("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", [6]),
    ]:
        try:
            linear_bases(bad, shape)
        except LayoutError:
            continue
        raise AssertionError(bad)


def test_conversion_class_matches_the_drill_and_the_real_kernel():
    from kx_core.layout.linear import conversion_class

    shape = [64, 64]
    row = t2.Blocked((1, 4), (2, 16), (4, 1), (1, 0))
    for other in (
        row,
        t2.Blocked((1, 4), (2, 16), (4, 1), (0, 1)),
        t2.Blocked((1, 2), (2, 16), (4, 1), (1, 0)),
        t2.Blocked((1, 4), (16, 2), (4, 1), (1, 0)),
        t2.Blocked((4, 1), (16, 2), (1, 4), (0, 1)),
    ):
        via_linear = conversion_class(
            ownership(linear_bases(str(row), shape)), ownership(linear_bases(str(other), shape))
        )
        assert via_linear == t2.classify_conversion(row, other, shape)
    # the matmul's accumulator leaves the MMA layout through shared memory
    ttgir = (sorted((ROOT / "fixtures" / "ir").glob("*/cuda80"))[-1] / "matmul.ttgir.mlir").read_text()
    aliases = layout_alias_texts(ttgir)
    src = ownership(linear_bases("#mma", shape, aliases))
    dst = ownership(linear_bases("#blocked1", shape, aliases))
    assert conversion_class(src, dst) == "shared_memory"


def test_coalesce_explanation():
    e = t2.explain_elements_per_thread([128, 64], [1, 0], 32, 64, 8, 4)
    assert e["chosen"] == 2 and e["limited by"] == ["alignment"]
    e = t2.explain_elements_per_thread([64], [0], 32, 64, 16, 4)
    assert e["chosen"] == 1 and e["limited by"] == ["elements/threads cap"]
    e = t2.explain_elements_per_thread([128, 64], [1, 0], 16, 64, 16, 4)
    assert e["chosen"] == 8 and set(e["limited by"]) == {"alignment", "128-bit limit"}


@settings(max_examples=100, deadline=None, derandomize=True)
@given(blocked_and_shape(), st.sampled_from([1, 2, 4]))
def test_first_access_matches_the_drill_on_blocked_layouts(case, elem_bytes):
    from kx_core.layout.linear import first_access

    layout, shape = case
    fast = layout.order[0]
    # the drill's model reads past the tensor when a thread's chunk is wider than it
    if layout.size_per_thread[fast] > shape[fast]:
        return
    # and it stops at sizePerThread even where the thread's next repetition is the very
    # next element (tile == sizePerThread along that dim): the linear layout, which knows
    # those registers are contiguous, vectorizes across them
    if t2.tile(layout)[fast] == layout.size_per_thread[fast] < shape[fast]:
        return
    n, sectors, eff = t2.first_load_sectors(layout, shape, elem_bytes)
    got = first_access(ownership(linear_bases(str(layout), shape)), elem_bytes, vector_dim=fast)
    assert (got.bytes_requested, got.sectors, got.efficiency) == (n, sectors, eff)


def test_first_access_of_an_mma_accumulator():
    from kx_core.layout.linear import first_access

    mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    got = first_access(ownership(linear_bases(mma, [64, 64])), 4)
    # each lane stores 2 consecutive fp32 of one row; 8 rows x 4 lanes: 8 sectors of 32 bytes
    assert (got.vector, got.bytes_requested, got.sectors, got.efficiency) == (2, 256, 8, 1.0)
