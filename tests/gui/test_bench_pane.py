"""Bench pane: correctness per distribution from a real check run, stopping a run, the
trial tree, and (from a timing run captured on the GPU machine) the timing table, its
distribution plot and the measurements reaching the Roofline and Autotune panes."""

from __future__ import annotations

import json

import pytest

from gui_helpers import open_and_wait
from kx_core.bench.bench import has_gpu
from kx_core.bench.run import BenchResult
from kx_testing import KERNELS, ROOT

BENCH_FIXTURES = sorted((ROOT / "fixtures" / "bench").glob("*.json"))


def test_check_fills_the_correctness_table_and_trials_record_it(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "checked_softmax.py")
    pane = w.bench_pane
    assert pane.run_button.isEnabled() == has_gpu()
    assert pane.run_check()
    pane.wait()
    report = pane.check_report
    assert report is not None and not report.error and pane.check_table.rowCount() == 2
    row = {pane.check_table.item(r, 0).text(): r for r in range(2)}["softmax_no_max"]
    header = [pane.check_table.horizontalHeaderItem(c).text() for c in range(pane.check_table.columnCount())]
    cells = {header[c]: pane.check_table.item(row, c).text() for c in range(1, len(header))}
    assert cells["normal"].split("/")[0] == cells["normal"].split("/")[1]  # all pass
    assert cells["offset"].startswith("0/")  # overflow on the large offset
    assert report.mode in pane.check_info.text()
    pane.strategy.setText("first version")
    tid = pane.save_trial()
    assert tid == "t0" and pane.trial_tree.topLevelItemCount() == 1
    assert pane.trial_tree.topLevelItem(0).text(2) == "fail"  # the no-max kernel fails its check


def test_stop_kills_a_run(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "checked_softmax.py")
    pane = w.bench_pane
    assert pane.run_check()
    pane.stop()
    pane.wait()
    assert pane.job is None and "stopped" in (pane.check_report.error or "")


@pytest.mark.skipif(
    not BENCH_FIXTURES, reason="no timing run captured yet (scripts/capture_bench_fixtures.sh)"
)
def test_a_gpu_timing_run_fills_the_table_and_feeds_the_model_panes(qtbot, make_window):
    path = next(p for p in BENCH_FIXTURES if "matmul_autotune" in p.name)
    result = BenchResult.from_json(json.loads(path.read_text()))
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    pane = w.bench_pane
    pane.show_bench(result)
    assert pane.timing_table.rowCount() == len(result.timings) == 4
    assert sum(pane.timing_table.item(r, 7).text() == "*" for r in range(4)) == 1
    assert pane.hist.getPlotItem().listDataItems()  # the selected row's distribution
    # the measurements reach the model panes as filled points / a measured column
    w.roofline_pane.render()
    assert len(w.roofline_pane.measured.data) == 4
    w.autotune_pane.render()
    assert all(r.measured_us for r in w.autotune_pane.rows)


def test_without_a_gpu_the_timings_tab_says_why_instead_of_empty_axes(qtbot, make_window):
    """Issue 54, Low: Bench showed empty axes on a machine with no GPU. It opens on
    Correctness (which runs in Triton's interpreter) and says why nothing is timed; the
    axes come back once there are timings (a result measured on a GPU)."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "checked_softmax.py")
    pane = w.bench_pane
    if has_gpu():
        assert pane.no_gpu_note.isHidden() and not pane.hist.isHidden()
        return
    assert pane.tabs.currentIndex() == 1 and pane.tabs.tabText(1) == "Correctness"
    assert pane.hist.isHidden() and not pane.no_gpu_note.isHidden()
    assert "No CUDA GPU" in pane.no_gpu_note.text()
    pane._timed(True)
    assert not pane.hist.isHidden() and pane.no_gpu_note.isHidden()
