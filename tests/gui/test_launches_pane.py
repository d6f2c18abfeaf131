"""The Launches pane (issue 54, what tritonparse users expect): every launch by grid and
calling line, what Triton specialized on, and what differs from the launch of the same
kernel above; a double-click shows the calling line."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_core.records.launch_list import LATER_ARGUMENTS
from kx_testing import ROOT

SITES = ROOT / "fixtures" / "kernels" / "launches" / "launch_sites.py"


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


def test_every_launch_by_grid_and_line_with_what_differs(qtbot, make_window, tmp_path):
    path = tmp_path / SITES.name
    text = SITES.read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    assert w.show_pane("launches")
    pane = w.pane("launches")
    qtbot.waitUntil(lambda: pane.table.rowCount() == 3, timeout=10_000)
    wrapper_line, direct_line = _line(text, "add[(triton.cdiv"), _line(text, "add[(1,)]")
    cells = [[pane.table.item(r, c).text() for c in range(pane.table.columnCount())] for r in range(3)]
    # the loop's 5 launches are one row; then the direct launch; then the other specialization
    assert [(c[1], c[2], c[3]) for c in cells] == [
        ("16x1x1", "5", f"{path.name}:{wrapper_line}"),
        ("1x1x1", "1", f"{path.name}:{direct_line}"),
        ("4x1x1", "1", f"{path.name}:{wrapper_line}"),
    ]
    assert "n=4096" in cells[0][4] and cells[1][4] == LATER_ARGUMENTS and "n=1000" in cells[2][4]
    # n is 16-aligned at 4096 and not at 1000: the specialization differs, said in bold
    assert "n: i32 16-aligned" in cells[0][5] and "n: i32," in cells[2][5]
    assert cells[2][5].startswith("≠ n: i32 · ")  # what changed first: the column is narrow
    bold = [[pane.table.item(r, c).font().bold() for c in range(6)] for r in range(3)]
    assert bold[1] == [False, True, False, False, False, False]  # only the grid
    assert bold[2][1] and bold[2][4] and bold[2][5]
    assert "differs from the launch of add above" in pane.table.item(2, 5).toolTip()
    # a double-click shows the calling line in the source
    pane.table.cellDoubleClicked.emit(1, 0)
    qtbot.waitUntil(lambda: w.source_pane.view.current_line() == direct_line, timeout=5_000)
