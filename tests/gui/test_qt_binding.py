"""The Qt binding must not leak references to None (PySide6 6.12.0 on Python 3.11 did:
every call of a void method dropped one, and the app died after a few thousand)."""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from kx_gui import gc_guard


def test_void_calls_keep_none_alive(qtbot):
    app = QApplication.instance()
    view = QPlainTextEdit()
    qtbot.addWidget(view)
    # earlier tests' widgets deleted later (deferred deletes) free their references to None
    # in the first processEvents: flushed before the count, they are not counted as a leak
    app.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    # kx's collection timer (gc_guard) stays off meanwhile: a full collection inside the
    # loop freed earlier tests' objects and their references to None (-77 in a full run)
    with gc_guard.held():
        before = sys.getrefcount(None)
        for _ in range(500):
            view.update()
            view.setPlainText("x")
            app.processEvents()
        after = sys.getrefcount(None)
    # noise from objects other threads free meanwhile is fine; the leak is -1500 (one a
    # void call), ten times this bound
    assert after - before > -150


def test_the_cyclic_gc_runs_only_on_the_ui_thread(qtbot, make_window):
    """A worker thread that triggers a collection holding a PySide wrapper deadlocks the
    app; kx switches automatic collection off and collects from a UI-thread timer."""
    import gc
    import weakref

    from kx_gui import gc_guard

    make_window()
    assert not gc.isenabled() and gc_guard._timer is not None and gc_guard._timer.isActive()

    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    probe = weakref.ref(a)
    del a, b
    qtbot.waitUntil(lambda: probe() is None, timeout=30_000)  # the timer's full collection frees it
