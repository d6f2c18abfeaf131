"""Kernels pane: every kernel, specialization and autotune config of the file."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QTableWidgetItem, QVBoxLayout

from kx_core.compile import CompileResult
from kx_gui.panes.base import Pane
from kx_gui.widgets.arguments_form import ArgumentsForm
from kx_gui.widgets.tables import row_table

COLUMNS = ("kernel", "status", "grid", "warps", "stages", "regs", "spills", "shared B", "compile s", "note")

# row colours: a config a real autotuner would skip, a kernel that did not compile
STATUS_COLOURS = {"pruned": "#9e9e9e", "failed": "#c62828", "not-launched": "#6d4c41"}


def note_of(k) -> str:
    """What the row must say beyond its numbers: captured after a data placeholder,
    pruned or failed and why, compiled by warmup() only."""
    parts = []
    if k.after_placeholder is not None:
        parts.append(f"after data placeholder: {k.after_placeholder.describe()}")
    if k.chosen:
        parts.append("launched: kx's choice, the first config that compiled (a real run keeps the fastest)")
    if k.status in ("pruned", "failed") and k.message:
        parts.append(k.message)
    if k.launch is not None and k.launch.warmup:
        parts.append("compiled by warmup(), never launched")
    if k.status == "not-launched":
        parts.append("nothing launches it: select it to compile it with example arguments")
    return "; ".join(parts)


def _cell(value) -> QTableWidgetItem:
    item = QTableWidgetItem("-" if value is None else str(value))
    if isinstance(value, (int, float)):
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class KernelsPane(Pane):
    title = "Kernels"
    name = "kernels"
    listens = {"result_changed": "set_result", "kernel_changed": "_kernel_changed"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = row_table(COLUMNS, stretch=len(COLUMNS) - 1)
        self.arguments = ArgumentsForm(self)
        self.arguments.submitted.connect(self.session.compile_with_args)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table.setMinimumHeight(120)  # a few rows stay visible beside the form
        scroll = QScrollArea()
        scroll.setWidget(self.arguments)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.hide()
        self.arguments_area = scroll
        # what the capture did not show: launches it could not capture, kernels the file
        # imports that nothing launched (the not-captured / not-launched diagnostics)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("QLabel { color: #b71c1c; padding: 2px 4px; }")
        self.notice.hide()
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addWidget(scroll, 1)
        self.table.currentCellChanged.connect(self._row_changed)
        self._filling = False

    def set_result(self, result: CompileResult) -> None:
        lines = [d.short() for d in result.diagnostics if d.kind == "not-captured"]
        lines += [d.message for d in result.diagnostics if d.kind == "not-launched"]
        if result.incomplete and not lines:
            lines.append("the file launched no kernel")
        self.notice.setText("\n".join(lines))
        self.notice.setToolTip("\n".join(lines))
        self.notice.setVisible(bool(lines))
        self._filling = True
        self.table.setRowCount(len(result.kernels))
        for row, k in enumerate(result.kernels):
            md = k.metadata
            grid = k.grid_text("×")
            values = (
                k.short_name,
                k.status,
                grid,
                md and md.num_warps,
                md and md.num_stages,
                md and md.registers,
                md and md.spills,
                md and md.shared,
                round(k.compile_time_s, 2) if k.compile_time_s is not None else None,
                note_of(k) or None,
            )
            colour = STATUS_COLOURS.get(k.status)
            for col, value in enumerate(values):
                item = _cell(value)
                # the name column's tooltip is the full name (the cell has the short one)
                item.setToolTip(k.display_name if col == 0 else note_of(k) or k.message or k.display_name)
                if colour:
                    item.setForeground(QBrush(QColor(colour)))
                if col == 1 and k.after_placeholder is not None:
                    item.setText(f"{k.status} *")
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self._filling = False

    def _kernel_changed(self, kernel, _source_map) -> None:
        result = self.session.result
        definition = None
        if kernel is not None and kernel.status == "not-launched" and result is not None:
            definition = next((d for d in result.definitions if d.name == kernel.name), None)
        if definition is not None:
            self.arguments.show_kernel(definition, self.session.path or "")
        else:
            self.arguments.hide()
        self.arguments_area.setVisible(definition is not None)
        index = self.session.kernel_index
        if index >= 0 and self.table.currentRow() != index:
            self._filling = True
            self.table.selectRow(index)
            self._filling = False

    def _row_changed(self, row: int, *_args) -> None:
        if not self._filling and row >= 0 and row != self.session.kernel_index:
            self.session.select_kernel(row)
