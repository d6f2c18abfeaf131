"""Runs `kx_core.recorded.open_record.iter_open` off the UI thread: a record of a real run
(a Triton cache or dump folder, a tritonparse trace) read as CompileJob reads a compile.

The generator runs in a plain Python thread and puts what it yields on a queue; a QTimer
in the UI thread drains it and emits the signals there (CompileJob says why). A trace
gives its first kernel before the index is done (`opened` with `complete` False), then
progress, then the whole index; the Session shows each as it comes.
"""

from __future__ import annotations

import queue
import threading

from PySide6.QtCore import QObject, QTimer, Signal

from kx_core.compile.artifacts.derived import with_derived
from kx_core.ir.sourcemap import source_map_of
from kx_core.recorded.open_record import NotARecord, OpenedRecord, iter_open
from kx_core.recorded.trace_index import ScanProgress

POLL_MS = 30


def source_maps(opened: OpenedRecord, document: str) -> list:
    """Each kernel's links to `document` (the kernels' source file, not the record)."""
    return [
        source_map_of(k, document) for k in opened.result.kernels
    ]


class RecordJob(QObject):
    """One opening of one record."""

    progress = Signal(int, str)
    opened = Signal(int, object)  # generation, OpenedRecord (derived stages made)
    failed = Signal(int, str)
    finished = Signal()

    def __init__(self, path: str, generation: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.generation = generation
        self._cancelled = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"kx-record-{generation}", daemon=True)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._drain)
        self._done = False

    def start(self) -> None:
        self._thread.start()
        self._timer.start()

    def cancel(self) -> None:
        self._cancelled.set()

    def isRunning(self) -> bool:  # noqa: N802 - CompileJob's (QThread's) spelling
        return self._thread.is_alive() or not self._done

    def isFinished(self) -> bool:  # noqa: N802
        return self._done

    def wait(self, timeout_ms: int = 600_000) -> None:
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

    def _run(self) -> None:
        put = self._queue.put
        try:
            for step in iter_open(self.path):
                if self._cancelled.is_set():
                    put(("failed", "cancelled"))
                    return
                if isinstance(step, ScanProgress):
                    share = step.done_bytes / step.total_bytes if step.total_bytes else 1.0
                    put(("progress", f"indexing the trace: {share:.0%}, {step.kernels:,} kernel(s)"))
                    continue
                if step.index is None:  # a folder: SASS (and ELF) from its cubins, as a compile's
                    put(("progress", "disassembling SASS…"))
                    step = OpenedRecord(step.path, step.kind, with_derived(step.result), step.sources)
                put(("opened", step))
        except NotARecord as e:
            put(("failed", str(e)))
        except Exception as e:  # noqa: BLE001 - an unreadable record becomes a message, not a crash
            put(("failed", f"{type(e).__name__}: {e}"))
