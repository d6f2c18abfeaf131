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
