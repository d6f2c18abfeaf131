"""The base of every pane: a widget bound to the Session, with a title and a name."""

from __future__ import annotations

from collections import deque

import shiboken6
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QBoxLayout, QLabel, QWidget

from kx_gui.jobs import Jobs
from kx_gui.session import Session


class Pane(QWidget):
    """Subclasses set `title` (shown on the dock) and `name` (used by --pane and for
    the dock's objectName, which QSettings keys the saved layout on)."""

    title = "Pane"
    name = "pane"
    # what the pane listens to: a Session signal -> the method it calls, given as many of
    # the signal's arguments as the method takes ("schedule": render when shown); a
    # dotted name is a signal of one of the Session's feature models ("profiles.changed")
    listens: dict[str, str] = {}
    # the pane asks to be shown and raised (a failed compile's Problems, a finished
    # profile's Bench): the window answers for every pane alike
    raise_requested = Signal()
    # the pane shows results of a build (the compile's): a badge in its top-right corner
    # says when they are not the current build of the document shown (Session.build_note:
    # compiling, shown without running, cancelled, failed); the editor and the labs say no
    shows_build = True

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.jobs = Jobs(self)  # the pane's background work (kx_gui.jobs): never on the window's thread
        self._connections: list[tuple[object, object]] = []
        for signal, method in self.listens.items():
            self.listen(self._signal(signal), self._slot(method))
        self.badge: QLabel | None = None
        if self.shows_build:
            self.badge = QLabel(self)
            self.badge.setObjectName("buildBadge")
            self.badge.setStyleSheet(
                "QLabel#buildBadge { background: #fff3e0; color: #5d4037; border: 1px solid #ffb74d;"
                " border-radius: 3px; padding: 1px 6px; }"
            )
            self.badge.hide()
            self.listen(session.build_state_changed, self._show_badge)
            self._show_badge(session.build_note)  # a pane built late: the state now

    def _show_badge(self, note: str) -> None:
        self.badge.setText(note)
        self.badge.setToolTip(note)
        if note:
            self._place_badge()
        self.badge.setVisible(bool(note))

    def _place_badge(self) -> None:
        # a row of its own above the pane's content: drawn over it, the badge hid the
        # first Problems row and the Kernels header (first-user run, 1280x800)
        layout = self.layout()
        if isinstance(layout, QBoxLayout):
            if layout.indexOf(self.badge) < 0:
                self.badge.setWordWrap(True)
                layout.insertWidget(0, self.badge)
            return
        self.badge.adjustSize()  # a pane without a box layout: the top-right corner
        width = min(self.badge.sizeHint().width(), max(40, self.width() - 8))
        self.badge.setGeometry(self.width() - width - 4, 2, width, self.badge.sizeHint().height())
        self.badge.raise_()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.badge is not None and self.badge.isVisible() and not isinstance(self.layout(), QBoxLayout):
            self._place_badge()  # the corner overlay follows the pane's size

    def _signal(self, name: str):
        """A Session signal by name, or a feature model's ("profiles.changed")."""
        target = self.session
        for part in name.split("."):
            target = getattr(target, part)
        return target

    def _slot(self, method: str):
        """A slot calling `method` with the first n of a signal's arguments, n being how
        many it takes: one declaration serves `set_result(result)` and `schedule()`."""
        import inspect

        target = getattr(self, method)
        params = inspect.signature(target).parameters.values()
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            return target
        n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        return lambda *args: target(*args[:n])

    # ------------------------------------------------------------ lazy panes
    # A pane that shares its dock area as a hidden tab does no work until it is shown:
    # results arrive all at once, and only the visible panes should spend the UI thread.

    # (A tab behind another in a dock area still reports isVisible(); the main window tells
    # each pane through set_shown() from its dock's visibilityChanged signal.)

    _stale = False
    _shown = True

    def render(self) -> None:
        """Draw from the Session's current state (lazy panes override this)."""

    def catch_up(self) -> None:
        """A pane built after things happened (a lazy pane shown late) takes what the
        Session holds now; by default it renders when shown."""
        self.schedule()

    def schedule(self) -> None:
        """Render now if shown, else when next shown."""
        if self._shown and self.isVisible():
            self._stale = False
            self.render()
        else:
            self._stale = True

    def set_shown(self, shown: bool, later: bool = False) -> None:
        """`later` (a dock the user brought to the front): a stale pane renders on a later
        turn of the event loop, one pane per turn (_RenderQueue), so a workspace switch
        that shows two stale panes is three short stalls (arrange, draw, draw), not one
        of 60-90 ms."""
        self._shown = shown
        if shown and self._stale:
            if later:
                _RENDERS.add(self)
                return
            self._stale = False
            self.render()

    def render_if_stale(self) -> None:
        if self._stale and self._shown and self.isVisible():
            self._stale = False
            self.render()

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


class _RenderQueue:
    """Panes waiting for their deferred render, drawn one per turn of the event loop: a
    0 ms timer's timeouts are separate timer events, so the window's other timers (and
    input) get their turn between two panes' renders."""

    def __init__(self) -> None:
        self.waiting: deque[Pane] = deque()
        self.timer: QTimer | None = None

    def add(self, pane: Pane) -> None:
        if pane not in self.waiting:
            self.waiting.append(pane)
        if self.timer is None:
            self.timer = QTimer()
            self.timer.setInterval(0)
            self.timer.timeout.connect(self._next)
        self.timer.start()

    def _next(self) -> None:
        if not self.waiting:
            self.timer.stop()
            return
        pane = self.waiting.popleft()
        if shiboken6.isValid(pane):  # not a pane whose window closed meanwhile
            pane.render_if_stale()


_RENDERS = _RenderQueue()
