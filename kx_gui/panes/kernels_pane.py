"""Kernels pane: every kernel, specialization and autotune config of the file."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem, QVBoxLayout

from kx_core.compile import CompileResult
from kx_gui.panes.base import Pane
from kx_gui.widgets.tables import row_table

COLUMNS = ("kernel", "status", "grid", "warps", "stages", "regs", "spills", "shared B", "compile s")


def _cell(value) -> QTableWidgetItem:
    item = QTableWidgetItem("-" if value is None else str(value))
    if isinstance(value, (int, float)):
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class KernelsPane(Pane):
    title = "Kernels"
    name = "kernels"

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = row_table(COLUMNS, stretch=0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.table.currentCellChanged.connect(self._row_changed)
        self.listen(session.result_changed, self.set_result)
        self.listen(session.kernel_changed, self._kernel_changed)
        self._filling = False

    def set_result(self, result: CompileResult) -> None:
        self._filling = True
        self.table.setRowCount(len(result.kernels))
        for row, k in enumerate(result.kernels):
            md = k.metadata
            grid = "x".join(map(str, k.launch.grid)) if k.launch else "-"
            if k.launch and k.launch.count > 1:
                grid += f" (×{k.launch.count})"
            values = (
                k.display_name,
                k.status,
                grid,
                md and md.num_warps,
                md and md.num_stages,
                md and md.registers,
                md and md.spills,
                md and md.shared,
                round(k.compile_time_s, 2) if k.compile_time_s is not None else None,
            )
            for col, value in enumerate(values):
                item = _cell(value)
                item.setToolTip(k.message or k.display_name)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self._filling = False

    def _kernel_changed(self, kernel, _source_map) -> None:
        index = self.session.kernel_index
        if index >= 0 and self.table.currentRow() != index:
            self._filling = True
            self.table.selectRow(index)
            self._filling = False

    def _row_changed(self, row: int, *_args) -> None:
        if not self._filling and row >= 0 and row != self.session.kernel_index:
            self.session.select_kernel(row)
