"""Problems pane: every diagnostic of the last compile; a click shows its line."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QStyle, QVBoxLayout

from kx_core.compile import CompileResult
from kx_gui.panes.base import Pane

# Standard icons exist in every Qt style; emoji need a font that has them.
_FATAL_ICON = QStyle.StandardPixmap.SP_MessageBoxCritical
_INFO_ICON = QStyle.StandardPixmap.SP_MessageBoxInformation


class ProblemsPane(Pane):
    title = "Problems"
    name = "problems"
    listens = {"result_changed": "set_result", "error": "add_message"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.list = QListWidget()
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # the reason, first, stays
        # a row wider than the pane ends in "…" (with a horizontal scroll bar the view lays
        # rows out at full width and cuts them at its edge, with no sign that text is cut);
        # the whole text is on hover
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)

    def set_result(self, result: CompileResult | None) -> None:
        self.list.clear()
        if result is None:
            return
        for d in result.diagnostics:
            where = (
                f"{os.path.basename(d.file)}:{d.line}" + (f":{d.column}" if d.column else "")
                if d.file and d.line
                else (os.path.basename(d.file or "") or "")
            )
            # the reason first, then its kind, what it is of (a config's full name) and
            # where: the row is cut at the pane's right edge, and a long config name put
            # first cut the reason off (issue 54); the whole text on hover
            subject, reason = d.subject_and_reason()
            tail = " · ".join(part for part in (d.kind, subject, where) if part)
            item = QListWidgetItem(f"{reason}  — {tail}")
            item.setIcon(self.style().standardIcon(_FATAL_ICON if d.fatal else _INFO_ICON))
            item.setData(Qt.ItemDataRole.UserRole, d.line)
            item.setToolTip(f"{d.kind}{'  ' + where if where else ''}\n{d.message}")
            self.list.addItem(item)
        if not result.diagnostics:
            self.list.addItem(QListWidgetItem("no problems"))
        if any(d.fatal for d in result.diagnostics):
            self.raise_requested.emit()  # a failed compile: what failed comes first

    def add_message(self, message: str) -> None:
        item = QListWidgetItem(message)
        item.setIcon(self.style().standardIcon(_FATAL_ICON))
        self.list.insertItem(0, item)

    def _activated(self, item: QListWidgetItem) -> None:
        line = item.data(Qt.ItemDataRole.UserRole)
        if line:
            self.session.line_requested.emit(int(line))
