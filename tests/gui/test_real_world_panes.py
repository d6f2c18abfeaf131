"""The app on real-world patterns: the Arguments form of a kernel nothing launches, and
the Kernels pane's notes for pruned configs and kernels captured after a placeholder."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_core.records.build import content_hash
from kx_testing import KERNELS, ROOT

REAL = ROOT / "fixtures" / "real_world"


def _row(pane, name: str, status: str | None = None) -> int:
    for row in range(pane.table.rowCount()):
        cell = pane.table.item(row, 0)  # the short name shown, the full name on hover
        if name in (cell.text(), cell.toolTip()) and (
            status is None or status in pane.table.item(row, 1).text()
        ):
            return row
    raise AssertionError(name)


def test_arguments_form_compiles_a_library_kernel_and_remembers(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "no_launch.py")
    assert {d.name for d in result.definitions} == {"axpy_kernel", "relu_kernel"}
    pane = w.kernels_pane
    w.session.select_kernel(_row(pane, "axpy_kernel"))
    form = pane.arguments
    assert form.isVisible() and set(form.fields) == {"x_ptr", "y_ptr", "a", "n", "BLOCK"}
    form.fields["n"].setText("8192")
    form.fields["BLOCK"].setText("512")
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        form.fields["BLOCK"].returnPressed.emit()  # Enter compiles
    merged = blocker.args[0]
    compiled = [k for k in merged.kernels if k.name == "axpy_kernel"]
    assert [k.status for k in compiled] == ["compiled"]
    assert compiled[0].launch.constexprs == {"BLOCK": 512}
    assert compiled[0].specialization.attrs["n"] == [["tt.divisibility", 16]]  # 8192, as a real call
    assert any(k.name == "relu_kernel" and k.status == "not-launched" for k in merged.kernels)
    assert w.session.kernel.name == "axpy_kernel" and not form.isVisible()
    assert (
        w.stage_pane.select_stage("ptx") and ".entry axpy_kernel" in w.stage_pane.views["ptx"].toPlainText()
    )
    # reopening the file brings the values back
    open_and_wait(qtbot, w, KERNELS / "no_launch.py")
    w.session.select_kernel(_row(pane, "axpy_kernel"))
    assert form.fields["n"].text() == "8192" and form.fields["BLOCK"].text() == "512"


def test_kernels_pane_notes_pruned_failed_and_after_placeholder(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, REAL / "autotune_prune.py")
    pane = w.kernels_pane
    note = pane.table.columnCount() - 1
    pruned = _row(pane, "matmul_kernel[BM=256,BN=256,BK=128,w8,s5]")
    assert (
        pane.table.item(pruned, 1).text() == "pruned"
        and "shared memory" in pane.table.item(pruned, note).text()
    )
    failed = _row(pane, "matmul_kernel[BM=128,BN=64,BK=16,w4,s3]")
    assert "BK must be at least 32" in pane.table.item(failed, note).text()
    open_and_wait(qtbot, w, REAL / "checks_between_launches.py")
    marked = [row for row in range(pane.table.rowCount()) if pane.table.item(row, 1).text().endswith("*")]
    assert len(marked) == 2
    assert all("torch.allclose" in pane.table.item(row, note).text() for row in marked)


def test_diff_pane_puts_another_interpreters_compile_beside(qtbot, make_window, tmp_path):
    """The right side compiled by another Python: here one whose environment has a
    package kx's own lacks, so only it can run the file."""
    from kx_testing import make_venv

    py = make_venv(tmp_path / "user", [REAL / "other_env"])
    w = make_window("cuda:90")
    w.session.python = str(py)
    result = open_and_wait(qtbot, w, REAL / "needs_other_env.py")
    assert result.ok and result.kernels[0].name == "probe_copy"
    pane = w.diff_pane
    with qtbot.waitSignal(pane.other_compiled, timeout=300_000) as blocker:
        pane.compare_python(str(py))
    other = blocker.args[0]
    assert other.kernels[0].stages["ptx"] == result.kernels[0].stages["ptx"]
    assert pane.right_target.currentText() == "another Python…"
    pane.compare(0, "ttgir", 0, "ttgir")
    assert f"triton {other.triton_version}" in pane.diff.right_title.text()
    assert "cuda:90" in pane.diff.left_title.text()


def _fill_and_compile(qtbot, w, kernel: str, values: dict[str, str]):
    pane = w.kernels_pane
    w.session.select_kernel(_row(pane, kernel))
    form = pane.arguments
    assert form.isVisible()
    for name, value in values.items():
        form.fields[name].setText(value)
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        form.fields[name].returnPressed.emit()  # Enter compiles
    return blocker.args[0]


AXPY = {"x_ptr": "fp32[4096]", "y_ptr": "fp32[4096]", "a": "2.0", "n": "4096", "BLOCK": "512"}


def test_the_arguments_form_compiles_the_editors_text(qtbot, make_window, tmp_path):
    """Issue 54: unsaved edits are what the form compiles (it compiled the file on disk
    and linked that old TTIR to the new lines): the edit's error at its line, the file
    untouched."""
    path = tmp_path / "no_launch.py"
    original = (KERNELS / "no_launch.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    w.features.files.live_action.setChecked(False)  # only the form compiles
    open_and_wait(qtbot, w, path)
    store = "    tl.store(y_ptr + offs, a * x + y, mask=mask)\n"
    edited = original.replace(store, "    z = tl.dot(x, y)\n" + store, 1)
    w.source_pane.replace_text(edited)
    line = edited.splitlines().index("    z = tl.dot(x, y)") + 1
    result = _fill_and_compile(qtbot, w, "axpy_kernel", AXPY)
    (axpy,) = [k for k in result.kernels if k.name == "axpy_kernel"]
    assert axpy.status == "failed"
    assert any(d.kind == "compile" and d.line == line for d in result.diagnostics)
    assert result.build.content == content_hash(edited.encode())  # the text's build
    assert path.read_text() == original and w.editor.dirty


def test_an_edit_keeps_the_kernel_the_arguments_form_compiled(qtbot, make_window, tmp_path):
    """Issue 54: every keystroke reran the file, which launches nothing, and the form's
    kernel went back to not-launched; each compile of the file now makes the call too."""
    path = tmp_path / "no_launch.py"
    original = (KERNELS / "no_launch.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    _fill_and_compile(qtbot, w, "axpy_kernel", AXPY)
    edited = original.replace("a * x + y", "a * x + y + 1.0")
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.source_pane.replace_text(edited)  # live recompile
    (axpy,) = [k for k in blocker.args[0].kernels if k.name == "axpy_kernel"]
    assert axpy.status == "compiled" and "1.000000e+00" in axpy.stages["ttir"]
    assert any(k.name == "relu_kernel" and k.status == "not-launched" for k in blocker.args[0].kernels)


def test_the_arguments_form_fits_1280x800_and_a_float_scalar_starts_as_a_float(qtbot, make_window):
    """Issue 54: at 1280x800 the form showed one field at a time, nothing between it and
    the table moved, and axpy's `a` (a * x, x loaded) was pre-filled 4096, compiling as
    `%a: i32` plus a conversion. Every field and the Compile button are in view at once,
    the splitter moves, and `a` starts as a float, so the call compiles it as f32."""
    import ast

    from PySide6.QtCore import QPoint, QRect

    w = make_window("cuda:90")
    w.resize(1280, 800)
    result = open_and_wait(qtbot, w, KERNELS / "no_launch.py")
    pane = w.kernels_pane
    w.session.select_kernel(_row(pane, "axpy_kernel"))
    form, area = pane.arguments, pane.arguments_area
    qtbot.waitUntil(lambda: form.isVisible() and all(f.isVisible() for f in form.fields.values()))
    view = area.viewport()
    for name, widget in [*form.fields.items(), ("grid", form.grid), ("Compile", form.compile_button)]:
        box = QRect(widget.mapTo(view, QPoint(0, 0)), widget.size())
        assert view.rect().contains(box), name
        assert widget.height() >= widget.minimumSizeHint().height(), name
    before = pane.split.sizes()
    pane.split.moveSplitter(before[0] + 30, 1)  # the handle, dragged down 30 px
    assert pane.split.sizes()[0] == before[0] + 30 and sum(pane.split.sizes()) == sum(before)
    (axpy,) = [d for d in result.definitions if d.name == "axpy_kernel"]
    suggested = {p.name: p.suggested for p in axpy.params}
    assert form.fields["a"].text() == suggested["a"] and isinstance(ast.literal_eval(suggested["a"]), float)
    assert isinstance(ast.literal_eval(form.fields["n"].text()), int)  # n bounds a mask: an int
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        form.compile_button.click()
    (compiled,) = [k for k in blocker.args[0].kernels if k.name == "axpy_kernel"]
    assert "%a: f32" in compiled.stages["ttir"] and "%n: i32" in compiled.stages["ttir"]


def test_a_problems_row_leads_with_its_reason_and_hovers_its_whole_text(qtbot, make_window):
    """Issue 54: a config's problem row read 'config  FILE:LINE  config BM=...,w4,s3: BK
    must be...', cut at the pane's edge before the reason at 1280x800. The reason comes
    first and is whole in view; the kind, the config and the place follow; all on hover."""
    w = make_window("cuda:90")
    w.resize(1280, 800)
    result = open_and_wait(qtbot, w, REAL / "autotune_prune.py")
    assert w.show_pane("problems")
    view = w.problems_pane.list
    (d,) = [d for d in result.diagnostics if d.kind == "config"]
    subject, reason = d.subject_and_reason()
    assert subject and subject in d.message and reason and d.message.endswith(reason)
    item = next(view.item(i) for i in range(view.count()) if subject in view.item(i).text())
    assert item.text().startswith(reason) and " — config · " in item.text()
    assert d.message in item.toolTip() and f"autotune_prune.py:{d.line}" in item.toolTip()
    rect = view.visualItemRect(item)
    text_left = rect.left() + max(view.iconSize().width(), 16) + 12  # after the icon
    assert text_left + view.fontMetrics().horizontalAdvance(reason) <= view.viewport().width()


def test_a_problems_row_wider_than_the_pane_ends_in_an_ellipsis(qtbot, make_window):
    """Issue 54 (noticed): a long problem row was cut at the pane's edge with no sign that
    text was cut (the list laid rows out at full width behind a horizontal scroll bar).
    Rows now fit the pane and end in '…'; the whole text stays on hover."""
    from PySide6.QtCore import Qt

    from kx_core.compile import CompileRequest, compile_file

    path = ROOT / "fixtures" / "kernels" / "host_reads" / "memory_figures.py"
    result = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    w = make_window("cuda:90")
    assert w.show_pane("problems")
    pane = w.problems_pane
    pane.set_result(result)
    view = pane.list
    view.doItemsLayout()  # (the view lays its rows out lazily)
    qtbot.wait(50)
    rows = [view.item(i) for i in range(view.count())]
    long_rows = [r for r in rows if view.fontMetrics().horizontalAdvance(r.text()) > view.viewport().width()]
    assert long_rows, [r.text() for r in rows]
    # no horizontal scrolling: the view elides each row at its edge (looked at offscreen:
    # "... reads data a capture doe…"), where a scroll bar laid rows out at full width
    assert view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert not view.horizontalScrollBar().isVisible()
    for row in long_rows:
        assert row.text().split("  — ")[0] in row.toolTip()  # the reason, whole, on hover
