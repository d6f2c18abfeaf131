"""Concepts pane: the concepts that appear and vanish between consecutive stages of the
selected kernel, and each MLIR stage's ops per dialect as a bar chart."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from kx_core.ir.anatomy import concept_diff, dialect_histogram
from kx_core.records.backends import ALL_STAGES, stages_for
from kx_gui.panes.base import Pane

STAGE_COLORS = ("#1976d2", "#ef6c00", "#2e7d32", "#6a1b9a")


class ConceptsPane(Pane):
    title = "Concepts"
    name = "concepts"
    listens = {"kernel_changed": "schedule"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(("step", "appears", "vanishes"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.chart = pg.PlotWidget(background="w")
        self.chart.setTitle("ops per dialect", color="k")
        self.chart.showGrid(y=True, alpha=0.3)
        # the legend in a row of its own under the axis, never over a bar (inside the
        # plot, top right, it covered the last dialect's bars when they were the tallest)
        self.legend = pg.LegendItem(colCount=len(STAGE_COLORS))
        self.chart.getPlotItem().layout.addItem(self.legend, 4, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.chart)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.histograms: dict[str, dict[str, int]] = {}
        self.steps: list[tuple[str, str, list[str], list[str]]] = []

    def render(self) -> None:
        self.show_kernel(self.session.kernel)

    def show_kernel(self, kernel, _source_map=None) -> None:
        self.chart.clear()
        self.legend.clear()
        self.table.setRowCount(0)
        if kernel is None:
            return
        ordered = [
            (d.name, kernel.stages[d.name])
            for d in stages_for(kernel.target)
            if d.lowering and d.name in kernel.stages
        ]
        self.steps = concept_diff(ordered)
        self.table.setRowCount(len(self.steps))
        for row, (a, b, appeared, gone) in enumerate(self.steps):
            for col, text in enumerate((f"{a} → {b}", ", ".join(appeared) or "-", ", ".join(gone) or "-")):
                self.table.setItem(row, col, QTableWidgetItem(text))
        self.table.resizeColumnToContents(0)
        self.histograms = {
            name: dict(dialect_histogram(text)) for name, text in ordered if ALL_STAGES[name].syntax == "mlir"
        }
        dialects = sorted({d for h in self.histograms.values() for d in h})
        width = 0.8 / max(1, len(self.histograms))
        for k, (stage, hist) in enumerate(self.histograms.items()):
            xs = [i + k * width - 0.4 + width / 2 for i in range(len(dialects))]
            bars = pg.BarGraphItem(
                x=xs,
                height=[hist.get(d, 0) for d in dialects],
                width=width * 0.9,
                brush=STAGE_COLORS[k % len(STAGE_COLORS)],
                name=stage.upper(),
            )
            self.chart.addItem(bars)
            self.legend.addItem(bars, stage.upper())
        self.chart.getAxis("bottom").setTicks([list(enumerate(dialects))])
