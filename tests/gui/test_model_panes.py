"""Roofline and Autotune panes on a real autotuned compile."""

from __future__ import annotations

import numpy as np
import pytest

from gui_helpers import open_and_wait
from kx_core.model import autotune as t3
from kx_core.model.gpu import H100_SXM, H200, RTX3070, local_gpu
from kx_core.model.matrix import config_matrix
from kx_gui.measured import Measured
from kx_testing import KERNELS


def measure(window, times: dict[str, float]) -> None:
    """A timing run's figures, measured on the build on screen (what the Bench pane sends)."""
    window.session.measurements_changed.emit(Measured(times, window.session.build))


def test_roofline_pane_places_every_config(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.show_pane("roofline")
    pane = w.roofline_pane
    pane.render()
    assert pane.gpu is H100_SXM and len(pane.models) == 4
    points = pane.predicted.data
    for p, m in zip(points, pane.models):
        assert np.isclose(p["x"], np.log10(m.roofline.intensity))
        assert np.isclose(p["y"], np.log10(m.roofline.flops / m.predicted_s))
    assert len(pane.measured.data) == 0
    if local_gpu() is None:
        assert "No achieved points: this machine has no GPU" in pane.info.text()
    # a measurement makes a filled point; its tooltip says how close to the roof it got
    name = pane.models[0].kernel
    measure(w, {name: 2 * pane.models[0].predicted_s})
    assert len(pane.measured.data) == 1
    assert "1 of 4 achieved: Bench with 'all autotune configs'" in pane.info.text()
    assert "measured" in pane.describe(0, True) and "% of the roof" in pane.describe(0, True)
    pane.gpu_pick.setCurrentIndex(pane.gpu_pick.findText(H200.name))
    assert pane.gpu is H200 and "H200" in pane.info.text()
    # the user's own counts replace the estimate for every point
    pane.flops_override.setText("1e9")
    pane.bytes_override.setText("1e6")
    pane.render()
    assert all(m.roofline.flops == 1e9 and m.roofline.bytes == 1e6 for m in pane.models)
    assert np.isclose(pane.predicted.data[0]["x"], np.log10(1e3))


def test_autotune_pane_matrix_rho_csv_and_t3(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.show_pane("autotune")
    pane = w.autotune_pane
    pane.render()
    assert pane.kernel_pick.currentText() == "matmul_kernel"
    expected = config_matrix(w.session.result.kernels, "matmul_kernel")
    assert pane.rows == expected and pane.table.rowCount() == 4
    assert pane.csv_text().splitlines()[0].startswith("kernel,config,registers/thread,spills (B)")
    assert "no measured times" in pane.rho_label.text()
    # on an H100 every 512^3 config is launch-bound: one predicted time (the launch floor),
    # but the modeled times under the floor still rank them
    assert len({r.predicted_us for r in expected}) == 1 and len({r.modeled_us for r in expected}) > 1
    measure(w, {f"matmul_kernel[{r.config}]": r.modeled_us * 1e-6 * 1.3 for r in expected})
    assert "rho, modeled vs measured: 1.00 over 4" in pane.rho_label.text()
    measure(w, {f"matmul_kernel[{r.config}]": 1e-5 for r in expected[:2]})
    assert "rho is undefined" in pane.rho_label.text()
    # on the drills' RTX 3070 they are memory-bound and differ; times ranked as modeled: rho = 1
    pane.gpu_pick.setCurrentIndex(pane.gpu_pick.findText(RTX3070.name))
    order = sorted(pane.rows, key=lambda r: r.modeled_us)
    assert order[0].modeled_us < order[-1].modeled_us
    measure(w, {f"matmul_kernel[{r.config}]": r.modeled_us * 1e-6 * 1.3 for r in order})
    assert (
        "rho, modeled vs measured: 1.00 over 4" in pane.rho_label.text() and not pane.scatter_plot.isHidden()
    )
    pane.gpu_pick.setCurrentIndex(0)
    # the occupancy curves go through the selected config's point
    row = pane.rows[0]
    assert pane.show_curves(row)
    xs, ys = pane.curves["regs"]
    assert f"{row.blocks_per_sm} CTAs/SM" in pane.curve_info.text()
    assert ys[xs.index(row.registers - row.registers % 8)] >= row.occupancy
    header = pane.t3_table.horizontalHeader()
    assert all(
        header.sectionSize(c) >= header.sectionSizeHint(c) for c in range(header.count())
    )  # before a run
    assert pane.run_t3()
    best, rows, pruned = t3.autotune(
        H100_SXM, 4096, 4096, 4096, lambda c: t3.perf_model(H100_SXM, 4096, 4096, 4096, c), repeats=1
    )
    assert pane.t3_result == (best, rows, pruned) and pane.t3_table.rowCount() == len(rows)
    # the roofline's bound (compulsory traffic) names a 4096^3 fp16 GEMM on an H100
    # compute-bound; the drill's tiled-traffic figure (no L2) is labelled as such beside it
    headers = [pane.t3_table.horizontalHeaderItem(c).text() for c in range(pane.t3_table.columnCount())]
    roof, tiled = headers.index("bound (roofline)"), headers.index("tiled traffic (no L2)")
    assert {pane.t3_table.item(r, roof).text() for r in range(len(rows))} == {"compute"}
    assert {pane.t3_table.item(r, tiled).text() for r in range(len(rows))} == {"memory"}
    assert "no L2" in headers[5] and "median" not in " ".join(headers)
    header = pane.t3_table.horizontalHeader()
    cut = [headers[c] for c in range(len(headers)) if header.sectionSize(c) < header.sectionSizeHint(c)]
    assert cut == []  # every title whole
    floor_s, bound = t3.floor_bound(H100_SXM, 4096, 4096, 4096)
    assert bound == "compute" and floor_s == pytest.approx(2 * 4096**3 / H100_SXM.peak_flops)
    assert f"{floor_s * 1e6:.1f} µs, compute-bound" in pane.t3_info.text()
    pane.t3_shape.setText("4096x4096")
    assert not pane.run_t3() and "three positive sizes" in pane.t3_info.text()


def test_measured_times_of_another_build_are_not_drawn(qtbot, make_window, tmp_path):
    """Times measured before the file changed are not drawn on its new compile: the pane
    says they are another build's (the file changed) instead."""
    path = tmp_path / "matmul_autotune.py"
    path.write_text((KERNELS / "matmul_autotune.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    w.show_pane("roofline")
    pane = w.roofline_pane
    pane.render()
    w.session.measurements_changed.emit(
        Measured({m.kernel: 2 * m.predicted_s for m in pane.models}, w.session.build_on_disk())
    )
    assert len(pane.measured.data) == 4 and "another build" not in pane.info.text()
    before = w.session.build
    path.write_text(path.read_text() + "\n# an edit after the timing run\n")
    open_and_wait(qtbot, w, path)
    pane.render()
    assert w.session.build.content != before.content and w.session.build.file == before.file
    assert len(pane.predicted.data) == 4 and len(pane.measured.data) == 0
    assert "measured times are of another build: the file changed since" in pane.info.text()


def _viewport_pos(pane, item, spot):
    from PySide6.QtCore import QPointF

    return pane.plot.mapFromScene(item.mapToScene(QPointF(spot["x"], spot["y"])))


def test_roofline_tip_gives_the_roof_at_the_drawn_intensity(qtbot, make_window):
    """A point drawn at 30 FLOP/B (bytes requested) said '9% of the roof', computed at
    the compulsory 170 FLOP/B: the tip now names each percentage's intensity, and the
    first is the drawn point's own, against the roofs at its x."""
    import re

    from kx_core.model.roofline import roofs

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.show_pane("roofline")
    pane = w.roofline_pane
    pane.render()
    for spot in pane.predicted.data:
        m = pane.models[spot["data"]]
        tip = pane.describe(spot["data"], measured=False)
        drawn = re.search(
            r"(\d+)% of the roof at ([\d.]+) FLOP/B \(bytes requested, where the point is drawn\)", tip
        )
        assert drawn, tip
        x, flops_s = 10 ** spot["x"], 10 ** spot["y"]
        peak, bw = roofs(pane.gpu, m.work.precision, False)
        assert float(drawn.group(2)) == pytest.approx(x, rel=0.05, abs=0.05)
        assert int(drawn.group(1)) == round(100 * flops_s / min(peak, x * bw))
        once = re.search(r"; (\d+)% at ([\d.]+) FLOP/B \(each tensor once\)", tip)
        assert once and m.roofline_unique is not None, tip
        assert float(once.group(2)) == pytest.approx(m.roofline_unique.intensity, rel=0.05, abs=0.05)
        assert float(once.group(2)) > float(drawn.group(2))  # re-reads: fewer bytes once


def test_roofline_tip_stays_while_the_pointer_rests_on_a_point(qtbot, make_window):
    """The tip vanished about a second after the mouse stopped (Qt's resting tooltip event
    went to the scene, which hid it) and never came for a pointer resting on a point."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.show_pane("roofline")
    pane = w.roofline_pane
    pane.render()
    qtbot.wait(50)
    viewport = pane.plot.viewport()
    spot = pane.predicted.data[0]
    pos = _viewport_pos(pane, pane.predicted, spot)

    def rest(at: QPoint) -> None:  # what Qt sends when the pointer stops
        QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, at, viewport.mapToGlobal(at)))

    QToolTip.hideText()
    rest(pos)  # no move first: resting on the point shows its tip
    assert QToolTip.isVisible() and QToolTip.text() == pane.describe(spot["data"], False)
    rest(pos + QPoint(2, 1))  # still on it, a second later: still shown
    assert QToolTip.isVisible() and QToolTip.text() == pane.describe(spot["data"], False)
    rest(QPoint(2, 2))  # off every point: gone (Qt hides a tip after a short fade)
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=3_000)


def test_t3_takes_a_shape_written_with_spaces_and_runs_on_enter(qtbot, make_window):
    from PySide6.QtCore import Qt

    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    w.show_pane("autotune")
    pane = w.autotune_pane
    expected = t3.autotune(
        H100_SXM, 2048, 4096, 1024, lambda c: t3.perf_model(H100_SXM, 2048, 4096, 1024, c), repeats=1
    )
    pane.t3_shape.setText("2048 4096 1024")
    assert pane.t3_result is None
    qtbot.keyClick(pane.t3_shape, Qt.Key.Key_Return)  # Enter runs it
    assert pane.t3_result == expected
    pane.t3_shape.setText("2048, 4096 x 1024")
    assert pane.run_t3() and pane.t3_result == expected
    pane.t3_shape.setText("2048 4096")
    assert not pane.run_t3() and "three positive sizes" in pane.t3_info.text()


def test_t3_says_which_finalists_tie_and_the_rule_that_broke_it(qtbot, make_window):
    """Issue 54: for 4096^3 all 8 finalists tie at 495.796 µs and one was "picked" with no
    word of why. The tie and the rule that broke it are said, each tied row marked; the
    oracle is the rows' own figures: within the fastest's p20-p80, then the least shared
    memory, then the first in the rows' order."""
    w = make_window("cuda:90")
    assert w.show_pane("autotune")
    pane = w.autotune_pane
    pane.t3_shape.setText("4096x4096x4096")
    assert pane.run_t3()
    best, rows, _pruned = pane.t3_result
    fastest = min(rows, key=lambda r: r["median"])
    tied = [r for r in rows if r["p20"] <= fastest["p80"] and fastest["p20"] <= r["p80"]]
    least = [r for r in tied if r["smem"] == min(t["smem"] for t in tied)]
    assert len(tied) > 1 and len(least) > 1 and len({r["median"] for r in least}) == 1  # this shape's case
    assert best is least[0]
    info = pane.t3_info.text()
    assert f"{len(tied)} of {len(rows)} configs tie (all at {fastest['median'] * 1e6:.3f} µs)" in info
    assert f"least shared memory ({best['smem']} B), which {len(least)} share" in info
    assert "then the first in the model's top-k order" in info
    column = [pane.t3_table.horizontalHeaderItem(c).text() for c in range(pane.t3_table.columnCount())].index(
        "picked"
    )
    cells = [pane.t3_table.item(r, column).text() for r in range(len(rows))]
    assert cells[rows.index(best)] == "picked: least shared memory, then first ranked"
    assert sorted(cells) == sorted(
        ["picked: least shared memory, then first ranked"] + ["tied"] * (len(tied) - 1)
    )
