"""KernelBench pane (issue 31): the library judged in a worker, each candidate's verdict
under both judges as the harness gives it."""

from __future__ import annotations

from gui_helpers import finished
from kx_core.bench.kernelbench import _has_cuda, evaluate_library, library, needs_gpu


def test_the_pane_shows_the_harness_verdicts(qtbot, make_window):
    w = make_window("cuda:90")
    w.set_workspace("labs")
    assert w.show_pane("kernelbench")
    pane = w.kernelbench_pane
    assert pane.table.rowCount() == len(library()) > 10
    assert finished(qtbot, pane.judge(), timeout_ms=600_000)
    judged = [c for c in library() if _has_cuda() or not needs_gpu(c.src)]
    direct = {(r.task, r.candidate): r.status for r in evaluate_library("hardened", judged)}
    shown = {(r.task, r.candidate): r.status for r in pane.results["hardened"]}
    assert shown == direct  # verdicts (timings differ run to run; verdicts do not)
    rows = {
        (pane.table.item(r, 0).text(), pane.table.item(r, 1).text()): r for r in range(pane.table.rowCount())
    }
    rejected = next(key for key, status in direct.items() if status == "rejected")
    assert pane.table.item(rows[rejected], 3).text() == "rejected"
    assert pane.table.item(rows[rejected], 4).text()  # why
    assert "fast_1" in pane.summary.text()
    pane.table.selectRow(rows[rejected])
    assert "def " in pane.source.toPlainText() and rejected[1] in pane.detail.text()
