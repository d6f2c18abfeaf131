"""The Autotune pane's Sweep tab: a real `kx sweep` process over a typed shape (model only
here: no GPU), its progress and its Stop; the H200's recorded sweep shown as a heat map
of each shape's times over its best, with the recorded winners."""

from __future__ import annotations

import json

import numpy as np

from gui_helpers import open_and_wait
from kx_core.sweep.result import SweepResult
from kx_testing import ROOT

SWEEP = ROOT / "fixtures" / "kernels" / "sweep"
RECORDED = ROOT / "benchmarks" / "sweep_h200" / "sweep_matmul.json"


def _tab(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, SWEEP / "matmul.py")
    w.show_pane("autotune")
    pane = w.autotune_pane
    pane.render()
    assert pane.kernel_pick.currentText() == "matmul_kernel"
    pane.tabs.setCurrentWidget(pane.sweep_tab)
    return w, pane, pane.sweep_tab


def test_a_recorded_sweep_is_a_heat_map_of_time_over_the_best(qtbot, make_window, tmp_path):
    w, pane, tab = _tab(qtbot, make_window)
    data = json.loads(RECORDED.read_text())
    r = SweepResult.from_json(data)
    tab.show_result(r)
    grid = tab.heat.image
    assert grid.shape == (16, 12)
    for j, c in enumerate(r.cases):  # each shape's column: 1 at its winner, the rest over it
        labels = [f.label for f in c.configs]
        assert grid[labels.index(c.winner), j] == 1.0 and np.nanmin(grid[:, j]) == 1.0
    winners = [tab.table.item(i, 1).text() for i in range(tab.table.rowCount())]
    assert winners[3] == "128,256,64,8,w8,s3"  # 4096^3 on the H200: the 128x256 tile
    assert "12 shape(s), measured" in tab.status.text() and "Spearman" in tab.status.text()
    w.resize(1280, 800)
    qtbot.wait(200)  # the layout settles (the axes' labels) before the picture
    w.grab().save(str(tmp_path / "sweep_tab.png"))


def test_a_sweep_runs_as_a_process_and_says_nothing_was_measured(qtbot, make_window):
    w, pane, tab = _tab(qtbot, make_window)
    tab.shapes.setText("M=1024,N=1024,K=512")
    assert tab.start() and not tab.run_button.isEnabled() and tab.stop_button.isEnabled()
    qtbot.waitUntil(lambda: tab.process is None, timeout=240_000)
    assert tab.result is not None and len(tab.result.cases[0].configs) == 16
    assert tab.result.measured == "none" and "No local GPU" in tab.status.text()
    assert tab.progress.format() == "done"  # not the last step's "compile 2/2" (issue 54, Low)
    ranks = [tab.table.item(0, 2).text()]
    assert ranks[0] != "-"  # the model's pick is named even with nothing measured
    assert np.nanmin(tab.heat.image) == 1.0  # the model's times over its best


def test_stop_kills_the_sweep_and_bad_shapes_say_why(qtbot, make_window):
    w, pane, tab = _tab(qtbot, make_window)
    tab.shapes.setText("M=4096,K")
    assert not tab.start() and "is not NAME=INTEGER" in tab.status.text()
    tab.shapes.setText("M=2048,N=2048,K=2048; M=512,N=512,K=512")
    assert tab.start()
    qtbot.wait(1500)
    tab.stop()
    qtbot.waitUntil(lambda: tab.process is None, timeout=30_000)
    assert tab.run_button.isEnabled() and not tab.stop_button.isEnabled()
    assert tab.status.text().startswith("Stopped") and tab.result is None


def test_the_shipped_example_sweeps_at_the_windows_target(qtbot, make_window):
    """A new user's first sweep: the window's default target (the local GPU, else cuda:90,
    never 'local' on a machine without one), and what the command said when it refused."""
    from kx_core.base.data import data_path
    from kx_core.records.target import local_target

    w = make_window("default")
    open_and_wait(qtbot, w, data_path("examples", "matmul_autotune.py"))
    w.show_pane("autotune")
    pane = w.autotune_pane
    pane.render()
    pane.tabs.setCurrentWidget(pane.sweep_tab)
    tab = pane.sweep_tab
    tab.shapes.setText("M=512,N=512,K=512")
    args = tab.command()
    assert args[args.index("--target") + 1] == ("local" if local_target() is not None else "cuda:90")
    tab.entry.setText("no_such_function")
    assert tab.start()
    qtbot.waitUntil(lambda: tab.process is None, timeout=240_000)
    # the case failed, said in the status line and the table (the file has no such function)
    assert tab.result.cases[0].error and "no_such_function" in tab.status.text()


def test_the_heat_map_has_no_axes_until_a_sweep_fills_it(qtbot, make_window):
    w, pane, tab = _tab(qtbot, make_window)
    plot = tab.heat_plot.getPlotItem()
    assert not plot.getAxis("left").isVisible() and not plot.getAxis("bottom").isVisible()
    tab.show_result(SweepResult.from_json(json.loads(RECORDED.read_text())))
    assert plot.getAxis("left").isVisible() and plot.getAxis("bottom").isVisible()


def test_a_sweep_says_how_many_timed_configs_were_the_compile_sides_binaries(qtbot, make_window, tmp_path):
    """The H200's sweep of three matmul shapes (scripts/gpu_sweep_ray.sh, the local pool):
    every config it timed was the binary kx's capture built (kx_core.sweep.binaries)."""
    w, pane, tab = _tab(qtbot, make_window)
    data = json.loads((ROOT / "benchmarks" / "sweep_h200" / "ray" / "local_sweep.json").read_text())
    r = SweepResult.from_json({k: v for k, v in data.items() if k != "summary"})
    assert r.summary()["shipped"] == sum(c.shipped for c in r.cases) == 30
    tab.show_result(r)
    assert "30 timed config(s) were the compile side's binaries, 0 compiled again" in tab.status.text()
    w.resize(1280, 800)
    qtbot.wait(200)  # the layout settles (axis labels, the wrapped status) before the picture
    w.grab().save(str(tmp_path / "sweep_shipped.png"))


def test_a_sweep_says_which_ranking_ordered_its_configs(qtbot, make_window, tmp_path):
    """The H200's validate5 sweep (bench_sweep.py --group validate5): ranked with kx's
    learned correction for that GPU, which the status line says, with the set it was
    fitted on (kx_core.model.learned_rank)."""
    w, pane, tab = _tab(qtbot, make_window)
    data = json.loads((ROOT / "benchmarks" / "sweep_h200" / "validate5_matmul.json").read_text())
    r = SweepResult.from_json({k: v for k, v in data.items() if k != "summary"})
    tab.show_result(r)
    text = tab.status.text()
    assert "6 shape(s), measured" in text and "winner in the model's top 3 in 100%" in text
    assert "learned correction for NVIDIA H200 (fitted on 140 recorded H200 shapes" in text
    w.resize(1280, 800)
    qtbot.wait(200)
    w.grab().save(str(tmp_path / "sweep_ranking.png"))


def test_the_sweep_belongs_to_the_file_on_screen(qtbot, make_window, tmp_path):
    """Another file opened: the sweep of the file before is cleared, as every pane clears
    (issue 55, item 4: its heat map and table stayed under the next file)."""
    w, pane, tab = _tab(qtbot, make_window)
    tab.show_result(SweepResult.from_json(json.loads(RECORDED.read_text())))
    assert tab.table.rowCount() == 12
    open_and_wait(qtbot, w, SWEEP / "matmul.py")  # the same file again keeps it
    assert tab.table.rowCount() == 12 and tab.result is not None
    open_and_wait(qtbot, w, ROOT / "kx_core" / "data" / "examples" / "vector_add.py")
    assert tab.result is None and tab.table.rowCount() == 0 and tab.heat.image is None
    assert not tab.heat_plot.getPlotItem().getAxis("left").isVisible()
    assert "The sweep of matmul.py was for the file open before" in tab.status.text()
    w.resize(1280, 800)
    qtbot.wait(200)
    w.grab().save(str(tmp_path / "sweep_cleared.png"))


def test_a_wrapper_taking_tensors_is_swept_by_its_key_or_its_tensors(qtbot, make_window, tmp_path):
    """Issue 55 item 1 in the window: the tab's shapes may name the kernel's key or the
    wrapper's tensors; each row says which call gave it."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, SWEEP / "matmul_wrapper.py")
    w.show_pane("autotune")
    pane = w.autotune_pane
    pane.render()
    pane.tabs.setCurrentWidget(pane.sweep_tab)
    tab = pane.sweep_tab
    tab.shapes.setText("M=512,N=256,K=128; a=256x64,b=64x128")
    assert tab.start()
    qtbot.waitUntil(lambda: tab.process is None, timeout=240_000)
    assert tab.result is not None and [c.error for c in tab.result.cases] == [None, None]
    assert [tab.table.item(i, 0).text() for i in range(2)] == ["M=512,N=256,K=128", "M=256,N=128,K=64"]
    assert tab.table.item(0, 0).toolTip() == "matmul(a=512x128,b=128x256)"
    assert "matmul(a=256x64,b=64x128)" in tab.status.text()
    w.resize(1280, 800)
    qtbot.wait(200)
    w.grab().save(str(tmp_path / "sweep_wrapper.png"))
