"""Ctrl+G links the line it goes to, as a click does (issue 54, Low): it moved the cursor
and linked nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog

from gui_helpers import open_and_wait
from kx_testing import KERNELS


def test_go_to_line_links_the_line_in_the_source_and_in_a_stage(qtbot, make_window, monkeypatch, tmp_path):
    path = tmp_path / "vector_add.py"
    text = (KERNELS / "vector_add.py").read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "tl.load(x_ptr" in t)
    links = []
    w.session.link_changed.connect(lambda source_line, by_stage: links.append((source_line, by_stage)))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (line, True))
    w.source_pane.ask_line()
    assert w.source_pane.view.current_line() == line
    assert links and links[-1][0] == line and links[-1][1].get("ttir"), links[-1:]
    # in a stage: the TTIR line it goes to (the view's line of the first linked one)
    # links back to the source line
    assert w.stage_pane.select_stage("ttir")
    shown = w.stage_pane.filtered["ttir"].shown_line(links[-1][1]["ttir"][0])
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (shown, True))
    links.clear()
    w.stage_pane.ask_line()
    assert links and links[-1][0] == line


def test_a_search_does_not_carry_over_to_another_file(qtbot, make_window, tmp_path):
    """Issue 54, Low: Find's text stayed in the bar for the next file opened."""
    first, second = tmp_path / "vector_add.py", tmp_path / "two_kernels.py"
    first.write_text((KERNELS / "vector_add.py").read_text())
    second.write_text((KERNELS / "two_kernels.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, first)
    for bar in (w.source_pane.find_bar, w.stage_pane.find_bar):
        bar.open()
        bar.field.setText("load")
        assert bar.find()
    open_and_wait(qtbot, w, first)  # the same file again: the search stays
    assert w.source_pane.find_bar.field.text() == "load"
    open_and_wait(qtbot, w, second)
    for bar in (w.source_pane.find_bar, w.stage_pane.find_bar):
        assert bar.field.text() == "" and not bar.isVisible()
