"""Layout pane: heatmaps of real TTGIR layouts, opened from a click in the TTGIR."""

from __future__ import annotations

import numpy as np

from gui_helpers import click_line, finished, open_and_wait, settled
from kx_core.ir.ttgir_lines import tensor_layouts_in_line
from kx_gui.widgets.colors import distinct_colors
from kx_testing import KERNELS


def test_thirty_two_lanes_get_thirty_two_colours():
    colors = distinct_colors(32)
    assert len({tuple(c) for c in colors}) == 32


def test_tensor_types_on_a_line():
    line = "%a = ttg.convert_layout %b : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>"
    assert tensor_layouts_in_line(line) == [
        ("#blocked", [64, 32]),
        ("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", [64, 32]),
    ]


def test_alias_heatmap_and_isolation(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    pane = w.layout_pane
    assert finished(qtbot, pane.show_layout("#mma", [64, 64]))
    own = pane.ownership
    assert own.coords.shape[:3] == (4, 32, 32)
    assert np.array_equal(pane.values(), own.first_lane)
    assert pane.describe((0, 0)) == "element (0, 0): w0 l0 r0"
    pane.color_by.setCurrentText("warp")
    assert set(np.unique(pane.values())) == {0, 1, 2, 3}
    pane.warp_pick.setValue(1)  # isolate warp 1: a quarter of the 64x64 tile stays coloured
    image = pane.image.image
    grey = np.all(image == 235, axis=-1)
    assert grey.sum() == 3 * 64 * 64 // 4
    # a shared layout: every element coloured by its bank
    assert finished(qtbot, pane.show_layout("#shared", [64, 64])) and pane.ownership is None
    assert set(np.unique(pane.values())) == set(range(32))
    assert pane.describe((1, 0)).startswith("element (1, 0): shared offset ")
    assert not finished(qtbot, pane.show_layout("#ttg.bogus<{}>", [64, 64])) and pane.info.text()


def test_clicking_a_ttgir_tensor_opens_its_layout(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    w.stage_pane.select_stage("ttgir")
    ttgir = w.stage_pane.current_view().text().splitlines()  # as shown (filtered)
    line = next(
        i for i, t in enumerate(ttgir, start=1) if "x64xf32, #mma>" in t and "convert_layout" not in t
    )
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        click_line(qtbot, w.stage_pane.current_view(), line)
    kind, (attr, shape) = blocker.args
    assert kind == "layout" and attr == "#mma" and shape == [64, 64]
    settled(qtbot, w.layout_pane)
    assert w.layout_pane.ownership is not None and w.layout_pane.ownership.shape == (64, 64)


def test_clicking_a_layout_alias_line_opens_it_at_its_tensor_shape(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    w.stage_pane.select_stage("ttgir")
    ttgir = w.stage_pane.current_view().text().splitlines()  # as shown (filtered)
    line = next(i for i, t in enumerate(ttgir, start=1) if t.startswith("#blocked1 = "))
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        click_line(qtbot, w.stage_pane.current_view(), line)
    kind, (attr, shape) = blocker.args
    assert kind == "layout" and attr == "#blocked1" and shape == [64, 64]  # the largest tensor using it


def test_clicking_a_convert_layout_shows_both_layouts_and_what_moves(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    w.stage_pane.select_stage("ttgir")
    ttgir = w.stage_pane.current_view().text().splitlines()  # as shown (filtered)
    line = next(i for i, t in enumerate(ttgir, start=1) if "ttg.convert_layout" in t)
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        click_line(qtbot, w.stage_pane.current_view(), line)
    assert blocker.args[0] == "conversion" and list(blocker.args[1][:2]) == ["#mma", "#blocked1"]
    pane = w.layout_pane
    settled(qtbot, pane)
    assert pane.conversion is not None and "shared memory" in pane.info.text()
    # the accumulator goes from MMA fragments to rows of 8: most elements change warp
    assert (pane.moves == 2).sum() > 0 and pane.moves.shape == (64, 64)
    assert pane.image.image.shape[0] == 64 * 3 + 4  # three panels and two gaps, side by side


def test_clicking_a_load_shows_its_coalescing(qtbot, make_window):
    from kx_core.ir.ttgir_lines import loads_in_line

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.stage_pane.select_stage("ttgir")
    ttgir = w.stage_pane.current_view().text().splitlines()  # as shown (filtered)
    line = next(i for i, t in enumerate(ttgir, start=1) if "tt.load" in t)
    assert loads_in_line(ttgir[line - 1]) == [("#blocked", [1024], 4)]
    with qtbot.waitSignal(w.session.view_requested, check_params_cb=lambda kind, _a: kind == "access"):
        click_line(qtbot, w.stage_pane.current_view(), line)
    settled(qtbot, w.layout_pane)
    acc = w.layout_pane.access
    # 4 fp32 per lane, 32 lanes: 512 contiguous bytes, 16 full sectors
    assert (acc.vector, acc.bytes_requested, acc.sectors, acc.efficiency) == (4, 512, 16, 1.0)
    assert "100% efficient" in w.layout_pane.info.text()
    assert w.layout_pane._access_mask.sum() == 128


def test_clicking_a_local_load_shows_its_banks(qtbot, make_window):
    from kx_core.ir.ttgir_lines import shared_accesses_in_line
    from kx_core.layout.linear import linear_bases, ownership
    from kx_core.layout.shared import bank_access, placement

    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    w.stage_pane.select_stage("ttgir")
    ttgir = w.stage_pane.current_view().text().splitlines()  # as shown (filtered)
    line = next(i for i, t in enumerate(ttgir, start=1) if "ttg.local_load" in t)
    ((reg, shared, shape, bits, alloc),) = shared_accesses_in_line(ttgir[line - 1])
    assert bits == 16 and shared.startswith("#shared") and len(alloc) == len(shape)
    with qtbot.waitSignal(w.session.view_requested, check_params_cb=lambda kind, _a: kind == "bank"):
        click_line(qtbot, w.stage_pane.current_view(), line)
    pane = w.layout_pane
    settled(qtbot, pane)
    aliases = pane._aliases()
    off = placement(shared, alloc, aliases)[tuple(slice(0, n) for n in shape)]
    expected = bank_access(ownership(linear_bases(reg, shape, aliases)), off, bits)
    assert pane.access == expected
    assert f"{expected.conflicts} bank conflict" in pane.info.text()
    assert pane._access_mask.sum() == expected.lanes_per_wavefront * expected.vector
