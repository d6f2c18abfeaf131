"""Runs `kx_core.compile.iter_compile` off the UI thread and reports through signals.

The generator yields progress while the worker process compiles; closing it (cancel)
kills that worker. The UI thread never waits on the engine.
"""

from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from kx_core.compile import CompileProgress, CompileRequest, CompileResult, iter_compile
from kx_core.compile.sass import with_sass


class CompileJob(QThread):
    """One compile of one file. Signals carry plain engine objects."""

    progress = Signal(str)
    finished_result = Signal(object)  # CompileResult
    failed = Signal(str)

    def __init__(self, request: CompileRequest, parent=None) -> None:
        super().__init__(parent)
        self.request = request
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    def run(self) -> None:
        gen = iter_compile(self.request)
        try:
            for item in gen:
                if self._cancelled:
                    gen.close()
                    self.failed.emit("cancelled")
                    return
                if isinstance(item, CompileProgress):
                    self.progress.emit(
                        f"{item.message} ({item.kernels_done} kernels, {item.elapsed_s:.1f} s)"
                    )
                elif isinstance(item, CompileResult):
                    self.progress.emit("disassembling SASS…")
                    self.finished_result.emit(with_sass(item))
        except Exception as e:  # noqa: BLE001 - a bad request becomes a message, not a crash
            self.failed.emit(f"{type(e).__name__}: {e}")
