"""The Qt binding must not leak references to None (PySide6 6.12.0 on Python 3.11 did:
every call of a void method dropped one, and the app died after a few thousand)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QPlainTextEdit


def test_void_calls_keep_none_alive(qtbot):
    app = QApplication.instance()
    view = QPlainTextEdit()
    qtbot.addWidget(view)
    before = sys.getrefcount(None)
    for _ in range(500):
        view.update()
        view.setPlainText("x")
        app.processEvents()
    # a little noise from objects created meanwhile is fine; -1500 would be the leak
    assert sys.getrefcount(None) - before > -50
