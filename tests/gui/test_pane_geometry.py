"""Where things land on screen in the panes a first user found wrong (issue 31, fifth
session): the Kernels table scrolled back to its name column for another file."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_testing import KERNELS


def test_kernels_table_scrolls_back_to_the_name_column_for_another_file(qtbot, make_window, tmp_path):
    w = make_window()
    w.resize(1280, 800)
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    bar = w.kernels_pane.table.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # the note column is past the pane's edge
    bar.setValue(bar.maximum())
    other = tmp_path / "matmul_autotune_copy.py"  # as wide a table: the scroll could stay
    other.write_text((KERNELS / "matmul_autotune.py").read_text())
    open_and_wait(qtbot, w, other)
    qtbot.wait(50)
    assert bar.maximum() > 0 and bar.value() == 0


def test_concepts_legend_is_outside_the_bars(qtbot, make_window):
    """vector_add's last dialect (tt) has the tallest bars: the legend, top right inside
    the plot, was drawn over them. It sits under the axis, out of the view box."""
    w = make_window()
    w.resize(1280, 800)
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    assert w.show_pane("concepts")
    pane = w.concepts_pane
    qtbot.waitUntil(lambda: bool(pane.histograms))
    qtbot.wait(50)
    box = pane.chart.getPlotItem().getViewBox().sceneBoundingRect()
    legend = pane.legend.sceneBoundingRect()
    assert legend.height() > 0 and not legend.intersects(box)
    assert [label.text for _, label in pane.legend.items] == [s.upper() for s in pane.histograms]
