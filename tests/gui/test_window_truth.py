"""The window tells the truth (issue 31): every pane shows the current build or says it
has nothing for it; a target switch, opening without running, Cancel and a failed
compile leave no other build's results presented as current."""

from __future__ import annotations

import numpy as np
import pytest

from gui_helpers import hover_line, open_and_wait, wait_derived
from kx_testing import ROOT

EXAMPLES = ROOT / "kx_core" / "data" / "examples"


def _open_a_copy(qtbot, make_window, tmp_path, name: str = "two_kernels.py"):
    """A window on a copy of an example (the test edits it); the window and its text."""
    path = tmp_path / name
    original = (EXAMPLES / name).read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    return w, original


def _switch_and_wait(qtbot, w, target: str):
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.features.targets.set_target(target)
    wait_derived(qtbot, w)  # SASS comes from the same job just after the text stages
    return w.session.result


def test_a_target_switch_from_the_sass_tab_fills_every_stage(qtbot, make_window):
    """Switching to hip:gfx942 while SASS is the tab shown used to leave TTIR, TTGIR and
    LLVM IR empty (also after switching back)."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    stages = w.stage_pane
    assert stages.select_stage("sass")
    for target, backend_only in (("hip:gfx942", "amdgcn"), ("cuda:90", "sass")):
        result = _switch_and_wait(qtbot, w, target)
        assert result.target.spec == target
        for name in ("ttir", "ttgir", "llir", backend_only):
            assert stages.select_stage(name), name
            text = stages.views[name].toPlainText()
            assert text.strip() and text == stages.filtered[name].text, (target, name)
            marker = {"ttir": "tt.func", "ttgir": "#ttg.", "llir": "define "}.get(name, "")
            assert marker in text, (target, name)


def test_a_target_switch_lands_on_the_machine_code_chosen_and_links_it(qtbot, make_window):
    """From SASS, hip:gfx942 shows AMDGCN, linked like every stage; back on cuda:90 it is
    SASS again (it was PTX: the tab at AMDGCN's index)."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    stages = w.stage_pane
    assert stages.select_stage("sass")
    load = next(
        i for i, t in enumerate((EXAMPLES / "two_kernels.py").read_text().splitlines(), 1) if "tl.load" in t
    )
    _switch_and_wait(qtbot, w, "hip:gfx942")
    qtbot.waitUntil(lambda: w.session.kernel is not None, timeout=10_000)
    assert stages.current_stage() == "amdgcn"
    links = w.session.select_source_line(load)
    assert links.get("amdgcn") and stages.views["amdgcn"].emphasis == set(stages.shown_links("amdgcn"))
    _switch_and_wait(qtbot, w, "cuda:90")
    qtbot.waitUntil(lambda: w.session.kernel is not None, timeout=10_000)
    assert stages.current_stage() == "sass"
    assert stages.views["sass"].emphasis  # the selected line stays linked


def test_stage_option_raises_stages_from_any_workspace(qtbot, make_window):
    """`main.py FILE --stage ttgir` on a window left in the Labs workspace (no Stages)."""
    from kx_gui.app import apply_view_options, parse_args

    w = make_window("cuda:90")
    w.set_workspace("labs")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    assert not w.docks["stages"].isVisible()
    apply_view_options(w, parse_args([str(EXAMPLES / "two_kernels.py"), "--stage", "ttgir"]))
    assert w.docks["stages"].isVisible() and w.stage_pane.current_stage() == "ttgir"
    assert "#ttg." in w.stage_pane.views["ttgir"].toPlainText()


def _nothing_of_the_last_file(w) -> None:
    """No pane presents a result: stages empty, no kernel rows, no summary columns."""
    assert w.session.result is None and w.session.kernel is None
    assert all(not v.toPlainText().strip() for v in w.stage_pane.views.values())
    assert w.kernels_pane.table.rowCount() == 0
    assert w.summary_pane.table.columnCount() == 0
    assert w.pipeline_pane.table.rowCount() == 0


def test_open_without_running_leaves_nothing_of_the_last_file(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    w.show_pane("summary")
    assert w.kernels_pane.table.rowCount() > 0 and w.summary_pane.table.columnCount() > 0
    other = tmp_path / "untrusted" / "vector_add.py"
    other.parent.mkdir()
    other.write_text((EXAMPLES / "vector_add.py").read_text())
    w.ask_in_headless = True
    w.ask_trust = lambda folder: "source"  # "show without running"
    assert w.open_file(str(other))
    _nothing_of_the_last_file(w)
    badge = w.stage_pane.badge
    assert badge.isVisible() and "without running" in badge.text()
    assert w.pane("summary").badge.text() == badge.text()
    assert not w.pane("source").badge  # the editor shows the file itself
    # a row of its own: it covers neither the Kernels header nor the first Problems row
    for pane, covered in ((w.kernels_pane, w.kernels_pane.table), (w.problems_pane, w.problems_pane.list)):
        w.show_pane(pane.name)
        top = covered.mapTo(pane, covered.rect().topLeft()).y()
        assert pane.badge.isVisible() and pane.badge.geometry().bottom() < top, pane.name


def test_file_menu_opens_without_running_even_a_trusted_file(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    entries = [a.text() for a in w.menuBar().actions()[0].menu().actions()]
    assert "Open &Without Running…" in entries
    generation = w.session.generation
    assert w.features.trust.open_without_running(str(EXAMPLES / "vector_add.py"))
    assert not w.session.running and w.session.generation == generation and not w.session.compiling
    _nothing_of_the_last_file(w)
    assert "without running" in w.stage_pane.badge.text()
    assert "add_kernel" in w.source_pane.text()
    assert "not trusted" not in w.status_label.text()  # it was opened so, not for its folder
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.recompile()  # F5 runs it (it did nothing)
    assert w.session.running and w.session.result.kernels[0].name == "add_kernel"


def test_cancel_of_a_hanging_file_leaves_no_other_results(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    hang = tmp_path / "hang.py"
    hang.write_text("import time\nwhile True:\n    time.sleep(0.1)\n")
    assert w.open_file(str(hang), trusted=True)
    assert w.session.compiling and "compiling" in w.stage_pane.badge.text()
    _nothing_of_the_last_file(w)
    w.session.cancel()
    assert "cancelled" in w.stage_pane.badge.text() and w.stage_pane.badge.isVisible()
    _nothing_of_the_last_file(w)


def test_a_recompile_marks_the_shown_results_previous(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    assert not w.stage_pane.badge.isVisible()
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.session.compile(use_cache=False)
        assert w.stage_pane.badge.isVisible() and w.stage_pane.badge.text().startswith("previous build")
        assert w.kernels_pane.table.rowCount() > 0  # kept, but marked
    assert not w.stage_pane.badge.isVisible()


def test_find_count_and_layout_go_with_the_text_they_were_of(qtbot, make_window):
    from gui_helpers import finished

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    stages = w.stage_pane
    stages.select_stage("ttgir")
    stages.find_bar.field.setText("tt.load")
    assert stages.find_bar.find()
    assert "match" in stages.find_bar.status.text()
    ttgir = w.session.kernel.stages["ttgir"].splitlines()
    line = next(i for i, t in enumerate(ttgir, 1) if "tt.load" in t)
    layout = w.layout_pane
    w.session.select_ir_line("ttgir", line)
    qtbot.waitUntil(lambda: not layout.jobs.busy(), timeout=60_000)
    assert layout.ownership is not None or layout._access_mask is not None
    assert finished(qtbot, layout.jobs.submit("noop", lambda: None, lambda _v: True))
    w.session.select_kernel(1)  # the other kernel of the file
    assert layout.ownership is None and "another kernel" in layout.info.text()
    assert stages.find_bar.status.text() == ""
    # another file: the layout field held the last file's layout (Find's text stays, as in
    # an editor: a search is the user's, not the file's; its count went above)
    assert layout.layout_field.text()
    open_and_wait(qtbot, w, EXAMPLES / "vector_add.py")
    assert layout.layout_field.text() == ""


def test_occupancy_follows_the_config_selected_in_kernels(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, EXAMPLES / "matmul_autotune.py")
    assert w.show_pane("autotune")
    pane = w.autotune_pane
    qtbot.waitUntil(lambda: bool(pane.rows), timeout=10_000)  # drawn on the next turn
    configs = [i for i, k in enumerate(result.kernels) if k.status == "compiled" and k.config]
    assert len(configs) >= 2
    for index in configs[:3]:
        w.session.select_kernel(index)
        k = result.kernels[index]
        assert pane._curve_row is not None and pane._curve_row.config == k.config.label


def test_occupancy_draws_nothing_of_a_triton_kernel_once_a_cpp_file_is_open(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "matmul_autotune.py")
    assert w.show_pane("autotune")
    pane = w.autotune_pane
    pane.tabs.setCurrentIndex(1)  # Occupancy: built when first shown
    qtbot.waitUntil(
        lambda: pane._curve_row is not None and "CTAs/SM" in pane.curve_info.text(), timeout=10_000
    )
    # steps, not slopes: each segment of a curve is level or vertical
    for plot in pane.curve_plots.values():
        xs, ys = plot.getPlotItem().listDataItems()[0].getData()
        assert len(xs) > 2
        assert all(xs[i] == xs[i + 1] or ys[i] == ys[i + 1] for i in range(len(xs) - 1))
    result = open_and_wait(qtbot, w, EXAMPLES / "cpu" / "rmsnorm_avx2.cpp")
    assert result.target.backend == "cpu"
    w.show_pane("autotune")
    qtbot.waitUntil(lambda: pane._curve_row is None, timeout=10_000)
    assert "GPU figure" in pane.curve_info.text() and "matmul" not in pane.curve_info.text()
    assert all(not plot.getPlotItem().listDataItems() for plot in pane.curve_plots.values())


def test_a_rebuild_keeps_the_config_selected_in_kernels(qtbot, make_window, tmp_path):
    path = tmp_path / "matmul_autotune.py"
    text = (EXAMPLES / "matmul_autotune.py").read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, path)
    configs = [i for i, k in enumerate(result.kernels) if k.status == "compiled" and k.config]
    assert len(configs) >= 2
    w.session.select_kernel(configs[-1])
    chosen = w.session.kernel.display_name
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(text + "\n")  # an edit: a rebuild, live
    qtbot.waitUntil(lambda: w.session.kernel is not None, timeout=10_000)
    qtbot.wait(50)
    assert w.session.kernel.display_name == chosen
    rows = w.kernels_pane.table.selectionModel().selectedRows()
    assert rows and chosen.startswith(w.kernels_pane.table.item(rows[0].row(), 0).text().split("[")[0])


def test_the_window_keeps_its_1280x800_in_every_workspace(qtbot, make_window):
    """It grew to 1280x946 at show (every dock stacked before the workspace tabbed them),
    and the Occupancy page widened it to 1304."""
    w = make_window("cuda:90")
    qtbot.wait(50)
    assert w.size().toTuple() == (1280, 800)
    open_and_wait(qtbot, w, EXAMPLES / "matmul_autotune.py")
    for name in ("layout", "performance", "labs", "explore"):
        w.set_workspace(name)
        qtbot.wait(30)
        assert w.size().toTuple() == (1280, 800), name
    assert w.show_pane("autotune")
    w.autotune_pane.tabs.setCurrentIndex(1)  # Occupancy: three plots built now
    qtbot.wait(50)
    assert w.size().toTuple() == (1280, 800)
    w.autotune_pane.tabs.setCurrentIndex(2)
    assert w.autotune_pane.run_t3()  # its long, wrapped sentence
    qtbot.wait(50)
    assert w.size().toTuple() == (1280, 800)


def test_the_source_is_highlighted_when_opened(qtbot, make_window):
    """Not only after the first edit: setPlainText's empty intermediate document had
    been lexed and looked current."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    doc = w.source_pane.view.document()
    line = next(i for i in range(doc.blockCount()) if doc.findBlockByNumber(i).text().startswith("def "))
    qtbot.wait(20)
    formats = doc.findBlockByNumber(line).layout().formats()
    assert formats and formats[0].start == 0  # "def" is a keyword, coloured from column 0


def test_enter_keeps_the_indentation(qtbot, make_window):
    from PySide6.QtCore import Qt

    from kx_gui.widgets.code_view import indent_after

    assert indent_after("def f(x):") == "    "
    assert indent_after("    for i in range(3):  # a loop") == "        "
    assert indent_after("        return x") == "    "
    assert indent_after("    y = x") == "    "
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    view = w.source_pane.view
    doc = view.document()
    line = next(i for i in range(doc.blockCount()) if doc.findBlockByNumber(i).text().startswith("def "))
    cursor = view.textCursor()
    cursor.setPosition(doc.findBlockByNumber(line).position() + len(doc.findBlockByNumber(line).text()))
    view.setTextCursor(cursor)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.keyClicks(view, "z = 1")
    assert doc.findBlockByNumber(line + 1).text() == "    z = 1"
    assert w.editor.dirty  # an edit like any other: kept, saved with Ctrl+S


def test_the_roofline_names_its_bytes_and_draws_the_launch_floor(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "fused_softmax.py")
    assert w.show_pane("roofline")
    pane = w.roofline_pane
    qtbot.waitUntil(lambda: bool(pane.models), timeout=10_000)  # drawn on the next turn
    axis = pane.plot.getAxis("bottom").labelText
    assert "requested" in axis and "DRAM byte)" not in axis
    floors = [c for c in pane.plot.getPlotItem().listDataItems() if c.name() and "launch floor" in c.name()]
    assert len(floors) == 1
    xs, ys = floors[0].getData()
    (m,) = pane.models
    assert ys[0] == pytest.approx(np.log10(m.roofline.flops / m.launch_floor_s))


def test_a_text_that_does_not_compile_keeps_the_last_good_build_marked(qtbot, make_window, tmp_path):
    w, original = _open_a_copy(qtbot, make_window, tmp_path)
    ttir = w.stage_pane.views["ttir"].toPlainText()
    assert ttir.strip()
    broken = original.replace("mask = offs < n", "mask = offs < n)", 1)
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(broken)  # typed: live recompile
    assert w.stage_pane.views["ttir"].toPlainText() == ttir  # kept
    assert w.kernels_pane.table.rowCount() > 0
    assert "last good build" in w.stage_pane.badge.text() and w.stage_pane.badge.isVisible()
    problems = [w.problems_pane.list.item(i).text() for i in range(w.problems_pane.list.count())]
    assert any(" — syntax" in p for p in problems)
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(original + "\n")
    assert not w.stage_pane.badge.isVisible()


def test_links_follow_the_editor_lines_while_the_last_good_build_is_kept(qtbot, make_window, tmp_path):
    """Three lines typed above the kernels, the first a syntax error: the build on screen
    is the old text's, so its links move down three lines with the text, and the new
    lines link to nothing (they linked the old text's lines 1-3 before)."""
    from kx_gui.widgets.token_styles import band_color

    w, original = _open_a_copy(qtbot, make_window, tmp_path)
    load = next(i for i, t in enumerate(original.splitlines(), 1) if "tl.load" in t)
    before = w.session.select_source_line(load)
    assert before.get("ttgir")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text("x = )\n\n\n" + original)
    assert "last good build" in w.stage_pane.badge.text()
    assert w.session.select_source_line(load + 3) == before
    assert w.session.select_source_line(load) != before
    assert w.session.select_source_line(1) == {}
    stage_line = before["ttgir"][0]
    source, _ = w.session.select_ir_line("ttgir", stage_line)
    assert source == load + 3
    view = w.source_pane.view
    assert view.band_of(load + 3) == band_color(load)
    # the text compiles again: its own lines
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(original + "\n")
    wait_derived(qtbot, w)  # SASS comes from the same job just after the text stages
    assert w.session.select_source_line(load) == before


def test_undoing_a_broken_edit_back_to_the_saved_text_is_current_again(qtbot, make_window, tmp_path):
    """Typed a broken line, then undone to the saved text without saving: the badge, the
    error and links shifted by the gone line stayed until F5 (first-user run)."""
    w, original = _open_a_copy(qtbot, make_window, tmp_path)
    load = next(i for i, t in enumerate(original.splitlines(), 1) if "tl.load" in t)
    before = w.session.select_source_line(load)
    view = w.source_pane.view
    cursor = view.textCursor()
    cursor.movePosition(cursor.MoveOperation.Start)
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        cursor.insertText("x = )\n")  # typed: live recompile
    assert "last good build" in w.stage_pane.badge.text()
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        view.undo()
        assert not w.source_pane.dirty
    assert not w.stage_pane.badge.isVisible()
    assert not any(p.fatal for p in w.session.result.diagnostics)
    wait_derived(qtbot, w)  # `before` links SASS too, which comes after the text stages
    assert w.session.select_source_line(load) == before


def test_two_specializations_of_a_kernel_are_told_apart_in_kernels(qtbot, make_window):
    """two_kernels.py calls row_sum_of_squares with a 16-aligned pointer and with one
    that is not: Triton compiles it twice."""
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, EXAMPLES / "two_kernels.py")
    table = w.kernels_pane.table
    rows = [i for i, k in enumerate(result.kernels) if k.name == "row_sum_of_squares"]
    assert len(rows) == 2
    names = [table.item(r, 0).text() for r in rows]
    assert len(set(names)) == 2
    assert sorted(names) == ["row_sum_of_squares (x_ptr not %16)", "row_sum_of_squares (x_ptr%16)"]
    assert table.item(
        next(i for i, k in enumerate(result.kernels) if k.name == "scale_kernel"), 0
    ).text() == ("scale_kernel")


def test_a_clicked_ir_line_stays_in_view(qtbot, make_window):
    """Clicking a SASS line linked the others and scrolled its own view to the links'
    main instruction, away from the line clicked."""
    from gui_helpers import click_line

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "matmul.py")
    stages = w.stage_pane
    assert stages.select_stage("sass")
    view = stages.views["sass"]
    sm = w.session.source_map
    lines = view.toPlainText().splitlines()
    # a linked line far from the first of its statement's lines
    for shown in range(len(lines), 0, -1):
        full = stages.filtered["sass"].original_line(shown)
        if sm.source_lines("sass", full):
            break
    click_line(qtbot, view, shown)
    qtbot.wait(20)
    assert w.session.link_origin == ("sass", full)
    assert shown in view.visible_lines()


def test_hovering_a_ptx_or_sass_instruction_gives_its_help(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, EXAMPLES / "vector_add.py")
    stages = w.stage_pane
    for stage, op in (("ptx", "ld.global"), ("sass", "LDG")):
        assert stages.select_stage(stage)
        view = stages.views[stage]
        lines = view.toPlainText().splitlines()
        line = next(i for i, t in enumerate(lines, 1) if op in t)
        assert view.help_at(line).startswith(op)
        # what a real mouse gets: the viewport's ToolTip event, with tracking as it is
        assert view.help_at(line) in hover_line(qtbot, view, line).splitlines()
    assert stages.views["ttir"].help_at(1) is None
    assert stages.views["ttir"].tip_for_text_line(1) is None
