"""Find (Ctrl+F) over a CodeView: type, Enter for the next match, Shift+Enter back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget


class FindBar(QWidget):
    """A search field bound to whichever view `view_getter()` returns."""

    def __init__(self, view_getter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._view = view_getter
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find")
        self.field.setClearButtonEnabled(True)
        self.status = QLabel("")
        prev_button, next_button, close_button = QToolButton(), QToolButton(), QToolButton()
        prev_button.setText("↑")
        next_button.setText("↓")
        close_button.setText("✕")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        for w in (self.field, prev_button, next_button, self.status, close_button):
            layout.addWidget(w)
        self.field.returnPressed.connect(lambda: self.find(backward=False))
        next_button.clicked.connect(lambda: self.find(backward=False))
        prev_button.clicked.connect(lambda: self.find(backward=True))
        close_button.clicked.connect(self.hide)
        back = QShortcut(QKeySequence("Shift+Return"), self.field)
        back.activated.connect(lambda: self.find(backward=True))
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.field)
        escape.activated.connect(self.hide)
        self.hide()

    def open(self) -> None:
        view = self._view()
        if view is not None and view.textCursor().hasSelection():
            self.field.setText(view.textCursor().selectedText())
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def forget(self) -> None:
        """The text searched is replaced (another kernel or tab): its count goes; what is
        searched for stays (the same term in another kernel's stage)."""
        self.status.setText("")

    def reset(self) -> None:
        """Another file: the term searched in the last one goes too, and the bar closes."""
        self.field.clear()
        self.status.setText("")
        self.hide()

    def find(self, backward: bool = False) -> bool:
        """Select the next match after the cursor (wrapping); False when there is none."""
        view = self._view()
        needle = self.field.text()
        if view is None or not needle:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        found = view.find(needle, flags)
        if not found:
            cursor = view.textCursor()
            cursor.movePosition(cursor.MoveOperation.End if backward else cursor.MoveOperation.Start)
            view.setTextCursor(cursor)
            found = view.find(needle, flags)
        if found:
            self._keep_in_middle(view)
        count = view.toPlainText().count(needle)
        self.status.setText(f"{count} matches" if found else "no match")
        return found

    @staticmethod
    def _keep_in_middle(view) -> None:
        """A match the editor scrolled to its edge (find scrolls as little as it can: the
        first-time user's match sat on the last visible line) moves to the middle."""
        y, height = view.cursorRect().center().y(), view.viewport().height()
        if hasattr(view, "centerCursor") and not height / 4 <= y <= 3 * height / 4:
            view.centerCursor()
