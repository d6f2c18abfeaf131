"""Playground pane: passes before/after, RUN lines with CHECK marks, minimisation."""

from __future__ import annotations

from kx_core.lab.filecheck import checks_of
from kx_testing import ROOT


def test_passes_run_lines_and_marks(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.playground_pane
    assert pane.load(str(ROOT / "kx_core" / "data" / "lit" / "coalesce.mlir"))
    assert "-tritongpu-coalesce" in pane.flags.text()
    # before any run, each view says what it will hold
    assert pane.diff.left_title.text().startswith("input") and "output" in pane.diff.right_title.text()
    assert pane.run_passes()
    pane.wait()
    assert pane.result.ok and not pane.diff.diff.identical
    assert "sizePerThread = [4]" in pane.result.text()
    assert pane.run_lit()
    pane.wait()
    assert [r.status for r in pane.lit_results] == ["PASS"]
    # what FileCheck read is shown beside the input, a passing line's too
    assert (
        pane.diff.right.text() == pane.lit_results[0].output
        and "FileCheck saw" in pane.diff.right_title.text()
    )
    text = pane.editor.toPlainText()
    assert set(pane.marks) == {c.line for c in checks_of(text)}
    assert all(color.name() == "#2e7d32" for color, _ in pane.marks.values())


def test_a_failing_check_is_marked_and_minimised(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.playground_pane
    pane.load(str(ROOT / "kx_core" / "data" / "lit" / "canonicalize.mlir"))
    # canonicalize folds x * 1 away, so this check fails, and it fails on any input
    text = pane.editor.toPlainText().replace("// CHECK-LABEL: tt.func @fold\n", "")
    pane.editor.setPlainText(text.replace("// CHECK-NOT: arith.muli", "// CHECK: arith.muli"))
    assert pane.run_lit()
    pane.wait()
    (result,) = pane.lit_results
    assert result.status == "FAIL" and pane.marks[result.check_line][0].name() == "#c62828"
    before = len(pane.editor.toPlainText().splitlines())
    assert pane.minimize()
    pane.wait(600)
    assert len(pane.editor.toPlainText().splitlines()) < before
    pane.flags.setText("-tritongpu-frobnicate")
    assert pane.run_passes()
    pane.wait()
    assert "no such pass" in pane.status.text()


def test_file_open_of_ir_never_runs_it(qtbot, make_window):
    # File ▸ Open of an .mlir ran it as Python (a SyntaxError in Problems): it opens in
    # the Playground, and LLVM IR gets a message that says where kx takes it
    w = make_window("cuda:90")
    mlir = ROOT / "kx_core" / "data" / "lit" / "canonicalize.mlir"
    assert w.open_file(str(mlir))
    assert w.session.path is None and w.session.result is None  # nothing compiled or run
    assert w.docks["playground"].isVisible() and w.workspace == "labs"
    assert w.playground_pane.path == str(mlir)
    assert w.playground_pane.editor.toPlainText() == mlir.read_text()
    assert "Playground" in w.status_label.text()
    ll = ROOT / "fixtures" / "ir" / "3.9.0" / "cuda90" / "add.llir.ll"
    assert not w.open_file(str(ll))
    assert w.session.path is None and "not a kernel source" in w.last_error
    assert "Playground" in w.last_error


def test_a_file_without_run_lines_says_so_not_line_0(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    pane = w.playground_pane
    path = tmp_path / "no_run.mlir"
    lines = (ROOT / "kx_core" / "data" / "lit" / "coalesce.mlir").read_text().splitlines()
    path.write_text("\n".join(line for line in lines if "RUN:" not in line) + "\n")
    assert pane.load(str(path))
    assert pane.run_lit()
    pane.wait()
    assert [r.status for r in pane.lit_results] == ["UNSUPPORTED"]
    assert "no RUN: line" in pane.status.text() and "line 0" not in pane.status.text()
