"""Python's cyclic garbage collector runs only on the UI thread.

The GC runs in whichever thread happens to allocate when a threshold is crossed. When
that is a worker thread (a compile job, the playground) and the garbage holds a PySide
wrapper, the Qt object is destroyed off the UI thread and shiboken waits for the GIL:
the app deadlocks (seen here: a GUI test hung in `QObject::~QObject` called from the
compile thread's `build_source_map`). So automatic collection is switched off and the
UI thread collects on a timer: the young generation often, everything now and then.
Reference counting still frees all non-cyclic garbage at once, as before."""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

YOUNG_MS = 500
FULL_EVERY = 20  # a full collection every 20 young ones (10 s)

_timer: QTimer | None = None


def install(parent: QObject) -> None:
    """Idempotent: one timer for the process, owned by `parent`'s application."""
    global _timer
    if _timer is not None:
        return
    gc.disable()
    count = {"n": 0}

    def collect() -> None:
        count["n"] += 1
        gc.collect(2 if count["n"] % FULL_EVERY == 0 else 0)

    _timer = QTimer(parent)
    _timer.setInterval(YOUNG_MS)
    _timer.timeout.connect(collect)
    _timer.start()
