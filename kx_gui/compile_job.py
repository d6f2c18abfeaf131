"""Runs `kx_core.compile.iter_compile` off the UI thread and reports through signals.

The generator runs in a plain Python thread and puts what it yields on a queue; a
QTimer in the UI thread drains the queue and emits the signals there. No Qt object is
touched from the compile thread: emitting Python-object signals across threads hit a
refcount crash in PySide6 6.12 ("none_dealloc") under a busy event loop, and this way
there is nothing to get wrong. The generator yields at least every 0.25 s, so cancel()
takes effect within that: the thread closes the generator, which kills the worker.
Every signal carries the request number, so the Session can drop what is not current.
"""

from __future__ import annotations

import queue
import threading

from PySide6.QtCore import QObject, QTimer, Signal

from kx_core.base.words import counted
from kx_core.compile import CompileProgress, CompileRequest, CompileResult, iter_compile
from kx_core.compile.artifacts.derived import with_derived
from kx_core.ir.sourcemap import source_map_of

# How often the UI thread looks at the queue, in milliseconds.
POLL_MS = 30


class CompileJob(QObject):
    """One compile of one file."""

    progress = Signal(int, str)
    finished_result = Signal(int, object)  # generation, (CompileResult, [SourceMap per kernel])
    failed = Signal(int, str)
    finished = Signal()

    def __init__(
        self, request: CompileRequest, generation: int, parent: QObject | None = None, use_cache: bool = True
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.use_cache = use_cache
        self.generation = generation
        self._cancelled = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"kx-compile-{generation}", daemon=True)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._drain)
        self._done = False

    # ------------------------------------------------------------ UI thread

    def start(self) -> None:
        self._thread.start()
        self._timer.start()

    def cancel(self) -> None:
        self._cancelled.set()

    def isRunning(self) -> bool:  # noqa: N802 - QThread's spelling, kept for callers
        return self._thread.is_alive() or not self._done

    def isFinished(self) -> bool:  # noqa: N802
        return self._done

    def wait(self, timeout_ms: int = 600_000) -> None:
        """Block until the compile thread ends, then deliver what it left (tests, exit)."""
        self._thread.join(timeout_ms / 1000)
        self._drain()

    def _drain(self) -> None:
        while True:
            try:
                kind, payload = self._queue.get_nowait()
            except queue.Empty:
                break
            if kind == "progress":
                self.progress.emit(self.generation, payload)
            elif kind == "result":
                self.finished_result.emit(self.generation, payload)
            elif kind == "failed":
                self.failed.emit(self.generation, payload)
        if not self._thread.is_alive() and self._queue.empty() and not self._done:
            self._done = True
            self._timer.stop()
            self.finished.emit()

    # ------------------------------------------------------------ compile thread

    def _run(self) -> None:
        put = self._queue.put
        gen = iter_compile(self.request, use_cache=self.use_cache)
        try:
            for item in gen:
                if self._cancelled.is_set():
                    gen.close()
                    put(("failed", "cancelled"))
                    return
                if isinstance(item, CompileProgress):
                    put(
                        (
                            "progress",
                            f"{item.message} ({counted(item.kernels_done, 'kernel')}, {item.elapsed_s:.1f} s)",
                        )
                    )
                elif isinstance(item, CompileResult):
                    put(("progress", "disassembling SASS…"))
                    result = with_derived(item)
                    # source maps parse every stage of every kernel: done here, so the
                    # UI thread only looks them up when a kernel is selected
                    maps = [source_map_of(k, result.file) for k in result.kernels]
                    if not self._cancelled.is_set():
                        put(("result", (result, maps)))
        except Exception as e:  # noqa: BLE001 - a bad request becomes a message, not a crash
            put(("failed", f"{type(e).__name__}: {e}"))
