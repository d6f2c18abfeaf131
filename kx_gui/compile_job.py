"""Runs `kx_core.compile.iter_compile` off the UI thread and reports through signals.

The generator yields progress (at least every 0.25 s) while the worker process
compiles; cancel() makes the thread close it, which kills that worker. Every signal
carries the request number, so the Session can drop what is no longer current. Connect
them to bound methods of objects in the UI thread: Qt then queues the calls there.
"""

from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from kx_core.compile import CompileProgress, CompileRequest, CompileResult, iter_compile
from kx_core.compile.sass import with_sass


class CompileJob(QThread):
    """One compile of one file."""

    progress = Signal(int, str)
    finished_result = Signal(int, object)  # generation, CompileResult
    failed = Signal(int, str)

    def __init__(self, request: CompileRequest, generation: int, parent=None) -> None:
        super().__init__(parent)
        self.request = request
        self.generation = generation
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    def run(self) -> None:
        gen = iter_compile(self.request)
        try:
            for item in gen:
                if self._cancelled:
                    gen.close()
                    self.failed.emit(self.generation, "cancelled")
                    return
                if isinstance(item, CompileProgress):
                    text = f"{item.message} ({item.kernels_done} kernels, {item.elapsed_s:.1f} s)"
                    self.progress.emit(self.generation, text)
                elif isinstance(item, CompileResult):
                    self.progress.emit(self.generation, "disassembling SASS…")
                    result = with_sass(item)
                    if not self._cancelled:
                        self.finished_result.emit(self.generation, result)
        except Exception as e:  # noqa: BLE001 - a bad request becomes a message, not a crash
            self.failed.emit(self.generation, f"{type(e).__name__}: {e}")
