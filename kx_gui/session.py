"""The one Session: the open document, the compile in flight, the current result, the
selected kernel and the linked lines. Panes read it and listen to its signals.

Compiles are numbered: a new request cancels the one in flight (its worker process is
killed) and results that arrive for an older number are dropped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from kx_core.base.line_shift import LineShift
from kx_core.base.words import counted
from kx_core.compare.rebuild import pair_rebuild
from kx_core.compile import CompiledKernel, CompileRequest, CompileResult
from kx_core.compile.artifacts.derived import underived
from kx_core.compile.wire.source_file import KernelFileError, read_kernel_file
from kx_core.ir.display_filters import DisplayFilters
from kx_core.ir.sourcemap import SourceMap, same_source, source_map_of
from kx_core.records.build import Build, content_hash
from kx_core.records.results import KernelCall
from kx_gui.compile_job import CompileJob
from kx_gui.measured import Measured
from kx_gui.outputs import Outputs
from kx_gui.pass_captures import PassCaptures
from kx_gui.profiles import Profiles
from kx_gui.progress_clock import ProgressClock


class Session(QObject):
    # Feature models beside the session, by the attribute each is made as: the file's
    # profile and hot lines, pass capture on demand. A pane's `listens` names their
    # signals with a dot ("profiles.changed").
    MODELS = {"profiles": Profiles, "pass_captures": PassCaptures, "outputs": Outputs}

    document_opened = Signal(str, str)  # path, text
    compile_started = Signal(int)  # generation
    compile_progress = Signal(str)
    compile_finished = Signal(int)  # generation (result or failure)
    result_changed = Signal(object)  # CompileResult (the first kernel is selected after)
    result_settled = Signal(object)  # CompileResult, once every pane shows it
    kernel_changed = Signal(object, object)  # CompiledKernel | None, SourceMap | None
    # CompileResult: the result on screen now has its derived stages (SASS, ELF), made in
    # the background after its text stages were shown
    stages_derived = Signal(object)
    link_changed = Signal(object, object)  # source line | None, {stage: (ir lines)}
    display_filters_changed = Signal(object)  # DisplayFilters
    error = Signal(str)  # a message for the user (bad file, failed job)
    measurements_changed = Signal(object)  # Measured: seconds by kernel name, with their build
    # a view of one IR line asked for (kx_core.ir.ttgir_lines.LineView): its kind
    # ("layout", "conversion", "access", "bank") and its arguments; a pane that answers
    # it is built for it when it is not yet (pane_registry: PaneSpec.answers)
    view_requested = Signal(str, object)
    line_requested = Signal(int)  # a pane asks to show a line of the source (Problems)
    # what the panes' results are to the document shown (build_note): '' when they are its
    # current build; else the words a pane's badge shows (kx_gui.panes.base)
    build_state_changed = Signal(str)

    def __init__(
        self, target: str = "default", parent: QObject | None = None, timeout_s: float = 180.0
    ) -> None:
        super().__init__(parent)
        self.target = target
        self.timeout_s = timeout_s
        self.passes = False  # capture the IR before every pass (the Pipeline pane asks)
        self.path: str | None = None
        self.result: CompileResult | None = None
        self.previous_result: CompileResult | None = None  # the compile before, same file (Diff)
        self.kernel: CompiledKernel | None = None
        self.kernel_index = -1
        self.source_map: SourceMap | None = None
        self.awaiting_derived = False  # the result's SASS/ELF are still being made (_derived)
        self._settled_generation = -1  # the generation whose result every pane shows
        self._partial_generation = -1  # the generation whose kernels so far are on screen
        self._pending_derived: tuple | None = None  # derived stages that came before it settled
        # the source line the user selected: it stays selected (and its links shown) across
        # kernels, configs and recompiles of the same file
        self.selected_line: int | None = None
        self.link_origin: tuple[str, int] | None = None  # (stage, line) of an IR line clicked
        self.display_filters = DisplayFilters()  # what the stage views hide
        self.generation = 0
        self._source_maps: list[SourceMap] = []
        # the text of the latest compile asked for (only the latest one's result is taken),
        # the text of the build on screen, and its lines against the editor's while a
        # broken edit keeps that build
        self.requested_text: str | None = None
        self.build_text: str | None = None
        self.line_shift = LineShift()
        self.job: CompileJob | None = None
        self._old_jobs: list[CompileJob] = []
        self.running = True  # False: the file is shown, not run (its folder is not trusted)
        # True: the document is text a record or bundle carried, shown under the name it
        # gave; no file of this machine holds it, so Save asks where (never that name)
        self.no_file = False
        self.python: str | None = None  # the interpreter that runs the worker (None: kx's own)
        self.gpu: str | None = None  # the GPU the capture stands for (None: the target's)
        self.memory_limit_mb: int | None = None  # the worker's limit (None: 3/4 of memory)
        # the latest measured times (by kernel name) and the build they were measured on
        self.measured = Measured()
        self.measurements_changed.connect(lambda measured: setattr(self, "measured", measured))
        for name, model in self.MODELS.items():  # the feature models, each with this session
            setattr(self, name, model(self))
        self.warm_workers = False  # keep a warm worker per interpreter (the app turns it on)
        self._warm: dict[str | None, object] = {}  # interpreter -> the server it started
        # generation -> kernel name, for a compile from an Arguments form: its records
        # replace that kernel's not-launched record in the result on screen
        # the Arguments form's calls, by file and kernel: every compile of that file makes
        # them after its run (CompileRequest.calls), so edits keep the kernel compiled
        self._calls: dict[str, dict[str, KernelCall]] = {}
        self._select: dict[int, str] = {}  # generation -> the kernel to select when it is done
        # the editor's text where it differs from the file (the source pane sets it): what
        # the Arguments form compiles, as live recompile does
        self.unsaved_text: Callable[[], str | None] = lambda: None
        # an edit compiles as it is typed (File ▸ Recompile as You Type), else when saved:
        # what makes a previous compile, as the Diff pane's hint says
        self.compiles_as_typed = True
        self._nothing_because = ""  # why no result is on screen for the open document
        self._failed_note = ""  # the last good build is shown: the latest compiled nothing
        self._bundle_note = ""  # the results shown are a bundle's (open_bundle) or a record's
        # where the results shown were made when nothing ran here ("the bundle two.kxb"):
        # their output is what the file printed there, titled so in the Output pane
        self._recorded_in = ""
        # the record of a real run on screen (open_record): a trace's kernels' stages are
        # read from it when a kernel is selected
        self._record = None
        self._record_job = None  # the RecordJob reading it (it outlives its first delivery)
        self._build_note = ""
        # the step a running compile reported and its seconds so far, said every second
        self.progress_clock = ProgressClock(self)
        self.progress_clock.ticked.connect(self.compile_progress.emit)
        self.compile_finished.connect(self._stop_clock_when_done)
        for signal in (
            self.compile_started,
            self.compile_finished,
            self.result_changed,
            self.document_opened,
        ):
            signal.connect(lambda *_: self._note_build_state())

    # ------------------------------------------------------------ documents

    def open_file(self, path: str, run: bool = True) -> bool:
        """Read a file and compile it (`run=False`: show it without running its code);
        False (and `error`) when it cannot be opened."""
        path = os.path.abspath(path)
        try:
            text = read_kernel_file(path)
        except KernelFileError as e:
            self.error.emit(str(e))
            return False
        another = path != self.path or not run  # nothing shown before stays beside this one
        self._switch_document(
            path,
            run,
            ("" if run else "shown without running: nothing is compiled (F5 runs it)") if another else None,
        )
        self.document_opened.emit(path, text)
        if run:
            self.compile()
        return True

    def open_bundle(self, bundle_path: str) -> bool:
        """Show what a bundle recorded (records/bundle.py), as it was: its source and its
        results, nothing run. Its source is a document with no file (`no_file`), shown
        under the file's name (a plain name, read_bundle checks it) in the bundle's
        folder: Ctrl+S asks where it goes, and F5 runs nothing until it is saved and trusted."""
        from kx_core.records.bundle import BundleError, read_bundle

        try:
            bundle = read_bundle(bundle_path)
        except BundleError as e:
            self.error.emit(str(e))
            return False
        path = os.path.join(os.path.dirname(os.path.abspath(bundle_path)), bundle.file_name)
        self._switch_document(path, False, "", forget=True)
        self.no_file = True
        self._recorded_in = f"the bundle {os.path.basename(bundle_path)}"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(bundle.created))
        self._bundle_note = (
            f"from the bundle {os.path.basename(bundle_path)}: recorded by kx {bundle.kx_version} on {when} "
            "(nothing ran here)"
        )
        self.document_opened.emit(self.path, bundle.source)
        result = bundle.result
        maps = [source_map_of(k, result.file) for k in result.kernels]
        self.generation += 1
        self._finished(self.generation, (result, maps))
        return True

    @property
    def record(self):
        """The record of a real run on screen (an OpenedRecord), or None."""
        return self._record

    def open_record(self, record_path: str, trusted: bool = False) -> bool:
        """Show what a real run recorded (kx_core.recorded: a Triton cache or dump folder, a
        tritonparse trace), read in the background: nothing runs, unless `trusted` (the
        user trusts it: an Inductor record's module is run under kx's capture). The
        document is the kernels' source file (this machine's, else the copy the record
        carries, with no file: `no_file`); a trace's first kernel shows before its index
        is done."""
        from kx_gui.record_job import RecordJob

        record_path = os.path.abspath(record_path)
        self._switch_document(record_path, False, "reading the record…", forget=True)
        self._record = None
        self.document_opened.emit(record_path, "")
        self.generation += 1
        self.requested_text = None
        job = RecordJob(record_path, self.generation, self, trusted)
        job.progress.connect(self._progress)
        job.opened.connect(self._record_opened)
        job.failed.connect(self._failed)
        job.finished.connect(self._reap)
        self.job = self._record_job = job
        self.progress_clock.start(f"reading {os.path.basename(record_path)}")
        self.compile_started.emit(self.generation)
        job.start()
        return True

    def _record_opened(self, generation: int, opened) -> None:
        from kx_core.recorded.open_record import RECORD_NAMES
        from kx_gui.record_job import source_maps

        if generation != self.generation:
            return
        self._record = opened
        kernels = opened.result.kernels
        document = next((k.source_file for k in kernels if k.source_file), None)
        local = opened.local_source(document)
        text = local if local is not None or not document else opened.sources.get(document)
        if document and text is not None and document != self.path:
            self.path = document
            # the record's copy of a file this machine does not have: the record's name for
            # it never decides where a save goes (a trace naming a trusted folder's file)
            self.no_file = local is None
            self.document_opened.emit(document, text)
        where = f"the {RECORD_NAMES[opened.kind]} {os.path.basename(opened.path)}"
        recompiled = next((d.message for d in opened.result.diagnostics if d.kind == "recompiled"), None)
        self._bundle_note = (
            # a record of source only: its stages are kx's compile, never the run's (say so)
            f"from {where}: {recompiled}"
            if recompiled
            else f"from {where}: its module was not run (not trusted): its kernels are listed from its text, "
            "without stages (F5 or File ▸ Trust This Folder runs it)"
            if opened.code_not_run
            else f"from {where}: what a real run compiled (nothing ran here)"
            + ("" if opened.complete else "; indexing the rest…")
            + ("" if text is not None or not document else f"; its source {document} is not on this machine")
            + ("; its source is the record's copy, saved nowhere (Ctrl+S asks where)" if self.no_file else "")
        )
        self._recorded_in = "" if recompiled else where
        # the job is retired by the first delivery (nothing is 'compiling'); a trace's job
        # goes on indexing under this generation and delivers the whole index later
        self._finished(generation, (opened.result, source_maps(opened, self.path or "")))
        self.previous_result = None  # a record read in steps is one record, not two builds

    def _record_kernel(self, index: int, kernel: CompiledKernel) -> CompiledKernel:
        """A trace's kernel with its stages, read from the record now (one line of the
        trace: of a gzipped one, from its nearest checkpoint, some 8 MB at most)."""
        record = self._record
        if (
            record is None
            or self.result is None
            or self.result.file != record.result.file
            or not (kernel.metadata and kernel.metadata.extra.get("stages_not_read"))
        ):
            return kernel
        loaded = record.load(index)
        kernels = list(self.result.kernels)
        kernels[index] = loaded
        self.result = replace(self.result, kernels=tuple(kernels))
        if index < len(self._source_maps):
            self._source_maps[index] = source_map_of(loaded, self.path or "")
        return loaded

    def open_unsaved(self, path: str, text: str, running: bool | None = None, no_file: bool = False) -> None:
        """Show text for a file that is not on disk (recovered edits of a deleted file):
        nothing compiles until it is saved there. `running`: whether it may run once
        saved (the trust answer for its folder; None: as before); `no_file`: the text a
        record or bundle carried, with no file of its own (Save asks where)."""
        self._switch_document(
            os.path.abspath(path),
            self.running if running is None else running,
            "not on disk: nothing compiles until it is saved",
        )
        self.no_file = no_file
        self.document_opened.emit(self.path, "")

    def saved_as(self, path: str) -> None:
        """The document with no file (`no_file`) was saved where the user chose: that file
        is the document now. It still does not run: F5 asks about its folder."""
        self.path, self.no_file = os.path.abspath(path), False

    def _switch_document(self, path: str, running: bool, because: str | None, forget: bool = False) -> None:
        """The session now shows `path`: the compile in flight stops; another file (or
        `forget`) starts with no selected line, no previous compile and no profile; with
        `because` (not None) no result of before stays on screen, and the panes' badge
        says `because` (_show_nothing)."""
        self.cancel()
        if forget or path != self.path:
            self.selected_line = None
            self.previous_result = None
            self.profiles.set(None)
        self._bundle_note = self._recorded_in = ""
        self._record = None
        self.path, self.running, self.no_file = path, running, False
        if because is not None:
            self._show_nothing(because)

    def _show_nothing(self, because: str) -> None:
        """No result on screen: every pane is told (result_changed and kernel_changed with
        None), so none keeps another file's results; `because` is what their badge says."""
        self._nothing_because = because
        self._failed_note = ""
        had = self.result is not None or self.kernel is not None
        self.result, self.kernel, self.kernel_index, self.source_map = None, None, -1, None
        self._source_maps = []
        if had:
            self.result_changed.emit(None)
            self.kernel_changed.emit(None, None)
            self.link_changed.emit(None, {})

    @property
    def build_note(self) -> str:
        """What the results on screen are to the document shown ('' when its current build)."""
        if not self.path:
            return ""
        if self.compiling:
            if self._partial_generation == self.generation and self.result is not None:
                # a CompilePartial on screen: this build's kernels so far, or the first
                # kernel's first stage while Triton makes the rest (status 'compiling')
                done = [k for k in self.result.kernels if k.status != "compiling"]
                if not done:
                    return "compiling: the first kernel's first stage, its later stages follow…"
                return f"compiling: {counted(len(done), 'kernel')} of this build so far…"
            return "previous build: compiling the current one…" if self.result is not None else "compiling…"
        if self.result is None:
            return self._nothing_because or "nothing compiled for this file yet"
        return self._failed_note or self._bundle_note

    def _note_build_state(self) -> None:
        note = self.build_note
        if note != self._build_note:
            self._build_note = note
            self.build_state_changed.emit(note)

    def set_target(self, target: str) -> None:
        self.target = target
        if self.path:
            self.compile()

    # ------------------------------------------------------------ compiling

    @property
    def build(self) -> Build | None:
        """The build on screen: what the current result was compiled from and for."""
        return self.result.build if self.result else None

    def build_on_disk(self) -> Build | None:
        """The build on screen with the content of the file on disk now: what a run of
        the file (Bench, Profile) measures. Its `content` differs from `build`'s when
        the file was saved since its compile."""
        if self.build is None or not self.path:
            return None
        try:
            with open(self.path, "rb") as f:
                return replace(self.build, content=content_hash(f.read()))
        except OSError:
            return self.build

    def held_note(self, held: Build | None, what: str) -> str:
        """'' when results held for `held` belong to the build on screen; else the words a
        pane shows: '<what> are of another build: the file changed since (...)'."""
        current = self.build
        if held is None or current is None or held == current:
            return ""
        return f"{what} of another build: {current.difference(held)}"

    @property
    def measured_note(self) -> str:
        """'' when the measured times are of the build on screen; else why they are not
        shown (the Roofline and Autotune panes say it)."""
        return self.held_note(self.measured.build, "measured times are")

    def measured_on_screen(self) -> dict[str, float]:
        """Measured seconds by kernel display name, when measured on the build on screen."""
        return {} if self.measured_note else self.measured.seconds

    @property
    def compiling(self) -> bool:
        # from the request on (compile_started is sent before its thread starts)
        return self.job is not None and not self.job.isFinished()

    def request(self, **fields) -> CompileRequest:
        """The request for the open file with the session's target, GPU, interpreter."""
        base = {
            "target": self.target,
            "timeout_s": self.timeout_s,
            "passes": self.passes,
            "python": self.python,
            "gpu": self.gpu,
            "memory_limit_mb": self.memory_limit_mb,
            "cwd": os.path.dirname(self.path) if self.path else None,
        }
        return CompileRequest(self.path or "", **(base | fields))

    # ------------------------------------------------------------ passes on demand

    def capture_passes(self, kernel: CompiledKernel, timeout_s: float = 120.0, llvm: bool = False) -> bool:
        """Recompile one kernel record with its passes captured (pass_captures.py)."""
        return self.pass_captures.capture(kernel, timeout_s, llvm)

    def update_kernel(self, name: str, specialization, **fields) -> None:
        """Fields of one record of the result on screen (found by display name and
        specialization) replaced; nothing else of the result changes."""
        if self.result is None:
            return
        kernels = list(self.result.kernels)
        for i, k in enumerate(kernels):
            if k.display_name == name and k.specialization == specialization:
                kernels[i] = replace(k, **fields)
                self.result = replace(self.result, kernels=tuple(kernels))
                if i == self.kernel_index:
                    self.kernel = kernels[i]
                    self.kernel_changed.emit(self.kernel, self.source_map)
                return

    def ensure_warm_worker(self) -> None:
        """Start a warm worker (kx_core.compile.jobs.warm) for the session's interpreter in the
        background unless one answers; again after it died. It dies with the app."""
        from kx_core.compile.jobs import warm

        if not self.warm_workers or warm.status(self.python) is not None:
            return
        proc = self._warm.get(self.python)
        if proc is None or proc.poll() is not None:
            self._warm[self.python] = warm.launch(self.python, wait_s=0)

    def compile(self, use_cache: bool = True) -> int:
        """Compile the saved file for the current target; returns the request number.
        `use_cache=False` (Recompile, F5) compiles for real even when a result is cached.
        Nothing runs for a file opened without running (an untrusted folder)."""
        if not self.path or not self.running:
            return self.generation
        self.ensure_warm_worker()
        return self._start(self.request(calls=self._calls_of_file()), use_cache)

    def compile_text(self, text: str) -> int:
        """Compile the editor's unsaved text as the file (live recompile): its results are
        of that text's build, which the file on disk is not until it is saved (Bench and
        Profile run the file on disk, and say so)."""
        if not self.path or not self.running:
            return self.generation
        self.ensure_warm_worker()
        return self._start(self.request(text=text, calls=self._calls_of_file()))

    def _calls_of_file(self) -> tuple[KernelCall, ...]:
        return tuple(self._calls.get(self.path or "", {}).values())

    def compile_with_args(self, kernel: str, args: dict[str, str], grid: str | None = None) -> int:
        """Compile one kernel of the file as a call with these --arg values would (the
        Arguments form of a kernel nothing launched): the editor's text runs, then the call
        (CompileRequest.calls); later compiles of the file make the call again, so an edit
        keeps the kernel compiled."""
        if not self.path or self.result is None:
            return self.generation
        if not self.running:  # the call imports the file: its code runs, so only where trusted
            from kx_gui.pass_captures import not_run_because

            self.error.emit(not_run_because(self, f"compiling {kernel} with these arguments"))
            return self.generation
        self._calls.setdefault(self.path, {})[kernel] = KernelCall(kernel, dict(args), grid or None)
        text = self.unsaved_text()
        generation = self.compile_text(text) if text is not None else self.compile()
        self._select[generation] = kernel
        return generation

    def _start(self, request: CompileRequest, use_cache: bool = True) -> int:
        self.cancel()
        for old in self._old_jobs:  # a delivered build still disassembling: not wanted now
            old.cancel()
        self._bundle_note = ""
        if self.job is not None and self.job.isFinished():
            self.job.deleteLater()
        self.generation += 1
        generation = self.generation
        self.awaiting_derived = False  # an older job's SASS is not this one's
        self.requested_text = request.text if request.text is not None else self._read_open_file()
        job = CompileJob(request, generation, self, use_cache)
        job.progress.connect(self._progress)
        job.finished_result.connect(self._finished)
        job.partial_result.connect(self._partial)
        job.derived_result.connect(self._derived)
        job.failed.connect(self._failed)
        job.finished.connect(self._reap)
        self.job = job
        self.progress_clock.start(
            f"compiling {os.path.basename(self.path or request.file)} for {self.target}"
        )
        self.compile_started.emit(generation)
        job.start()
        return generation

    def cancel(self) -> None:
        """Stop the compile in flight (its worker process is killed)."""
        if self._record_job is not None:  # a trace still being indexed: its index is not wanted
            self._record_job.cancel()
            self._record_job = None
        job, self.job = self.job, None
        if job is not None and job.isRunning():
            job.cancel()
            self._old_jobs.append(job)
            if self.result is None:
                self._nothing_because = "compile cancelled: nothing compiled for this file (F5 compiles)"
            self.compile_finished.emit(self.generation)

    def _reap(self) -> None:
        done = [j for j in self._old_jobs if j.isFinished()]
        for job in done:
            self._old_jobs.remove(job)
            job.deleteLater()

    def _stop_clock_when_done(self, _generation: int) -> None:
        if not self.compiling:  # a cancelled compile's successor may be running
            self.progress_clock.stop()

    def _progress(self, generation: int, message: str) -> None:
        if generation == self.generation:
            self.progress_clock.step(message)

    def _retire_current_job(self) -> None:
        """The current job has delivered: it is no longer 'compiling' (its thread may
        still be winding down; it is reaped once finished)."""
        if self.job is not None:
            self._old_jobs.append(self.job)
            self.job = None

    def _failed(self, generation: int, message: str) -> None:
        if generation != self.generation:
            return
        self._retire_current_job()
        if self.result is None and message != "cancelled":  # cancel() said it already
            self._nothing_because = "the compile failed (Problems says why): nothing compiled"
        self.compile_finished.emit(generation)
        if message != "cancelled":
            self.error.emit(message)

    def _finished(self, generation: int, payload: tuple[CompileResult, list[SourceMap]]) -> None:
        if generation != self.generation:
            return  # a newer request replaced this one
        result, maps = payload
        kernel = self._select.pop(generation, None)
        first = next((i for i, k in enumerate(result.kernels) if k.name == kernel), None)
        if first is None:
            first = self._same_kernel_index(result)
        result = self._with_captured_passes(result)
        kept = self._last_good(result)
        self._failed_note = ""
        compiled_text = self.requested_text  # generation is the latest (checked above)
        if kept is None:
            self.build_text, self.line_shift = compiled_text, LineShift()
        elif self.build_text is not None and compiled_text is not None:
            # the build's lines are the old text's: links and bands go through the shift
            self.line_shift = LineShift.between(self.build_text, compiled_text)
        if kept is not None:
            # nothing compiled: the last good build stays on screen, marked, with the new
            # text's problems (a syntax error typed mid-edit blanked every stage)
            result, maps = kept, self._source_maps
            first = max(0, self.kernel_index)  # the kernel looked at stays selected
            self._failed_note = "last good build shown: the current text does not compile (Problems says why)"
        elif missing := next((d for d in result.diagnostics if d.kind == "missing-extra"), None):
            # nothing of the file was captured: said at the top of every result pane, not
            # left to an empty table (issue 54)
            self._failed_note = f"nothing compiled: {missing.message}"
        self._source_maps = maps
        if (
            self.result is not None
            and self.result.file == result.file
            and self.result is not result
            and self.result.build != result.build  # a live compile, then its save: one build
        ):
            self.previous_result = self.result
        self.result = result
        # SASS and ELF come from the same job soon after (_derived); a kept last good build
        # or a cached result already has what it will have
        self.awaiting_derived = kept is None and underived(result) and self.job is not None
        self._retire_current_job()
        self.outputs.put(
            f"capture {generation}",
            self._run_title(result),
            result.output,
            caveat=result.output_caveat,
            path=self._run_path(result),
        )
        self.compile_finished.emit(generation)
        self.result_changed.emit(result)
        # the first kernel's stages load in the next turn of the event loop, so the
        # table and the stages are two short pauses of the UI thread rather than one
        QTimer.singleShot(0, lambda: self._settle(generation, result, first))

    def _run_title(self, result: CompileResult) -> str:
        """The Output pane's title of the run behind `result`: a capture here, or what
        the file printed where a bundle or record was made (nothing ran here: a bundle's
        output was titled a capture of a file in another folder, "a run of X, not of X")."""
        name = os.path.basename(result.file)
        if self._recorded_in:
            return f"{name} as recorded in {self._recorded_in} (printed there, nothing ran here)"
        cached = " (cached: printed when first run)" if result.from_cache else ""
        return f"capture{cached} of {name} for {result.target.spec}"

    def _run_path(self, result: CompileResult) -> str:
        """The file whose run it is: a bundle's or record's output belongs to the document
        it opened as (its own file name is the folder it was made in, elsewhere)."""
        return (self.path or result.file) if self._recorded_in else result.file

    def _partial(self, generation: int, payload: tuple[CompileResult, list[SourceMap]]) -> None:
        """The kernels compiled so far, shown while the compile goes on (the first config's
        stages before the other configs are compiled: issue 51). Shown only where it holds
        the kernel looked at (a rebuild of the same file) or nothing of the file is on
        screen; it settles nothing (result_settled, compile_finished): the finished result
        replaces it."""
        if generation != self.generation:
            return
        result, maps = payload
        same_file = self.result is not None and self.result.file == result.file
        first = self._paired_index(result) if same_file and self.kernel is not None else 0
        if first is None:
            return  # the kernel looked at is not compiled yet: it stays until it is
        result = self._with_captured_passes(result)
        self._partial_generation, self._failed_note = generation, ""
        self.build_text, self.line_shift = self.requested_text, LineShift()
        if same_file and self.result is not result and self.result.build != result.build:
            self.previous_result = self.result
        self.result, self._source_maps = result, maps
        self.awaiting_derived = True  # SASS and ELF follow the finished result
        self.result_changed.emit(result)

        def show() -> None:
            if generation == self.generation and self.result is result:
                self.select_kernel(first)

        QTimer.singleShot(0, show)

    def _derived(self, generation: int, payload: tuple[CompileResult, list[SourceMap]]) -> None:
        """The derived stages of this generation's kernels, into the result on screen (which
        may hold more kernels: one the Arguments form merged in) by display name and
        specialization; the selected kernel is shown again with them."""
        if generation != self.generation or self.result is None:
            return
        if self._settled_generation != generation:
            self._pending_derived = (generation, payload)  # applied once the result settles
            return
        self.awaiting_derived = False
        result, maps = payload
        if result.build is not None and self.result.build is not None and result.build != self.result.build:
            return  # the last good build kept on screen is another build's
        fresh = {(k.display_name, repr(k.specialization)): (k, m) for k, m in zip(result.kernels, maps)}
        kernels, smaps = list(self.result.kernels), list(self._source_maps)
        for i, k in enumerate(kernels):
            got = fresh.get((k.display_name, repr(k.specialization)))
            if got is None or got[0].stages.keys() <= k.stages.keys():
                continue
            kernels[i] = replace(k, stages={**got[0].stages, **k.stages})
            if i < len(smaps):
                smaps[i] = got[1]
        self.result = replace(self.result, kernels=tuple(kernels))
        self._source_maps = smaps
        self.stages_derived.emit(self.result)
        if 0 <= self.kernel_index < len(kernels):
            self.select_kernel(self.kernel_index)  # its stages, map and linked lines again

    def _with_captured_passes(self, result: CompileResult) -> CompileResult:
        """A rebuild of the same build (a save that changed nothing kx compiles, a cached
        result) keeps the passes captured on screen: they are that build's (a save dropped
        them)."""
        old = self.result
        if old is None or result.build is None or old.build != result.build:
            return result
        # compared, not hashed: a specialization holds dicts
        captured = [((k.display_name, k.specialization), k.passes) for k in old.kernels if k.passes]
        if not captured:
            return result

        def passes_of(k):
            key = (k.display_name, k.specialization)
            return next((passes for their, passes in captured if their == key), ())

        kernels = tuple(k if k.passes else replace(k, passes=passes_of(k)) for k in result.kernels)
        return replace(result, kernels=kernels)

    def _same_kernel_index(self, result: CompileResult) -> int:
        """The record of a rebuild of the same file that is the one selected now (same
        kernel, config and specialization; or the config whose label the edit changed:
        compare/rebuild.py), so an edit or F5 keeps the config looked at; else the first."""
        if self.kernel is None or self.result is None or self.result.file != result.file:
            return 0
        paired = self._paired_index(result)
        return 0 if paired is None else paired

    def _paired_index(self, result: CompileResult) -> int | None:
        """The record of `result` that is the rebuild of the kernel selected now, if any."""
        now = next((i for i, k in enumerate(self.result.kernels) if k is self.kernel), self.kernel_index)
        pairs = pair_rebuild(self.result.kernels, result.kernels)
        return next((p.after for p in pairs if p.before == now and p.after is not None), None)

    def _read_open_file(self) -> str | None:
        try:
            with open(self.path or "", encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return None

    def build_line(self, editor_line: int) -> int | None:
        """The build's source line for a line of the editor's text (None: edited since)."""
        return self.line_shift.old_line(editor_line)

    def editor_line(self, build_line: int) -> int | None:
        """The editor's line for a source line of the build on screen (None: edited since)."""
        return self.line_shift.new_line(build_line)

    def _last_good(self, result: CompileResult) -> CompileResult | None:
        """The result on screen with `result`'s diagnostics and output, when `result`
        compiled nothing (a fatal diagnostic) and the one on screen, of the same file and
        target, did; else None."""
        old = self.result
        if (
            old is None
            or old.file != result.file
            or old.target != result.target
            or not any(d.fatal for d in result.diagnostics)
            or any(k.status == "compiled" for k in result.kernels)
            or not any(k.status == "compiled" for k in old.kernels)
        ):
            return None
        return replace(
            old, diagnostics=result.diagnostics, output=result.output, from_cache=result.from_cache
        )

    def _settle(self, generation: int, result: CompileResult, first: int = 0) -> None:
        if generation != self.generation or self.result is not result:
            return
        self.select_kernel(first if result.kernels else -1)
        self._settled_generation = generation
        self.result_settled.emit(result)
        pending, self._pending_derived = self._pending_derived, None
        if pending is not None and pending[0] == generation:
            self._derived(*pending)  # came before the panes had the text stages

    def wait(self, timeout_ms: int = 600_000) -> None:
        """Block until jobs end (tests and shutdown only; the UI never calls this)."""
        for job in [self.job, *self._old_jobs]:
            if job is not None:
                job.wait(timeout_ms)
        self.pass_captures.wait(timeout_ms)

    def shutdown(self) -> None:
        self.cancel()
        self.wait(10_000)

    # ------------------------------------------------------------ selection and links

    def select_kernel(self, index: int) -> None:
        kernels = self.result.kernels if self.result else ()
        if not 0 <= index < len(kernels):
            self.kernel, self.kernel_index, self.source_map = None, -1, None
            self.kernel_changed.emit(None, None)
            return
        self.kernel_index = index
        self.kernel = self._record_kernel(index, kernels[index])
        if index < len(self._source_maps) and self._source_maps[index].source_file == self.path:
            self.source_map = self._source_maps[index]
        else:
            self.source_map = source_map_of(self.kernel, self.path or "")
        self.kernel_changed.emit(self.kernel, self.source_map)
        if self.selected_line is not None:  # the selection survives the change of kernel
            self.select_source_line(self.selected_line)

    def set_display_filters(self, filters: DisplayFilters) -> None:
        self.display_filters = filters
        self.display_filters_changed.emit(filters)

    def select_source_line(self, line: int) -> dict[str, tuple[int, ...]]:
        """Link a source line to the IR lines it became; returns stage -> lines."""
        self.selected_line = line
        self.link_origin = None
        built = self.build_line(line)
        links = self.source_map.ir_lines(built) if self.source_map and built else {}
        self.link_changed.emit(line, links)
        return links

    def request_source_layout(self, text: str, line: int, col: int | None) -> bool:
        """A click on a layout written in the source (a Gluon file's `gl.BlockedLayout(...)`)
        asks the Layout pane to draw it, at the shape of the tensors that carry it in the
        compiled TTGIR; False when the click was on none."""
        from kx_core.layout.source_layouts import call_at, find_layout_calls
        from kx_core.records.languages import language_of

        if not language_of(text, self.path or "").source_layouts:
            return False
        call = call_at(find_layout_calls(text), line, col)
        if call is None:
            return False
        where = os.path.basename(self.path or "the source")
        if not self.running:
            # the layout's expression is the file's own code, evaluated by kx: not for a
            # file kx was told not to run
            self.view_requested.emit("source_refused", (where, call.line))
            return True
        kernels = list(self.result.kernels) if self.result else []
        # the kernel the call is written in first, then the selected one, then the rest
        first = [k for k in kernels if k.name == call.scope]
        chosen = self.kernel if self.kernel in kernels else None
        ordered = first + [k for k in ([chosen] if chosen else []) + kernels if k not in first]
        seen, ttgirs = set(), []
        for k in ordered:
            if id(k) not in seen and k.stages.get("ttgir"):
                seen.add(id(k))
                ttgirs.append((k.display_name, k.stages["ttgir"]))
        owner = first[0] if first else chosen
        constexprs = dict(owner.launch.constexprs) if owner is not None and owner.launch else {}
        if owner is not None and owner.metadata is not None:
            from kx_core.layout.source_layouts import NUM_WARPS

            constexprs[NUM_WARPS] = owner.metadata.num_warps  # what gl.num_warps() is
        self.view_requested.emit("source", (text, line, col, constexprs, ttgirs, where))
        return True

    def request_layout(self, attr: str, shape: list[int]) -> None:
        """Ask for a layout shown at a shape (the Layout pane answers)."""
        self.view_requested.emit("layout", (attr, list(shape)))

    def select_ir_line(self, stage: str, line: int) -> tuple[int | None, dict[str, tuple[int, ...]]]:
        """Link an IR line to its source line and its counterparts in every stage."""
        if self.source_map is None:
            return None, {}
        sources = self.source_map.source_lines(stage, line)
        links = self.source_map.counterparts(stage, line)
        if not links:
            links = {stage: (line,)}
        source = self.editor_line(sources[0]) if sources else None
        if source is not None:
            self.selected_line = source
        # the line clicked: its own view is not scrolled away from it to the links' main line
        self.link_origin = (stage, line)
        self.link_changed.emit(source, links)
        if stage == "ttgir" and self.kernel is not None:
            from kx_core.ir.ttgir_lines import view_of_line

            view = view_of_line(self.kernel.stages.get("ttgir", "").splitlines(), line)
            if view is not None:
                self.view_requested.emit(view.kind, tuple(view.args))
        return source, links

    def diagnostics_for_open_file(self):
        if not self.result or not self.path:
            return []
        return [d for d in self.result.diagnostics if d.file and same_source(d.file, self.path)]
