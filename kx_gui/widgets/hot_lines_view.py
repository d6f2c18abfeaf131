"""The Bench pane's Hot lines page: per profiled kernel its samples and leading stall
reasons, and a sortable table of the hottest source and SASS lines; a double click
links the row's line in the Source and Stages panes."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from kx_core.base.textfile import text_or_empty
from kx_core.ir.hot_lines import hottest

COLUMNS = ("kernel", "stage", "line", "samples", "% of kernel", "top stall reason", "text")
ROWS_PER_KERNEL = 40
SUMMARY_KERNELS = 6  # kernels the summary names (a Proton profile has every ATen kernel too)


class _Number(QTableWidgetItem):
    """A cell that sorts by its number, not its text."""

    def __init__(self, text: str, value: float) -> None:
        super().__init__(text)
        self.value = value
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other) -> bool:
        return self.value < getattr(other, "value", 0)


class HotLinesView(QWidget):
    line_chosen = Signal(str, int)  # stage ("source" or a stage name), line

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.summary = QLabel("Profile samples the file's kernels on the GPU: the hottest lines land here")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.cellDoubleClicked.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

    def show_profile(self, result, hot: dict, open_file: str = "") -> None:
        """result: ProfileResult; hot: kernel name -> (HotLines, KernelProfile); the
        source lines' text from the open file (the profiled file, as saved)."""
        self.table.setSortingEnabled(False)
        rows, notes = [], []
        for i, k in enumerate(sorted(result.kernels, key=lambda k: (-k.samples, -k.window_ms))):
            top = sorted(k.reasons.items(), key=lambda kv: -kv[1])[:3]
            reasons = ", ".join(
                f"{r.removeprefix('stalled_')} {100 * n / k.stalled:.0f}%" for r, n in top if k.stalled
            )
            if i < SUMMARY_KERNELS:
                # a Proton profile of kernel times has no samples: its launches and GPU time
                notes.append(
                    f"{k.kernel}: {k.samples:,} samples over {k.calls} calls; stalled on {reasons}"
                    if k.samples
                    else f"{k.kernel}: {k.calls} launches, {1000 * k.window_ms:.1f} us"
                )
            if k.kernel in hot:
                source = (
                    open_file
                    if os.path.basename(open_file) == os.path.basename(k.source_file)
                    else k.source_file
                )
                texts = {**k.stages, "source": text_or_empty(source)}
                rows += [(k.kernel, row) for row in hottest(hot[k.kernel][0], texts, n=ROWS_PER_KERNEL)]
        if len(result.kernels) > SUMMARY_KERNELS:
            notes.append(f"{len(result.kernels) - SUMMARY_KERNELS} more kernel(s)")
        problems = "; ".join(d.short() for d in result.diagnostics)
        self.summary.setText(
            f"sampled on {result.device} with {result.sampler}: "
            + " — ".join(notes)
            + (f" — {problems}" if problems else "")
        )
        self.table.setRowCount(len(rows))
        for r, (kernel, row) in enumerate(rows):
            cells = [
                QTableWidgetItem(kernel),
                QTableWidgetItem(row.stage),
                _Number(str(row.line), row.line),
                _Number(f"{row.samples:,}", row.samples),
                _Number(f"{100 * row.share:.1f}", row.share),
                QTableWidgetItem(row.top_reason.removeprefix("stalled_")),
                QTableWidgetItem(row.text),
            ]
            for c, item in enumerate(cells):
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.setSortingEnabled(True)
        self.table.sortItems(3, Qt.SortOrder.DescendingOrder)

    def clear(self) -> None:
        self.table.setRowCount(0)

    def _chosen(self, row: int, _col: int) -> None:
        stage, line = self.table.item(row, 1), self.table.item(row, 2)
        if stage is not None and line is not None:
            self.line_chosen.emit(stage.text(), int(line.text()))
