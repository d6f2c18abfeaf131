"""The user's edits are never lost or contradicted (issue 30, rows 2, 3 and 4): a change
made outside kx reloads the file or asks, Save never overwrites a change it has not
shown, F5 compiles what the pane shows, a failing autosave says so in the window, and
restoring an autosave asks the same trust question as opening the file."""

from __future__ import annotations

import hashlib

from gui_helpers import open_and_wait
from kx_testing import KERNELS


def _copy(tmp_path, name: str = "vector_add.py"):
    path = tmp_path / name
    path.write_text((KERNELS / name).read_text())
    return path


def _content(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_an_outside_change_without_edits_reloads_and_recompiles(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    changed = path.read_text() + "\n# changed by another editor\n"
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        path.write_text(changed)
    assert w.source_pane.text() == changed and not w.source_pane.dirty
    assert w.session.build.content == _content(changed)


def test_an_outside_change_with_edits_asks_and_keeps_mine(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    asked = []
    w.source_pane.ask_outside_change = lambda p, theirs: asked.append(theirs) or "mine"
    w.source_pane.view.appendPlainText("# my edit")
    theirs = path.read_text() + "\n# their edit\n"
    path.write_text(theirs)
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert asked == [theirs] and w.source_pane.text().endswith("# my edit") and w.source_pane.dirty
    # mine was kept knowingly: Save writes it
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        assert w.source_pane.save()
    assert path.read_text().endswith("# my edit")


def test_save_never_overwrites_a_change_it_has_not_shown(qtbot, make_window, tmp_path):
    """The change lands just before Save, before the watcher has said anything: Save
    asks first; taking theirs keeps the file as the other editor wrote it."""
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    asked = []
    w.source_pane.ask_outside_change = lambda p, theirs: asked.append(p) or "theirs"
    w.source_pane.view.appendPlainText("# my edit")
    theirs = path.read_text() + "\n# their edit\n"
    w.source_pane.watcher.blockSignals(True)  # Save comes first
    path.write_text(theirs)
    assert not w.source_pane.save()
    w.source_pane.watcher.blockSignals(False)
    assert asked == [str(path)] and path.read_text() == theirs
    assert w.source_pane.text() == theirs and not w.source_pane.dirty


def test_f5_compiles_what_the_pane_shows(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.source_pane.view.appendPlainText("# an unsaved edit")
    shown = w.source_pane.text()
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.recompile()
    assert path.read_text() == shown and w.session.build.content == _content(shown)


def test_a_failing_autosave_says_so_in_the_window(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    w.recovery.folder = blocker / "recovery"  # mkdir fails, even for root
    w.source_pane.view.appendPlainText("# typed")
    qtbot.waitUntil(lambda: "autosave failed" in (w.last_error or ""), timeout=5_000)
    # the status line is rewritten by the compile the edit starts; the warning stays
    assert "not backed up" in w.last_error and not w.backup_label.isHidden()
    assert "autosave failed" in w.backup_label.toolTip()
    w.recovery.folder = tmp_path / "recovery"  # a folder again: the next autosave works
    w.source_pane.view.appendPlainText("# typed again")
    qtbot.waitUntil(lambda: w.backup_label.isHidden(), timeout=5_000)
    assert w.recovery.pending()


def test_restoring_an_autosave_asks_the_trust_question(qtbot, make_window, tmp_path):
    """Row 2: an autosave of a file in a folder never trusted is shown, not run, when
    the user answers 'show without running'."""
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.source_pane.view.appendPlainText("# typed before the crash")
    qtbot.waitUntil(lambda: bool(w.recovery.pending()), timeout=5_000)
    w2 = make_window()
    w2.ask_in_headless = True
    asked = []
    w2.ask_trust = lambda folder: asked.append(folder) or "source"
    generation = w2.session.generation
    assert w2.offer_recovery(ask=lambda e: True)
    assert asked == [str(tmp_path)]
    assert not w2.session.running and w2.session.generation == generation and not w2.session.compiling
    assert w2.source_pane.text().endswith("# typed before the crash")


def test_an_undone_edit_leaves_nothing_to_recover(qtbot, make_window, tmp_path):
    """Typed, autosaved, then undone back to the saved text: the next start asked to
    restore 'unsaved edits' that were the file itself (first-user run under Xvfb)."""
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    view = w.source_pane.view
    view.appendPlainText("# typed")
    qtbot.waitUntil(lambda: bool(w.recovery.pending()), timeout=5_000)
    view.undo()
    assert not w.source_pane.dirty
    qtbot.waitUntil(lambda: not w.recovery.pending(), timeout=5_000)
    asked = []
    assert not make_window().offer_recovery(ask=lambda e: asked.append(e) or True)
    assert asked == []


def test_an_autosave_equal_to_the_file_is_not_offered(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    w.recovery.save(str(path), path.read_text())  # e.g. left by an older kx
    asked = []
    assert not w.offer_recovery(ask=lambda e: asked.append(e) or True)
    assert asked == [] and not w.recovery.pending()


def test_a_clean_close_removes_the_files_autosave(qtbot, make_window, tmp_path):
    path = _copy(tmp_path)
    w = make_window()
    open_and_wait(qtbot, w, path)
    w.recovery.save(str(path), "# an older session's text\n")
    w.close()
    assert not w.recovery.pending()
