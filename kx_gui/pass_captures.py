"""Pass capture on demand, as the app holds it: one feature model beside the Session.

`capture(kernel)` recompiles one kernel record (its specialization: one config) with the
IR before every pass, in the background; several run side by side. When the passes
come, they join that record in the result on screen (Session.update_kernel) and
nothing else of the result changes. The Pipeline pane listens to `progress` and
`captured` (its `listens`: "pass_captures.progress")."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from kx_core.compile import CompiledKernel, CompileResult
from kx_gui.compile_job import CompileJob


def not_run_because(session, what: str) -> str:
    """Why `what` (a job that imports the open file) does not run: the document is shown
    without running (its folder not trusted, or a record's or bundle's text with no file)."""
    if session.no_file:
        return f"not run: {what} needs the text saved to a file first (Ctrl+S asks where)"
    return f"not run: {what} imports the file, and its folder is not trusted (F5 asks)"


class PassCaptures(QObject):
    progress = Signal(str, str)  # kernel display name, what the capture does
    captured = Signal(str, str)  # kernel display name, error ("" when the passes came)

    def __init__(self, session) -> None:
        super().__init__(session)
        self.session = session
        self.jobs: dict[str, CompileJob] = {}  # kernel display name -> its capture
        self._generation = 0

    def capture(self, kernel: CompiledKernel, timeout_s: float = 120.0, llvm: bool = False) -> bool:
        """Start capturing one record's passes; False when it cannot (no file, no
        specialization) or one runs for it already."""
        s = self.session
        if not s.path or kernel.specialization is None or kernel.display_name in self.jobs:
            return False
        if not s.running:  # the capture imports the file: its code runs, so only where trusted
            s.error.emit(not_run_because(s, "capturing its passes"))
            return False
        self._generation += 1
        request = s.request(
            replay=kernel, passes=True, llvm_passes=llvm, timeout_s=timeout_s, import_only=True
        )
        job = CompileJob(request, self._generation, self)
        name, build = kernel.display_name, s.build
        job.progress.connect(lambda _g, message: self.progress.emit(name, message))
        job.finished_result.connect(lambda _g, payload: self._came(name, kernel, payload[0], build))
        job.failed.connect(lambda _g, message: self.captured.emit(name, message))
        job.finished.connect(lambda: self.jobs.pop(name, None))
        self.jobs[name] = job
        job.start()
        return True

    def _came(self, name: str, original: CompiledKernel, result: CompileResult, build) -> None:
        if build != self.session.build:  # the file, target or result changed meanwhile
            self.captured.emit(
                name,
                self.session.held_note(build, "passes not shown: they are")
                or "passes not shown: the result they were for is gone",
            )
            return
        got = next((k for k in result.kernels if k.passes), None)
        if got is None or self.session.result is None:
            fatal = [d.message for d in result.diagnostics if d.fatal]
            self.captured.emit(name, fatal[0] if fatal else "the recompile gave no passes")
            return
        self.session.update_kernel(name, original.specialization, passes=got.passes)
        self.captured.emit(name, "")

    def wait(self, timeout_ms: int) -> None:
        for job in list(self.jobs.values()):
            job.wait(timeout_ms)
