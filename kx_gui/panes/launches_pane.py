"""Launches pane: every launch of the compile's kernels by grid and calling line, with the
arguments Triton specialized on, and what differs from the launch of the same kernel
above (bold, said on hover). A double-click shows the calling line of the file."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

from kx_core.records.launch_list import launch_rows
from kx_gui.panes.base import Pane

HEADERS = ("kernel", "grid", "launches", "called at", "arguments", "specialization")
# the LaunchRow field each column shows
FIELDS = ("variant", "grid", "count", "called_at", "arguments", "specialization")


class LaunchesPane(Pane):
    title = "Launches"
    name = "launches"
    # drawn when shown: a hidden Launches tab filled its table on every live edit (9 ms of
    # a window stall, issue 51)
    listens = {"result_changed": "schedule"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)  # the whole text on hover
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.rows = []
        self.table.cellDoubleClicked.connect(self._show_line)

    def render(self) -> None:
        self.set_result(self.session.result)

    def set_result(self, result) -> None:
        self.rows = launch_rows(result)
        self.table.setRowCount(len(self.rows))
        bold = QFont(self.table.font())
        bold.setBold(True)
        for r, row in enumerate(self.rows):
            for c, field in enumerate(FIELDS):
                text = str(getattr(row, field))
                changed = dict(row.changed).get(field)
                # a differing list shows what changed first: a column is narrower than it
                item = QTableWidgetItem(f"≠ {changed} · {text}" if changed else text)
                tip = text
                if field in row.differs:
                    item.setFont(bold)
                    tip = f"differs from the launch of {row.kernel} above" + (
                        f" in {changed}" if changed else ""
                    )
                    tip += f"\n{text}"
                item.setToolTip(tip)
                if field == "count":
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        for c in range(4):
            self.table.resizeColumnToContents(c)

    def _show_line(self, row: int, _column: int) -> None:
        if 0 <= row < len(self.rows) and self.rows[row].line:
            self.session.line_requested.emit(int(self.rows[row].line))
