"""Diff with the previous compile (Ctrl+D) in a first hour (issue 54, Low): it opens on a
stage that differs, and says how an edit makes a previous compile."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_testing import KERNELS


def test_ctrl_d_opens_on_the_first_stage_that_differs_and_says_how_edits_compile(
    qtbot, make_window, tmp_path
):
    """Ctrl+D opened on an "identical" TTIR while the page named the stages that differ,
    and before any edit it said "edit the file and save it", where an unsaved edit
    compiles as it is typed."""
    path = tmp_path / "vector_add.py"
    text = (KERNELS / "vector_add.py").read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    assert w.show_pane("diff")
    pane = w.diff_pane
    w.pane_action("diff", "compare_previous")  # Ctrl+D before any edit
    hint = pane.explain.text()
    assert "No earlier compile" in hint and "as you type" in hint and "save it" not in hint, hint
    w.features.files.set_live(False)  # File ▸ Recompile as You Type off: a save compiles
    w.pane_action("diff", "compare_previous")
    assert "save it (Ctrl+S" in pane.explain.text()
    w.features.files.set_live(True)
    # an unsaved edit TTIR does not see: the launch's num_warps is TTGIR's
    edited = text.replace("BLOCK_SIZE=1024)", "BLOCK_SIZE=1024, num_warps=8)")
    assert edited != text
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(edited)
    assert w.session.previous_result is not None
    w.pane_action("diff", "compare_previous")
    qtbot.waitUntil(lambda: pane.comparison is not None, timeout=30_000)
    qtbot.waitUntil(lambda: pane.left_stage.currentText() != "ttir", timeout=10_000)
    assert pane.left_stage.currentText() == pane.right_stage.currentText() == "ttgir"
    assert pane.diff.summary.text() != "identical"
    assert "stages that differ: TTGIR" in pane.explain.text()


def test_the_compare_mode_and_its_capture_note_go_with_their_file(qtbot, make_window, tmp_path):
    """Ctrl+D on one file, then another file opened: the Diff pane still compared with
    "the previous compile" (of a file it had none of) and kept the last file's capture
    note. Another file starts on this compile, as Find's term goes (FindBar.reset); the
    same file opened again keeps the mode."""
    first, second = tmp_path / "vector_add.py", tmp_path / "two_kernels.py"
    for path in (first, second):
        path.write_text((KERNELS / path.name).read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, first)
    assert w.show_pane("diff")
    pane = w.diff_pane
    w.pane_action("diff", "compare_previous")
    assert pane.right_target.currentText() == "the previous compile"
    assert "no earlier compile" in pane.capture_note.text()
    open_and_wait(qtbot, w, first)  # the same file: its mode stays
    assert pane.right_target.currentText() == "the previous compile"
    open_and_wait(qtbot, w, second)
    assert pane.right_target.currentText() == "this compile"
    assert pane.left_label.text().startswith("A · left") and pane.other_result is None
    assert "No earlier compile" not in pane.explain.text()
    qtbot.waitUntil(lambda: pane.comparison is not None, timeout=30_000)
    assert "no earlier compile" not in pane.capture_note.text()
    assert pane.left_kernel.count() == pane.right_kernel.count() == len(w.session.result.kernels)


def test_the_sides_offer_sass_once_it_is_made(qtbot, make_window, tmp_path):
    """SASS and ELF are made after the text stages (issue 51); the Diff pane filled its
    stage lists from the first result and never offered SASS, while its explanation
    named SASS's differing lines (first-hour run, issue 54). The stage chosen stays."""
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    assert w.show_pane("diff")
    pane = w.diff_pane
    pane.left_stage.setCurrentText("ptx")
    qtbot.waitUntil(lambda: not w.session.awaiting_derived, timeout=120_000)
    assert "sass" in w.session.kernel.stages
    for box in (pane.left_stage, pane.right_stage):
        offered = [box.itemText(i) for i in range(box.count())]
        assert offered[:4] == ["ttir", "ttgir", "llir", "ptx"] and "sass" in offered, offered
    assert pane.left_stage.currentText() == "ptx"
