"""The Autotune pane's config names at 1280 px (issue 54, Low): the full names
('BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,w8,s3') took the width of four columns; a row shows
the compact name the Kernels pane uses, the full one on hover."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_core.records.results import short_label
from kx_testing import KERNELS


def test_config_rows_show_compact_names_with_the_full_one_on_hover(qtbot, make_window):
    w = make_window("cuda:90")
    w.resize(1280, 800)
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    assert w.show_pane("autotune")
    pane = w.autotune_pane
    pane.render()
    table = pane.table
    cells = [table.item(r, 0) for r in range(table.rowCount())]
    assert {c.text(): c.toolTip() for c in cells} == {short_label(r.config): r.config for r in pane.rows}
    assert "128x128x64 w8 s3" in {c.text() for c in cells}
    # the column is as wide as a compact name, not a full one
    longest = max(r.config for r in pane.rows)
    assert table.columnWidth(0) < table.fontMetrics().horizontalAdvance(longest) * 0.6
    # the header says what the compact name's numbers are
    assert "BLOCK_M×BLOCK_N×BLOCK_K" in table.horizontalHeaderItem(0).toolTip()
    # rows still stand for their configs: a click draws that config's occupancy, and the
    # config selected in Kernels is the row selected here
    table.selectRow(1)
    assert pane._curve_row is not None and pane._curve_row.config == cells[1].toolTip()
    w.session.select_kernel(2)
    label = w.session.kernel.config.label
    qtbot.waitUntil(lambda: table.currentRow() >= 0 and table.item(table.currentRow(), 0).toolTip() == label)
