"""Helpers for GUI tests: open a file and wait for its results; click a line."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip


def open_and_wait(qtbot, window, path, timeout_ms: int = 300_000):
    """Open `path` and wait for its result on screen, derived stages (SASS, ELF) included:
    those come from the same job just after the text stages."""
    with qtbot.waitSignal(window.result_shown, timeout=timeout_ms):
        assert window.open_file(str(path))
    wait_derived(qtbot, window, timeout_ms)
    return window.session.result


def wait_derived(qtbot, window, timeout_ms: int = 120_000) -> None:
    """Wait until the result on screen has its derived stages (Session.stages_derived)."""
    if window.session.awaiting_derived:
        qtbot.waitUntil(lambda: not window.session.awaiting_derived, timeout=timeout_ms)


def click_line(qtbot, view, line: int) -> None:
    """A real left click on a line of a CodeView."""
    view.scroll_to_line(line)
    qtbot.wait(10)
    block = view.document().findBlockByNumber(line - 1)
    rect = view.blockBoundingGeometry(block).translated(view.contentOffset())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(40, int(rect.center().y())))


def hover_line(qtbot, view, line: int) -> str:
    """The tooltip a hover over a line of a CodeView shows: the ToolTip event Qt sends
    after the hover delay, to the viewport, whatever its mouse tracking."""
    view.scroll_to_line(line)
    qtbot.wait(10)
    block = view.document().findBlockByNumber(line - 1)
    rect = view.blockBoundingGeometry(block).translated(view.contentOffset())
    pos = QPoint(40, int(rect.center().y()))
    QToolTip.hideText()
    QApplication.sendEvent(
        view.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos, view.viewport().mapToGlobal(pos))
    )
    return QToolTip.text() if QToolTip.isVisible() else ""


def finished(qtbot, job, timeout_ms: int = 60_000) -> bool:
    """Wait for a pane's job (kx_gui.jobs) to be drawn; its answer."""
    qtbot.waitUntil(lambda: job.done, timeout=timeout_ms)
    return bool(job.ok)


def settled(qtbot, pane, timeout_ms: int = 60_000) -> None:
    """Wait until a pane's background jobs are all drawn."""
    qtbot.waitUntil(lambda: not pane.jobs.busy(), timeout=timeout_ms)
