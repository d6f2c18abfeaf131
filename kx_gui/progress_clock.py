"""What a running compile is doing, with the seconds it has run, said again every second.

A compile's worker reports a step when it starts one; a step can last a minute (g++ on a
torch extension) with nothing new to report, and a status bar reading "0.0 s" all that
time looked hung (issue 54). The clock is the window's own: the seconds since the compile
was asked for, ticking while it runs, beside the last step reported."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

TICK_MS = 1000


class ProgressClock(QObject):
    """`start(step)` when a compile starts, `step(text)` on each report, `stop()` when it
    ends; `ticked(line)` is sent on each of those and every second between."""

    ticked = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.now = time.monotonic  # seconds; tests put a clock of their own here
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self._since = 0.0
        self._step = ""

    def start(self, step: str) -> None:
        self._since, self._step = self.now(), step
        self.timer.start()

    def step(self, text: str) -> None:
        """A step reported by the compile: said at once, with the time so far."""
        self._step = text
        if self.timer.isActive():
            self.tick()

    def stop(self) -> None:
        self.timer.stop()

    def line(self) -> str:
        """The step and the whole seconds since the compile started: 'compiling … · 12 s'."""
        return f"{self._step} · {max(0.0, self.now() - self._since):.0f} s"

    def tick(self) -> None:
        self.ticked.emit(self.line())
