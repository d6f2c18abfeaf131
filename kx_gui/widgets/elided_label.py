"""A one-line label cut to the width it is given, with "…" where it is cut and the whole
text in its tooltip (issue 54: at 1280 px the status line and pane headers were cut
mid-word, with nothing to say there was more). It never sets its window's minimum width:
a long message does not widen the window past a laptop's screen."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """`text()` is the whole text; what is drawn is as much of it as fits, ending in "…".
    `setToolTip` sets a note of the caller's: shown on hover, after the whole text when
    the text is cut."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._whole = ""
        self._note = ""  # the caller's tooltip
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(0)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def text(self) -> str:  # noqa: D102 - QLabel's, the whole text
        return self._whole

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._whole = text or ""
        self._fit()

    def setToolTip(self, note: str) -> None:  # noqa: N802 - Qt's name
        self._note = note or ""
        self._fit()

    def shown_text(self) -> str:
        """The text as drawn: whole, or cut with "…"."""
        return super().text()

    def is_elided(self) -> bool:
        return self.shown_text() != self._whole

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802 - the whole text's width: what it would like
        return QSize(self.fontMetrics().horizontalAdvance(self._whole) + 8, super().sizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        width = self.contentsRect().width() - 2 * self.margin() - 2  # QLabel's own inset
        whole = self._whole.replace("\n", " ")  # one line: a newline would hide the rest
        shown = (
            whole if width <= 0 else self.fontMetrics().elidedText(whole, Qt.TextElideMode.ElideRight, width)
        )
        if shown != super().text():
            super().setText(shown)
        cut = shown != self._whole
        tip = self._whole if cut else ""
        if self._note and self._note != self._whole:
            tip = f"{tip}\n{self._note}" if tip else self._note
        super().setToolTip(tip)
