"""Read-only tables with whole-row selection, as the Kernels and Pipeline panes use."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget


def row_table(columns: tuple[str, ...], stretch: int) -> QTableWidget:
    """A table with these column titles; column `stretch` takes the spare width."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.horizontalHeader().setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table


def fill_rows(table: QTableWidget, rows: list[list[str]]) -> None:
    """Replace the table's rows with these cells (text), then fit the columns."""
    from PySide6.QtWidgets import QTableWidgetItem

    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            table.setItem(r, c, QTableWidgetItem(str(text)))
    table.resizeColumnsToContents()
