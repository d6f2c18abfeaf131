"""A background job for the window: work in a plain Python thread that puts
(signal name, payload) on a queue, and a QTimer on the UI thread that drains it and emits
the signals there. No Qt object is touched from the worker thread: emitting
Python-object signals across threads hit a refcount crash in PySide6 6.12
("none_dealloc") under a busy event loop, and this way there is nothing to get wrong.
Every signal carries the job's generation, so the Session can drop what is not current.
CompileJob and RecordJob are the two kinds."""

from __future__ import annotations

import queue
import threading

from PySide6.QtCore import QObject, QTimer, Signal

# How often the UI thread looks at the queue, in milliseconds.
POLL_MS = 30


class PolledJob(QObject):
    """Subclasses define `_work(put)` (the worker thread's body; `put((signal, payload))`,
    with `self.cancelled` to check) and their (int, object) signals by name."""

    progress = Signal(int, str)
    failed = Signal(int, str)
    finished = Signal()

    def __init__(self, generation: int, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.generation = generation
        self.cancelled = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"kx-{name}-{generation}", daemon=True)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._drain)
        self._done = False

    # ------------------------------------------------------------ UI thread

    def start(self) -> None:
        self._thread.start()
        self._timer.start()

    def cancel(self) -> None:
        self.cancelled.set()

    def isRunning(self) -> bool:  # noqa: N802 - QThread's spelling, kept for callers
        return self._thread.is_alive() or not self._done

    def isFinished(self) -> bool:  # noqa: N802
        return self._done

    def wait(self, timeout_ms: int = 600_000) -> None:
        """Block until the worker thread ends, then deliver what it left (tests, exit)."""
        self._thread.join(timeout_ms / 1000)
        self._drain()

    def _drain(self) -> None:
        while True:
            try:
                kind, payload = self._queue.get_nowait()
            except queue.Empty:
                break
            getattr(self, kind).emit(self.generation, payload)
        if not self._thread.is_alive() and self._queue.empty() and not self._done:
            self._done = True
            self._timer.stop()
            self.finished.emit()

    # ------------------------------------------------------------ worker thread

    def _run(self) -> None:
        try:
            self._work(self._queue.put)
        except Exception as e:  # noqa: BLE001 - a bad request or record becomes a message, not a crash
            self._queue.put(("failed", f"{type(e).__name__}: {e}"))

    def _work(self, put) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError
