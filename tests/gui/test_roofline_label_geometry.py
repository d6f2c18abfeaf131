"""Where the Roofline's text lands at the default window size (a first user's report):
point labels were drawn over the fp32 roof and over each other, and the ridge label
("ridge fp16: 295 FLOP/B") ran off the plot's right edge."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF

from gui_helpers import open_and_wait
from kx_testing import KERNELS

ROOF_NAMES = {"DRAM", "fp32", "tf32", "bf16", "fp16", "fp8"}


def _roof_segments(pane, view):
    """The roof lines (DRAM diagonal, one flat roof per precision) in scene coordinates,
    read from the plot's own curves."""
    segments = []
    for item in pane.plot.getPlotItem().listDataItems():
        if item.name() not in ROOF_NAMES:
            continue
        xs, ys = item.getData()
        for i in range(len(xs) - 1):
            a = view.mapViewToScene(QPointF(xs[i], ys[i]))
            b = view.mapViewToScene(QPointF(xs[i + 1], ys[i + 1]))
            segments.append((item.name(), a, b))
    return segments


def _crosses(rect, a, b) -> bool:
    """The segment sampled every half pixel: an independent check of the pane's clipping."""
    n = int(max(abs(b.x() - a.x()), abs(b.y() - a.y())) * 2) + 2
    for t in np.linspace(0.0, 1.0, n):
        if rect.contains(QPointF(a.x() + t * (b.x() - a.x()), a.y() + t * (b.y() - a.y()))):
            return True
    return False


@pytest.mark.parametrize(
    "example", ["matmul_autotune.py", pytest.param("helion_rows.py", marks=pytest.mark.extra("helion"))]
)
def test_roofline_labels_inside_the_plot_apart_and_off_the_roofs(qtbot, make_window, example):
    w = make_window()
    w.resize(1280, 800)
    open_and_wait(qtbot, w, KERNELS / example)
    assert w.show_pane("roofline")
    pane = w.roofline_pane
    qtbot.waitUntil(lambda: bool(pane.models), timeout=20_000)
    qtbot.wait(200)
    view = pane.plot.getPlotItem().getViewBox()
    box = view.sceneBoundingRect()
    labels = [item for item in view.addedItems if isinstance(item, pg.TextItem)]
    assert len(labels) > len(pane.point_labels) >= 1  # the points' and the ridges'
    rects = [(item.toPlainText().splitlines()[0], item.sceneBoundingRect()) for item in labels]
    for text, rect in rects:
        assert box.contains(rect), (text, rect, box)
    for i, (text, rect) in enumerate(rects):
        for other, other_rect in rects[i + 1 :]:
            assert not rect.intersects(other_rect), (text, other)
    segments = _roof_segments(pane, view)
    assert {name for name, _, _ in segments} >= {"DRAM", "fp32", "fp16"}
    for text, rect in rects:
        for name, a, b in segments:
            assert not _crosses(rect, a, b), (text, name)
    legend = pane.plot.getPlotItem().legend.sceneBoundingRect()
    for text, rect in rects:
        assert not rect.intersects(legend), text
