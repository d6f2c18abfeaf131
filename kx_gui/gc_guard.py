"""Python's cyclic garbage collector runs only on the UI thread.

The GC runs in whichever thread happens to allocate when a threshold is crossed. When
that is a worker thread (a compile job, the playground) and the garbage holds a PySide
wrapper, the Qt object is destroyed off the UI thread and shiboken waits for the GIL:
the app deadlocks (seen here: a GUI test hung in `QObject::~QObject` called from the
compile thread's `build_source_map`). So automatic collection is switched off and the
UI thread collects on a timer: the young generation often, everything now and then.
Reference counting still frees all non-cyclic garbage at once, as before.

What is alive once the app has started (the modules kx, Qt, torch and Triton import:
hundreds of thousands of objects) is moved out of the collector's sight (`gc.freeze`):
once at install, once when the window is built (`settle`), and once more when the panes' modules have been imported in the
background (pane_registry.prefetch_pane_modules: freezing scans nothing and destroys
nothing, so that thread may do it). A collection then scans only what was made
since: a full one on the window's thread cost 60-100 ms before (bench_ui_stall --why
showed the window's thread in `collect`). While that background import runs the timer
collects nothing (`held`): a young collection then would scan every object the imports
made so far, since nothing has been collected into an older generation (50-90 ms,
measured at the window's first seconds). Frozen objects are still freed by reference
counting; only a cycle among them would stay, and those are the modules' own."""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

from PySide6.QtCore import QObject, QTimer

YOUNG_MS = 500
FULL_EVERY = 20  # a full collection every 20 young ones (10 s)

_timer: QTimer | None = None
_held = threading.Event()  # set while the panes' modules import in the background


def settle() -> None:
    """Freeze what exists now (the window just built): freezing scans and destroys nothing."""
    gc.freeze()


@contextmanager
def held():
    """No collection on the timer while the body runs; freeze what it made at the end."""
    _held.set()
    try:
        yield
    finally:
        gc.freeze()
        _held.clear()


def install(parent: QObject) -> None:
    """Idempotent: one timer for the process, owned by `parent`'s application."""
    global _timer
    if _timer is not None:
        return
    gc.disable()
    gc.collect()
    gc.freeze()
    count = {"n": 0}

    def collect() -> None:
        if _held.is_set():
            return
        count["n"] += 1
        gc.collect(2 if count["n"] % FULL_EVERY == 0 else 0)

    _timer = QTimer(parent)
    _timer.setInterval(YOUNG_MS)
    _timer.timeout.connect(collect)
    _timer.start()
