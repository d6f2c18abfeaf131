"""Source pane: the kernel file, editable, highlighted, with diagnostics on their lines.

Ctrl+S saves and recompiles. Clicking a line links it to what it became in every stage.
Edits are autosaved to a recovery file a second after typing stops.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout

from kx_core.compile import CompileResult
from kx_core.cpu.remarks import line_marks
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView, ask_and_go_to_line
from kx_gui.widgets.find_bar import FindBar
from kx_gui.widgets.heat import view_heat
from kx_gui.widgets.python_highlighter import PythonHighlighter
from kx_gui.widgets.token_styles import band_color

MARK_COLORS = {
    "syntax": QColor("#d32f2f"),
    "compile": QColor("#d32f2f"),
    "crash": QColor("#d32f2f"),
    "timeout": QColor("#ef6c00"),
    "runtime": QColor("#1976d2"),
}
# a C++ loop's vectorization remark in the gutter: vectorized, or not (and why, on hover)
REMARK_COLORS = {True: QColor("#43a047"), False: QColor("#f9a825")}


class SourcePane(Pane):
    title = "Source"
    name = "source"
    listens = {
        "document_opened": "show_document",
        "result_changed": "show_diagnostics",
        "kernel_changed": "_kernel_changed",
        "link_changed": "_link_changed",
        "profile_changed": "_show_heat",
        "line_requested": "go_to_line",
    }

    dirty_changed = Signal(bool)

    def __init__(self, session, recovery=None, parent=None) -> None:
        super().__init__(session, parent)
        self.recovery = recovery
        self.view = CodeView(read_only=False)
        self.highlighter = PythonHighlighter(self.view.document())
        self.find_bar = FindBar(lambda: self.view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addWidget(self.find_bar)
        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(1000)
        self._autosave.timeout.connect(self._save_recovery)
        self.view.document().modificationChanged.connect(self.dirty_changed)
        self.view.textChanged.connect(self._edited)
        self.view.line_clicked.connect(self._line_clicked)
        self._loading = False

    @property
    def dirty(self) -> bool:
        return self.view.document().isModified()

    def text(self) -> str:
        return self.view.toPlainText()

    def show_document(self, path: str, text: str) -> None:
        self._loading = True
        self.highlighter.set_language(path)
        self.view.set_content(text)
        self.view.document().setModified(False)
        self._loading = False

    def replace_text(self, text: str) -> None:
        """Put recovered text in the editor, as an unsaved edit."""
        self.view.setPlainText(text)
        self.view.document().setModified(True)

    def save(self) -> bool:
        """Write the editor's text to the file and recompile."""
        path = self.session.path
        if not path:
            return False
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.text())
        except OSError as e:
            self.session.error.emit(f"cannot save {path}: {e.strerror or e}")
            return False
        self.view.document().setModified(False)
        if self.recovery is not None:
            self.recovery.clear(path)
        self.session.compile()
        return True

    def _edited(self) -> None:
        if not self._loading and self.dirty:
            self._autosave.start()

    def _save_recovery(self) -> None:
        if self.recovery is not None and self.session.path and self.dirty:
            self.recovery.save(self.session.path, self.text())

    def show_diagnostics(self, result: CompileResult) -> None:
        marks = {}
        for d in self.session.diagnostics_for_open_file():
            if d.line:
                marks[d.line] = (MARK_COLORS.get(d.kind, QColor("#757575")), f"{d.kind}: {d.message}")
        self.view.set_marks(marks)
        self.view.set_gutter_marks(self._remark_marks(result))

    def _remark_marks(self, result: CompileResult | None) -> dict:
        """Every loop's vectorization remark (a C++ file's Vectorization stages) on its line."""
        texts = [k.stages.get("vectorization", "") for k in (result.kernels if result else ())]
        return {
            line: (REMARK_COLORS[vectorized], text) for line, (vectorized, text) in line_marks(texts).items()
        }

    def _show_heat(self, _result=None) -> None:
        """The selected kernel's sampled source lines, as gutter bars."""
        heat, total = self.session.heat() if hasattr(self.session, "heat") else ({}, 0)
        self.view.set_heat(view_heat(heat.get("source", {}), total))

    def _kernel_changed(self, kernel, source_map) -> None:
        self._show_heat()
        if source_map is None:
            self.view.set_bands({})
            return
        self.view.set_bands({line: band_color(line) for line in source_map.mapped_source_lines()})
        self.view.set_emphasis(())

    def _line_clicked(self, line: int) -> None:
        self.session.select_source_line(line)

    def _link_changed(self, source_line, links) -> None:
        self.view.set_emphasis({source_line} if source_line else set())
        if source_line and source_line not in self.view.visible_lines():
            self.view.scroll_to_line(source_line)

    def ask_line(self) -> None:
        """Ctrl+G: ask for a line and go there."""
        ask_and_go_to_line(self, self.view)

    def go_to_line(self, line: int) -> None:
        self.view.go_to_line(line)
        self.view.setFocus()

    def title_for(self) -> str:
        name = os.path.basename(self.session.path or "untitled")
        return f"{name}{' •' if self.dirty else ''}"
