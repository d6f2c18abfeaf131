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
