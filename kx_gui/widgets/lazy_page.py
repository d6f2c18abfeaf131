"""A tab page whose widgets are built the first time it is shown.

A pane whose hidden tabs hold pyqtgraph plots pays about 9 ms per PlotWidget on the UI
thread; built on first show, raising the pane costs only its first tab (issue 15: the UI
thread's worst stall under 50 ms). `LazyPages` lets the pane's code keep using the
attributes a page's builder sets: asking for one that is not there yet builds the pages.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyPage(QWidget):
    """Calls `build(layout)` once, on the first show or on `ensure()`."""

    def __init__(self, build: Callable[[QVBoxLayout], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build = build
        self.built = False
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def ensure(self) -> None:
        if not self.built:
            self.built = True  # first: a builder that reads an attribute must not recurse
            self._build(self._layout)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.ensure()
        super().showEvent(event)


class LazyPages:
    """Mixin for a widget with lazy pages in `self._lazy_pages`: an attribute that is not
    there yet (a plot a builder makes) builds the pages, then is looked up again."""

    def __getattr__(self, name: str):
        pages = self.__dict__.get("_lazy_pages")
        if pages and not name.startswith("__") and any(not p.built for p in pages):
            for page in pages:
                page.ensure()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
