"""Summary pane: what each kernel/config is made of, side by side (one column each):
resources, MMA shapes, async copies, barriers, vector widths, SASS mix by family; for a
C++ build, each function's x86 mix (vector widths, FMAs, loads and stores)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QVBoxLayout

from kx_core.cpu.asm_mix import AsmMix, asm_mix, mix_rows, short_function_name
from kx_core.ir.summary import InstructionSummary, summarize, summary_rows
from kx_core.records.backends import backend_of
from kx_gui.panes.base import Pane


class SummaryPane(Pane):
    title = "Summary"
    name = "summary"
    listens = {"result_changed": "schedule", "stages_derived": "schedule"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.summaries: list[InstructionSummary] = []
        self.mixes: list[AsmMix] = []  # a C++ build's, one per function

    def render(self) -> None:
        self.set_result(self.session.result)

    def set_result(self, result) -> None:
        compiled = [k for k in (result.kernels if result else ()) if k.status == "compiled"]
        if result is not None and backend_of(result.target).instruction_mix == "x86":
            # a C++ build: its x86 instruction mix, not a GPU's rows left empty
            self.summaries = []
            self.mixes = [asm_mix(k.name, k.stages.get("asm", "")) for k in compiled]
            rows = mix_rows(self.mixes) if self.mixes else []
        else:
            self.mixes = []
            self.summaries = [summarize(k) for k in compiled]
            rows = summary_rows(self.summaries) if self.summaries else []
        self.table.clear()
        self.table.setColumnCount(len(compiled))
        self.table.setRowCount(len(rows))
        # short names as headers (a column per config fits), the full name on hover
        self.table.setHorizontalHeaderLabels(
            [short_function_name(k.name) if self.mixes else k.short_name for k in compiled]
        )
        for c, k in enumerate(compiled):
            self.table.horizontalHeaderItem(c).setToolTip(k.display_name)
        self.table.setVerticalHeaderLabels([name for name, _ in rows])
        for r, (_name, values) in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
