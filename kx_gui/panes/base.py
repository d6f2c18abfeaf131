"""The base of every pane: a widget bound to the Session, with a title and a name."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from kx_gui.session import Session


class Pane(QWidget):
    """Subclasses set `title` (shown on the dock) and `name` (used by --pane and for
    the dock's objectName, which QSettings keys the saved layout on)."""

    title = "Pane"
    name = "pane"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._connections: list[tuple[object, object]] = []

    def listen(self, signal, slot) -> None:
        """Connect to a Session signal; undone by cleanup()."""
        signal.connect(slot)
        self._connections.append((signal, slot))

    def cleanup(self) -> None:
        for signal, slot in self._connections:
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self._connections.clear()
