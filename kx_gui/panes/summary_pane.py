"""Summary pane: what each kernel/config is made of, side by side (one column each):
resources, MMA shapes, async copies, barriers, vector widths, SASS mix by family."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QVBoxLayout

from kx_core.ir.summary import InstructionSummary, summarize, summary_rows
from kx_gui.panes.base import Pane


class SummaryPane(Pane):
    title = "Summary"
    name = "summary"
    listens = {"result_changed": "schedule"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.summaries: list[InstructionSummary] = []

    def render(self) -> None:
        self.set_result(self.session.result)

    def set_result(self, result) -> None:
        compiled = [k for k in (result.kernels if result else ()) if k.status == "compiled"]
        self.summaries = [summarize(k) for k in compiled]
        rows = summary_rows(self.summaries) if self.summaries else []
        self.table.clear()
        self.table.setColumnCount(len(self.summaries))
        self.table.setRowCount(len(rows))
        # short names as headers (a column per config fits), the full name on hover
        self.table.setHorizontalHeaderLabels([k.short_name for k in compiled])
        for c, k in enumerate(compiled):
            self.table.horizontalHeaderItem(c).setToolTip(k.display_name)
        self.table.setVerticalHeaderLabels([name for name, _ in rows])
        for r, (_name, values) in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
