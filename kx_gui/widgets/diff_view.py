"""Two CodeViews side by side showing a TextDiff: changed lines banded, changed
characters marked, scrolling kept in step."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from kx_core.ir.textdiff import TextDiff, side_by_side
from kx_gui.widgets.code_view import CodeView
from kx_gui.widgets.elided_label import ElidedLabel

DELETED = QColor("#ffebee")
INSERTED = QColor("#e8f5e9")
CHANGED_CHARS_LEFT = QColor("#ef9a9a")
CHANGED_CHARS_RIGHT = QColor("#a5d6a7")


class DiffView(QWidget):
    def __init__(self, parent: QWidget | None = None, empty_titles: tuple[str, str] = ("", "")) -> None:
        super().__init__(parent)
        # what each side will hold, shown while it holds nothing (the Playground's two
        # views stood untitled until the first run)
        self.empty_titles = empty_titles
        self.left = CodeView()
        self.right = CodeView()
        # long titles are cut with "…", never widen the pane (the whole on hover)
        self.left_title = ElidedLabel()
        self.right_title = ElidedLabel()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        for title, view in ((self.left_title, self.left), (self.right_title, self.right)):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(view)
            split.addWidget(box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)
        layout.addWidget(self.summary)
        self.diff: TextDiff | None = None
        for label, text in zip((self.left_title, self.right_title), empty_titles):
            label.setText(text)
        self._row_of_left: dict[int, int] = {}
        self._syncing = False
        self.left.verticalScrollBar().valueChanged.connect(lambda v: self._sync(self.left, self.right, v))
        self.right.verticalScrollBar().valueChanged.connect(lambda v: self._sync(self.right, self.left, v))

    def show_texts(
        self,
        left: str,
        right: str,
        left_title: str,
        right_title: str,
        lexer=None,
        ignore_numbering: bool = False,
    ) -> TextDiff:
        self.diff = side_by_side(left, right, ignore_numbering)
        for label, text in ((self.left_title, left_title), (self.right_title, right_title)):
            label.setText(text)
        self.left.set_content(left, lexer)
        self.right.set_content(right, lexer)
        self.left.set_bands({n: DELETED for n in self.diff.changed_left})
        self.right.set_bands({n: INSERTED for n in self.diff.changed_right})
        self.left.set_char_marks(self.diff.left_spans, CHANGED_CHARS_LEFT)
        self.right.set_char_marks(self.diff.right_spans, CHANGED_CHARS_RIGHT)
        self._pairs = [(r.left, r.right) for r in self.diff.rows]
        if self.diff.identical:
            self.summary.setText("identical")
        else:
            self.summary.setText(
                f"{len(self.diff.changed_left)} lines removed or changed, {len(self.diff.changed_right)} added or changed"
            )
        first = next((r for r in self.diff.rows if r.kind != "equal"), None)
        if first is not None:
            if first.left:
                self.left.scroll_to_line(first.left)
            if first.right:
                self.right.scroll_to_line(first.right)
        return self.diff

    def clear(self, message: str = "") -> None:
        self.diff = None
        self.left.set_content("")
        self.right.set_content("")
        for label, text in zip((self.left_title, self.right_title), self.empty_titles):
            label.setText(text)  # not the titles of what is gone
        self.summary.setText(message)

    def _sync(self, source: CodeView, other: CodeView, value: int) -> None:
        """Scroll the other side to the line aligned with this side's top line."""
        if self._syncing or self.diff is None:
            return
        self._syncing = True
        try:
            top = value + 1
            side = 0 if source is self.left else 1
            for pair in self._pairs:
                if pair[side] is not None and pair[side] >= top and pair[1 - side] is not None:
                    other.verticalScrollBar().setValue(pair[1 - side] - 1 - (pair[side] - top))
                    break
        finally:
            self._syncing = False
