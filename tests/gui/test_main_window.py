"""The desktop app on real compiles: stages shown, lines linked, bad input survived."""

from __future__ import annotations

import os

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QTextCursor

from gui_helpers import click_line, open_and_wait
from kx_core.ir.display_filters import filter_stage
from kx_testing import BAD, KERNELS, kernel_path, line_of


def test_tabs_hold_the_real_stage_text(qtbot, make_window):
    w = make_window("cuda:80")
    result = open_and_wait(qtbot, w, KERNELS / "two_kernels.py")
    assert [k.name for k in result.kernels] == ["scale_kernel", "row_sum_of_squares", "row_sum_of_squares"]
    pane = w.stage_pane
    assert [pane.tabs.tabText(i) for i in range(pane.tabs.count())] == [
        "TTIR",
        "TTGIR",
        "LLVM IR",
        "PTX",
        "SASS",
        "ELF",
    ]
    kernel = result.kernels[0]
    w.set_display_filter("hide_locations", False)  # the full text, as Triton wrote it
    w.set_display_filter("hide_line_comments", False)
    w.set_display_filter("shorten_paths", False)
    for stage in ("ttgir", "ptx", "sass", "elf"):
        assert pane.select_stage(stage)
        view = pane.current_view()
        qtbot.waitUntil(lambda v=view: v.fully_loaded)
        assert view.text() == kernel.stages[stage]
    assert "mma" not in kernel.stages["ptx"] and ".target sm_80" in kernel.stages["ptx"]
    assert w.kernels_pane.table.rowCount() == 3
    assert w.kernels_pane.table.item(0, 5).text() == str(kernel.metadata.registers)


def test_selecting_a_kernel_drives_the_stages(qtbot, make_window):
    w = make_window()
    result = open_and_wait(qtbot, w, KERNELS / "two_kernels.py")
    w.kernels_pane.table.selectRow(2)
    assert w.session.kernel is result.kernels[2]
    w.stage_pane.select_stage("ttir")
    shown = filter_stage(result.kernels[2].stages["ttir"], "mlir", w.session.display_filters)
    assert w.stage_pane.current_view().text() == shown.text


def test_click_source_line_links_every_stage(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "two_kernels.py")
    w.kernels_pane.table.selectRow(1)  # row_sum_of_squares, which inlines _square
    line = line_of("two_kernels.py", "return x * x")
    click_line(qtbot, w.source_pane.view, line)
    expected = w.session.source_map.ir_lines(line)
    assert set(expected) == {"ttir", "ttgir", "llir", "ptx", "sass"}
    assert w.source_pane.view.emphasis == {line}
    for stage, lines in expected.items():
        w.stage_pane.select_stage(stage)
        view = w.stage_pane.views[stage]
        shown = w.stage_pane.filtered[stage].shown_lines(lines)  # the display filters' numbering
        assert view.emphasis == set(shown)
        assert any(n in view.visible_lines() for n in shown)
    ptx = w.session.kernel.stages["ptx"].splitlines()
    assert any("mul.f32" in ptx[n - 1] for n in expected["ptx"])


def test_click_ir_line_links_source_and_other_stages(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.stage_pane.select_stage("ttgir")
    view = w.stage_pane.current_view()
    ttgir = view.text().splitlines()  # as shown: locations hidden
    store = next(i for i, t in enumerate(ttgir, start=1) if "tt.store" in t)
    click_line(qtbot, view, store)
    source = line_of("vector_add.py", "tl.store(output_ptr")
    assert w.source_pane.view.emphasis == {source}
    assert store in view.emphasis
    sass_lines = w.stage_pane.views["sass"].emphasis
    w.stage_pane.select_stage("sass")
    sass = w.stage_pane.views["sass"].text().splitlines()
    assert any("STG" in sass[n - 1] for n in w.stage_pane.views["sass"].emphasis | sass_lines), (
        sass_lines,
        w.stage_pane.views["sass"].emphasis,
        sass[:40],
    )


def test_bad_files_become_diagnostics_and_the_window_survives(qtbot, make_window):
    w = make_window(timeout_s=6.0)
    cases = {
        "bad/syntax_error.py": ("syntax", line_of("bad/syntax_error.py", "tl.arange(0, BLOCK")),
        "bad/compile_error.py": ("compile", line_of("bad/compile_error.py", "tl.arange(0, 3)")),
        "bad/infinite_loop.py": ("timeout", None),
        "bad/segfault.py": ("crash", line_of("bad/segfault.py", "string_at(0)")),
    }
    for name, (kind, line) in cases.items():
        result = open_and_wait(qtbot, w, kernel_path(name))
        (d,) = [d for d in result.diagnostics if d.fatal]
        assert d.kind == kind, name
        if line:
            assert d.line == line and line in w.source_pane.view.marks, name
        texts = [w.problems_pane.list.item(i).text() for i in range(w.problems_pane.list.count())]
        assert any(kind in t for t in texts)
        assert kind in w.status_label.text()
    # still alive: a good file opens and compiles after all that
    result = open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    assert result.ok and w.session.kernel.name == "add_kernel"


def test_unopenable_files_keep_the_open_document(qtbot, make_window, tmp_path):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.source_pane.view.appendPlainText("# my edit")
    (tmp_path / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "blob.py").write_bytes(b"\x7fELF\x00\x00\x01")
    (tmp_path / "huge.py").write_text("#" * 100 + "\n" * 50_000 + "x" * (5 * 1024 * 1024))
    reasons = {"latin1.py": "not UTF-8", "blob.py": "binary", "huge.py": "MB"}
    w.ask_save_changes = lambda: "cancel"
    assert not w.open_file(str(tmp_path / "latin1.py"))  # cancelled: unsaved edit kept
    w.ask_save_changes = lambda: "discard"
    for name, reason in reasons.items():
        w.source_pane.view.appendPlainText("# my edit")
        assert not w.session.open_file(str(tmp_path / name))
        assert reason in w.last_error
        assert w.source_pane.text().endswith("# my edit") and w.session.path.endswith("vector_add.py")
    assert not w.session.open_file(str(tmp_path))
    assert "directory" in w.last_error


def test_a_new_request_cancels_the_one_in_flight(qtbot, make_window):
    w = make_window(timeout_s=120.0)
    w.open_file(str(BAD / "infinite_loop.py"))
    qtbot.waitUntil(lambda: w.session.compiling)
    first = w.session.job
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.open_file(str(KERNELS / "vector_add.py"))
    assert blocker.args[0].kernels[0].name == "add_kernel"
    qtbot.waitUntil(lambda: first.isFinished(), timeout=10_000)
    assert w.session.result.file.endswith("vector_add.py")


def test_cancel_button_stops_the_compile(qtbot, make_window):
    w = make_window(timeout_s=120.0)
    w.open_file(str(BAD / "infinite_loop.py"))
    qtbot.waitUntil(lambda: w.cancel_button.isVisible())
    job = w.session.job
    qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: job.isFinished(), timeout=10_000)
    assert not w.cancel_button.isVisible() and "cancelled" in w.status_label.text()


def test_ctrl_s_saves_and_recompiles(qtbot, make_window, tmp_path):
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window()
    open_and_wait(qtbot, w, path)
    view = w.source_pane.view
    cursor = view.textCursor()  # an edit as typing makes it (setPlainText would be a load)
    cursor.select(QTextCursor.SelectionType.Document)
    cursor.insertText(view.toPlainText().replace("BLOCK_SIZE=1024", "BLOCK_SIZE=256"))
    assert w.source_pane.dirty and w.windowTitle().endswith("•")
    view.setFocus()
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert "BLOCK_SIZE=256" in path.read_text() and not w.source_pane.dirty
    assert blocker.args[0].kernels[0].launch.constexprs == {"BLOCK_SIZE": 256}


def test_closing_with_unsaved_edits_asks_and_keeps_them(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.source_pane.view.appendPlainText("# unsaved")
    asked = []
    w.ask_save_changes = lambda: asked.append(1) or "cancel"
    assert not w.close()
    assert asked and w.isVisible() and w.source_pane.text().endswith("# unsaved")


def test_recovery_after_a_crash_offers_the_text_back(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.source_pane.view.appendPlainText("# typed before the crash")
    qtbot.waitUntil(lambda: bool(w.recovery.pending()), timeout=5_000)  # autosave after 1 s
    # the process dies here: no close, no clean-up; a new window starts
    w2 = make_window()
    offered = []
    with qtbot.waitSignal(w2.result_shown, timeout=300_000):
        assert w2.offer_recovery(ask=lambda e: offered.append(e.path) or True)
    assert offered == [str(KERNELS / "vector_add.py")]
    assert w2.source_pane.text().endswith("# typed before the crash") and w2.source_pane.dirty


def test_recovery_of_a_deleted_file_shows_its_text_unsaved(qtbot, make_window, tmp_path):
    f = tmp_path / "gone.py"
    f.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window()
    open_and_wait(qtbot, w, f)
    w.source_pane.view.appendPlainText("# typed before the crash")
    qtbot.waitUntil(lambda: bool(w.recovery.pending()), timeout=5_000)
    f.unlink()
    w2 = make_window()
    assert w2.offer_recovery(ask=lambda e: True)
    assert w2.source_pane.text().endswith("# typed before the crash") and w2.source_pane.dirty
    assert "no longer exists" in w2.status_label.text()
    with qtbot.waitSignal(w2.result_shown, timeout=300_000):
        assert w2.source_pane.save()  # Save writes it back and compiles
    assert f.exists() and not w2.recovery.pending()
    w3 = make_window()
    assert not w3.offer_recovery(ask=lambda e: True)  # not asked again


def test_settings_remember_recent_files_and_target(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.features.targets.set_target("cuda:80")
    qtbot.waitUntil(lambda: not w.session.compiling, timeout=300_000)
    w.close()
    w2 = make_window(target=None)
    assert w2.session.target == "cuda:80"
    assert w2.features.files.recent_menu.actions()[0].text() == str(KERNELS / "vector_add.py")


def test_dropping_a_file_opens_it(qtbot, make_window):
    w = make_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(KERNELS / "fused_softmax.py"))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.dropEvent(event)
    assert blocker.args[0].kernels[0].name == "softmax_kernel"
    assert os.path.basename(w.session.path) == "fused_softmax.py"


def test_find_and_go_to_line(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    w.source_pane.find_bar.field.setText("tl.store")
    assert w.source_pane.find_bar.find()
    assert w.source_pane.view.current_line() == line_of("vector_add.py", "tl.store")
    w.source_pane.go_to_line(3)
    assert w.source_pane.view.current_line() == 3


def test_a_match_far_down_is_shown_in_the_middle_not_on_the_edge(qtbot, make_window):
    w = make_window()
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.resize(1000, 500)
    w.show()
    view = w.source_pane.view
    w.source_pane.go_to_line(1)
    w.source_pane.find_bar.field.setText("accumulator = tl.dot")  # below the first screenful
    assert w.source_pane.find_bar.find()
    height = view.viewport().height()
    assert height / 4 <= view.cursorRect().center().y() <= 3 * height / 4


def test_an_untrusted_folder_asks_before_running(qtbot, make_window, tmp_path):
    f = tmp_path / "untrusted.py"
    f.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window()
    w.headless = False  # headless windows (tests, --screenshot) are given their file by name
    asked = []
    w.ask_trust = lambda folder: asked.append(folder) or "source"
    assert w.open_file(str(f))
    assert asked == [str(tmp_path)] and not w.session.running and not w.session.compiling
    assert "not trusted" in w.status_label.text() and w.source_pane.text().startswith('"""')
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.features.trust.trust_this_folder()
    asked.clear()
    g = tmp_path / "second.py"
    g.write_text(f.read_text())
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        assert w.open_file(str(g))
    assert asked == []  # the folder is trusted now
    w.ask_trust = lambda folder: "cancel"
    other = tmp_path.parent / f"{tmp_path.name}-other"
    other.mkdir()
    h = other / "third.py"
    h.write_text(f.read_text())
    assert not w.open_file(str(h)) and w.session.path == str(g)


def test_target_menu_lists_the_triton_versions_kx_manages(qtbot, make_window, tmp_path, monkeypatch):
    """Target ▸ Triton Version: kx's own, then each managed version (kx versions add);
    choosing one compiles with that version's interpreter."""
    from importlib.metadata import version

    from kx_core.base import triton_envs

    monkeypatch.setenv("KX_VERSIONS_DIR", str(tmp_path / "versions"))
    env = triton_envs.add(version("triton"), log=lambda _line: None)  # linked: no download
    w = make_window()
    w.features.versions.fill_versions()
    actions = [a for a in w.features.versions.menu.actions() if a.isCheckable()]
    assert [a.text() for a in actions] == [
        f"kx's own (triton {version('triton')})",
        f"triton {env.triton} (torch {env.torch})",
    ]
    assert actions[0].isChecked()
    actions[1].trigger()
    assert w.session.python == env.python
    w.features.versions.fill_versions()
    assert [a.isChecked() for a in w.features.versions.menu.actions() if a.isCheckable()] == [False, True]


def test_an_example_opens_as_the_users_copy(qtbot, make_window):
    """Ctrl+S on an example from File ▸ Examples wrote kx's shipped file (first-user run):
    the menu opens a copy in kx's state folder, with the files beside it, once."""
    from kx_core.base.data import data_path

    w = make_window()
    shipped = data_path("examples", "vector_add.py")
    original = shipped.read_text()
    action = next(a for a in w.features.examples.menu.actions() if a.text() == "vector_add.py")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()
    copy = w.session.path
    assert copy != str(shipped) and copy.endswith("vector_add.py") and "examples" in copy
    w.source_pane.view.appendPlainText("# mine")
    assert w.save()
    assert shipped.read_text() == original  # kx's file untouched
    assert open(copy).read().endswith("# mine\n") or open(copy).read().endswith("# mine")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()  # again: the user's copy, edits kept
    assert w.session.path == copy and "# mine" in w.source_pane.text()
    cpp = next(a for a in w.features.examples.menu.actions() if a.text() == "cpu/rmsnorm_avx2.cpp")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        cpp.trigger()
    assert os.path.exists(os.path.join(os.path.dirname(w.session.path), "kernels.hpp"))
    assert w.session.result.kernels  # its include found beside it


def test_an_edited_example_says_so_and_restores_as_shipped_keeping_the_users_text(qtbot, make_window):
    """Edited example copies persisted with no way back (first-user run)."""
    from kx_core.base.data import data_path

    w = make_window()
    shipped = data_path("examples", "vector_add.py")
    action = next(a for a in w.features.examples.menu.actions() if a.text() == "vector_add.py")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()
    # said beside the compile's summary, which used to replace it at once (first-user run)
    assert "your copy of the example" in w.status_label.text() and "kernel" in w.status_label.text()
    copy = w.session.path
    w.source_pane.view.appendPlainText("# saved edit")
    assert w.save()
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()
    assert "your edited copy" in w.status_label.text() and "Restore This Example" in w.status_label.text()
    w.source_pane.view.appendPlainText("# unsaved edit")
    restore = next(
        a for a in w.features.examples.menu.actions() if a.text() == "Restore This Example as Shipped"
    )
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        restore.trigger()
    assert open(copy).read() == shipped.read_text() == w.source_pane.text() and not w.source_pane.dirty
    kept = [f for f in os.listdir(os.path.dirname(copy)) if f.startswith("vector_add.edited-")]
    assert len(kept) == 1
    text = open(os.path.join(os.path.dirname(copy), kept[0])).read()
    assert "# saved edit" in text and "# unsaved edit" in text  # nothing lost
    assert "as shipped again" in w.status_label.text()


def test_ctrl_z_after_restoring_an_example_brings_the_users_text_back(qtbot, make_window):
    """Restore This Example as Shipped reloaded the file, which cleared the editor's undo
    history: the user's text was only in NAME.edited-TIME.py. The restore is one edit
    of the document now, which Ctrl+Z undoes."""
    from kx_core.base.data import data_path

    w = make_window()
    shipped = data_path("examples", "vector_add.py").read_text()
    action = next(a for a in w.features.examples.menu.actions() if a.text() == "vector_add.py")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()
    view = w.source_pane.view
    view.appendPlainText("# my edit")
    mine = w.source_pane.text()
    restore = next(
        a for a in w.features.examples.menu.actions() if a.text() == "Restore This Example as Shipped"
    )
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        restore.trigger()
    assert w.source_pane.text() == shipped and not w.source_pane.dirty
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.source_pane.text() == mine and w.source_pane.dirty  # not saved: the file is as shipped
    qtbot.keyClick(
        view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert w.source_pane.text() == shipped and not w.source_pane.dirty


def test_a_dsl_example_without_its_extra_says_so_first(qtbot, make_window):
    """Issue 54: the CuTe, Helion and TileLang examples without their extras read "0
    kernels in 0.2 s" with a blue dot, `pip install` only in a truncated row's tooltip.
    Now a fatal `missing-extra` (exit 1), said first in the status bar, at the top of the
    result panes, in Kernels and in the raised Problems pane, with the install command."""
    import importlib.util

    import pytest

    from kx_core.records.languages import LANGUAGES

    missing = [
        lang
        for lang in LANGUAGES
        if lang.extra and importlib.util.find_spec(lang.module.split(".")[0]) is None
    ]
    if not missing:
        pytest.skip("every DSL extra is installed here")
    w = make_window()
    for lang in missing:
        action = next(a for a in w.features.examples.menu.actions() if a.text() == lang.example)
        with qtbot.waitSignal(w.result_shown, timeout=300_000):
            action.trigger()
        result = w.session.result
        (d,) = [d for d in result.diagnostics if d.fatal]
        assert d.kind == "missing-extra" and lang.install in d.message and lang.display_name in d.message
        assert result.exit_status == 1 and not result.kernels
        status = w.status_label.text()
        assert status.startswith(f"not compiled at line {d.line}: {lang.display_name} is not installed")
        assert status.index(lang.install) < status.index("0 kernels")
        assert w.stage_pane.badge.isVisible() and lang.install in w.stage_pane.badge.text()
        assert w.problems_pane.isVisible()  # raised: what failed comes first
        assert lang.install in w.kernels_pane.notice.text()
        assert "launched no kernel" not in w.kernels_pane.notice.text()
