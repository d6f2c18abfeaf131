"""Header and status lines at 1280 px (issue 54, Low): a line longer than its room is cut
with "…" and its whole text is the tooltip; none widens the window."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_testing import KERNELS

LONG = (
    "not compiled at line 7: Helion is not installed (No module named 'helion'): pip install "
    "'kx[helion]', then compile again — 0 kernels for cuda:90 (triton 3.8.0) in 0.0 s, from cache — "
    "your copy of the example: /home/someone/.local/state/kx/examples/helion_rows.py (kx's own stays "
    "as shipped)"
)


def _cut_with_the_whole_on_hover(label, whole: str) -> None:
    shown = label.shown_text()
    assert label.text() == whole
    assert shown != whole and shown.endswith("…") and whole.startswith(shown[:-1].rstrip())
    assert label.fontMetrics().horizontalAdvance(shown) <= label.width()
    assert whole in label.toolTip()
    assert label.minimumSizeHint().width() < label.width()  # never sets the window's width


def test_long_status_and_header_lines_are_cut_with_the_whole_on_hover(qtbot, make_window):
    w = make_window("cuda:90")
    w.resize(1280, 800)
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    # the status line, set directly and through the session's progress signal
    w.status_label.setText(LONG)
    qtbot.wait(50)
    _cut_with_the_whole_on_hover(w.status_label, LONG)
    w.session.compile_progress.emit(LONG + " (progress)")
    qtbot.wait(50)
    _cut_with_the_whole_on_hover(w.status_label, LONG + " (progress)")
    # a short line is drawn whole, with no tooltip of its own
    w.status_label.setText("4 kernels")
    qtbot.wait(50)
    assert w.status_label.shown_text() == "4 kernels" and w.status_label.toolTip() == ""
    # the Stages pane's line above its tabs, and the Diff view's side titles
    stage = w.stage_pane
    stage.block_label.setText(LONG)
    qtbot.wait(50)
    _cut_with_the_whole_on_hover(stage.block_label, LONG)
    assert w.show_pane("diff")
    w.diff_pane.compare(0, "ttgir", 3, "ttgir")
    qtbot.wait(50)
    title = w.diff_pane.diff.right_title
    _cut_with_the_whole_on_hover(title, title.text())
    assert w.width() == 1280  # nothing widened the window
