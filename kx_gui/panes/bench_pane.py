"""Bench pane: time the open file's launches on the local GPU, check its kernels against
their references, and keep a tree of trials of the file with their speedups.

Runs go to a worker process (kx_core.bench.bench.MeasureJob) polled from a timer, so
the window never waits and Stop kills the worker. A finished timing run feeds the
Roofline and Autotune panes (Session.measurements_changed)."""

from __future__ import annotations

import os

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kx_core.bench.bench import MeasureJob, has_gpu
from kx_core.bench.check import CheckReport
from kx_core.bench.cpu_result import CpuBenchResult
from kx_core.bench.kb_tasks import DISTS
from kx_core.bench.requests import (
    BenchRequest,
    CheckRequest,
    CpuBenchRequest,
    OverrideRequest,
    ProfileRequest,
)
from kx_core.bench.run import BenchResult
from kx_core.bench.trials import TrialError, TrialStore, save_measured, trials_root
from kx_core.cpu.targets import CPP_SOURCES
from kx_gui.measured import Measured
from kx_gui.panes.base import Pane
from kx_gui.widgets.cpu_bench_view import CpuBenchView
from kx_gui.widgets.hot_lines_view import HotLinesView
from kx_gui.widgets.tables import row_table

TIMING_COLUMNS = ("kernel", "config", "grid", "median us", "IQR us", "n", "first call ms", "picked")
POLL_MS = 100


class BenchPane(Pane):
    title = "Bench"
    shows_build = False
    name = "bench"
    listens = {"document_opened": "_file_changed", "result_settled": "_held_of_another_build"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.gpu = has_gpu()
        self.run_button = QPushButton("Time on GPU")
        self.run_button.setEnabled(self.gpu)
        if not self.gpu:
            self.run_button.setToolTip(
                "no CUDA GPU here: nothing can be timed; Check runs in Triton's interpreter"
            )
        self.status = QLabel(
            "no GPU: timing is off; correctness runs in Triton's interpreter" if not self.gpu else ""
        )
        self.status.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._timings_tab(), "Timings")
        self.tabs.addTab(self._correctness_tab(), "Correctness")
        self.tabs.addTab(self._trials_tab(), "Trials")
        self.hot_view = HotLinesView()
        self.hot_tab = self.tabs.addTab(self.hot_view, "Hot lines")
        self.hot_view.line_chosen.connect(self._hot_line_chosen)
        self.cpu_view = CpuBenchView()
        self.cpu_tab = self.tabs.addTab(self.cpu_view, "C++ kernel")
        self.tabs.setTabVisible(self.cpu_tab, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._button_bar())
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)
        if not self.gpu:
            self.tabs.setCurrentIndex(1)  # Correctness: what runs without a GPU

        self.job: MeasureJob | None = None
        self._run_build = None  # the build the run in flight measures (Session.build_on_disk)
        self.bench_result: BenchResult | None = None
        self.check_report: CheckReport | None = None
        self.cpu_result: CpuBenchResult | None = None
        self.override_result = None  # the latest edited-stage run (kx_core.bench.override)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)
        self.run_button.clicked.connect(self.run_timing)
        self.check_button.clicked.connect(self.run_check)
        self.profile_button.clicked.connect(self.run_profile)
        self.edit_button.clicked.connect(self.edit_stage)
        self.stop_button.clicked.connect(self.stop)
        self.save_trial_button.clicked.connect(self.save_trial)
        self.timing_table.itemSelectionChanged.connect(self._show_distribution)

    def _button_bar(self) -> QHBoxLayout:
        self.all_configs = QCheckBox("all autotune configs")
        self.check_button = QPushButton("Check correctness")
        self.profile_button = QPushButton("Profile")
        self.edit_button = QPushButton("Edit a stage…")
        for button, what in (
            (self.profile_button, "Profile"),
            (self.edit_button, "Editing a stage and running it"),
        ):
            button.setEnabled(self.gpu)
            button.setToolTip(
                "sample the kernels' instructions on the GPU: hot lines and stall reasons at every stage"
                if button is self.profile_button
                else "edit the selected kernel's TTIR, TTGIR, LLVM IR or PTX, run it, check it, time it"
            )
            if not self.gpu:
                button.setToolTip(f"{what} needs an NVIDIA GPU (CUPTI), and there is none here")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        bar = QHBoxLayout()
        for w in (
            self.run_button,
            self.all_configs,
            self.check_button,
            self.profile_button,
            self.edit_button,
            self.stop_button,
        ):
            bar.addWidget(w)
        bar.addStretch(1)
        return bar

    def _timings_tab(self) -> QWidget:
        """The timings table, and the distribution of the selected row's samples."""
        self.timing_table = row_table(TIMING_COLUMNS, 1)
        self.hist = pg.PlotWidget(background="w")
        self.hist.setLabel("bottom", "time per call (us)")
        self.hist.setLabel("left", "calls")
        timings = QSplitter(Qt.Orientation.Vertical)
        timings.addWidget(self.timing_table)
        timings.addWidget(self.hist)
        # without a GPU nothing is timed: a sentence in place of empty axes (a first user
        # read the blank plot as a broken pane)
        self.no_gpu_note = QLabel(
            "No CUDA GPU on this machine, so there is nothing to time here. "
            "The Correctness tab runs the kernel in Triton's interpreter; "
            "the Roofline pane models its time on the target GPU."
        )
        self.no_gpu_note.setWordWrap(True)
        timings.addWidget(self.no_gpu_note)
        self._timed(self.gpu)
        return timings

    def _timed(self, shown: bool) -> None:
        """The distribution's axes once there are timings to draw (a GPU, or a result
        measured elsewhere); the sentence saying why not before."""
        self.hist.setVisible(shown)
        self.no_gpu_note.setVisible(not shown)

    def _correctness_tab(self) -> QWidget:
        """Correctness per input distribution."""
        self.check_table = QTableWidget(0, 1 + len(DISTS) + 1)
        self.check_table.setHorizontalHeaderLabels(["check", *DISTS, "edge"])
        self.check_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.check_info = QLabel()
        self.check_info.setWordWrap(True)
        correctness = QWidget()
        cl = QVBoxLayout(correctness)
        cl.addWidget(self.check_info)
        cl.addWidget(self.check_table, 1)
        return correctness

    def _trials_tab(self) -> QWidget:
        self.strategy = QLineEdit()
        self.strategy.setPlaceholderText("what this version tries (e.g. BLOCK 2048)")
        self.save_trial_button = QPushButton("Save as trial")
        self.trial_tree = QTreeWidget()
        self.trial_tree.setHeaderLabels(["trial", "strategy", "correct", "kernel us", "speedup", "status"])
        self.trial_info = QLabel()
        trials = QWidget()
        tl = QVBoxLayout(trials)
        tb = QHBoxLayout()
        tb.addWidget(self.strategy, 1)
        tb.addWidget(self.save_trial_button)
        tl.addLayout(tb)
        tl.addWidget(self.trial_info)
        tl.addWidget(self.trial_tree, 1)
        return trials

    # ------------------------------------------------------------ runs

    def _start(self, job: MeasureJob) -> bool:
        if self.session.path is None:
            self.status.setText("open a kernel file first")
            return False
        if self.job is not None and not self.job.done():
            self.status.setText("a run is in progress: Stop it first")
            return False
        # what the run measures: the file as it is on disk now (its figures are shown
        # on that build only: a later edit and compile shows them as another build's)
        self._run_build = self.session.build_on_disk()
        try:
            self.job = job.start()
        except Exception as e:  # noqa: BLE001 - NoGPU and friends become a message
            self.status.setText(str(e))
            return False
        self.stop_button.setEnabled(True)
        self._timer.start()
        self._poll()
        return True

    def is_cpp(self) -> bool:
        return (self.session.path or "").endswith(CPP_SOURCES)

    def run_timing(self) -> bool:
        if self.is_cpp():
            options = self.cpu_view.options()
            if not options["baseline"]:
                self.status.setText("a C++ kernel is timed against a PyTorch baseline: choose its .py file")
                return False
            self.tabs.setCurrentIndex(self.cpu_tab)
            return self._start(MeasureJob(CpuBenchRequest(**options), self.session.path))
        if not self.gpu:
            self.status.setText(
                "no CUDA GPU on this machine: nothing can be timed (Check correctness still runs)"
            )
            return False
        return self._start(
            MeasureJob(BenchRequest(all_configs=self.all_configs.isChecked()), self.session.path or "")
        )

    def run_check(self) -> bool:
        return self._start(MeasureJob(CheckRequest(), self.session.path or ""))

    def run_profile(self) -> bool:
        """Sample the file's kernels (kx_core.bench.profile); hot lines when it ends."""
        return self._start(MeasureJob(ProfileRequest(), self.session.path or ""))

    def edit_stage(self, stage: str | None = None, text: str | None = None) -> bool:
        """Edit the selected kernel at one stage (a dialog, unless the text is given) and
        run it against the original (kx_core.bench.override)."""
        import tempfile

        kernel = self.session.kernel
        if kernel is None or self.session.path is None:
            self.status.setText("select a compiled kernel first")
            return False
        if text is None:
            from kx_gui.widgets.stage_edit_dialog import StageEditDialog

            dialog = StageEditDialog(kernel, self)
            if not dialog.stages:
                self.status.setText(f"{kernel.name}: no TTIR, TTGIR, LLVM IR or PTX to edit")
                return False
            if not dialog.exec():
                return False
            stage, text = dialog.edited()
        folder = tempfile.mkdtemp(prefix="kx-edit-")
        path = os.path.join(folder, f"{kernel.name}.{stage}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return self._start(
            MeasureJob(OverrideRequest(stage_file=path, kernel=kernel.name), self.session.path)
        )

    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def wait(self, timeout_s: float = 600.0) -> None:
        """Block until the run in flight ends and show it (tests)."""
        if self.job is not None and self.job.process is not None:
            self.job.process.wait(timeout=timeout_s)
            self._poll()

    def _poll(self) -> None:
        job = self.job
        if job is None:
            return
        what = {
            "bench": "timing",
            "cpu": "building and timing",
            "profile": "profiling",
            "override": "running the edited stage of",
        }.get(job.kind, f"checking ({job.mode})")
        # what the file prints goes to the Output pane, not the status line (a torch log
        # line stood there during a C++ bench)
        title = (
            f"{job.kind if job.kind != 'check' else f'check ({job.mode})'} of {os.path.basename(job.path)}"
        )
        key = f"{job.kind} {id(job)}"
        if not job.done():
            self.session.outputs.put(key, title, job.output_tail(), finished=False, path=job.path)
            self.status.setText(
                f"{what} {os.path.basename(job.path)}: {job.elapsed:.0f} s (its output: Output pane)"
            )
            return
        self._timer.stop()
        self.stop_button.setEnabled(False)
        self.session.outputs.put(key, title, job.output_tail(), path=job.path)
        result = job.result()
        self.job = None
        if job.kind == "profile":
            self.show_profile(result)
        elif job.kind == "override":
            self.show_override(result)
        elif isinstance(result, CpuBenchResult):
            self.show_cpu(result)
        elif isinstance(result, BenchResult):
            self.show_bench(result)
        else:
            self.show_check(result)

    # ------------------------------------------------------------ results

    def show_bench(self, result: BenchResult) -> None:
        self.bench_result = result
        self._timed(True)
        self.tabs.setCurrentIndex(0)
        self.timing_table.setRowCount(len(result.timings))
        for r, t in enumerate(result.timings):
            tm = t.timing
            cells = [
                t.kernel,
                t.config or "",
                "x".join(map(str, t.grid)),
                f"{tm.median_ms * 1e3:.2f}",
                f"{tm.iqr_ms * 1e3:.2f}",
                str(tm.n),
                f"{tm.first_call_ms:.1f}" if tm.first_call_ms else "-",
                "*" if t.chosen and t.config else "",
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.timing_table.setItem(r, c, item)
        problems = "; ".join(d.short() for d in result.diagnostics)
        self.status.setText(
            f"{len(result.timings)} launch(es) timed on {result.device or 'the GPU'}"
            + (", L2 flushed between calls" if result.settings.get("flush_l2") else "")
            + (f" — {problems}" if problems else "")
        )
        if result.timings:
            self.timing_table.selectRow(0)
            self._show_distribution()
        self.session.measurements_changed.emit(Measured(result.seconds_by_name(), self._run_build))

    def show_profile(self, result, build=None) -> None:
        """Hot lines: in the table here, and as gutter bars in the Source and Stages panes.
        `build`: the build the profile is of (default: the run's; a Proton profile opened
        from a file is of the build on screen, where it shares kernels with it)."""
        self.session.profiles.set(result, build or self._run_build)
        self.raise_requested.emit()
        self.hot_view.show_profile(result, self.session.profiles.hot_lines, self.session.path or "")
        self.tabs.setCurrentIndex(self.hot_tab)
        shown = {k.name for k in (self.session.result.kernels if self.session.result else ())}
        hottest = max(
            (
                (h.samples, line)
                for name, (hot, _) in self.session.profiles.hot_lines.items()
                if name in shown  # a profile's line of a kernel on screen (a file's may be another's)
                for line, h in hot.by_stage["source"].items()
            ),
            default=None,
        )
        if hottest:  # the hottest source line, linked: every stage scrolls to its code
            self.session.select_source_line(hottest[1])
        problems = "; ".join(d.short() for d in result.diagnostics)
        self.status.setText(
            f"profiled {len(result.kernels)} kernel(s) on {result.device or 'the GPU'}"
            + (f" — {problems}" if problems else "")
        )

    def _hot_line_chosen(self, stage: str, line: int) -> None:
        if stage == "source":
            self.session.select_source_line(line)
        else:
            self.session.select_ir_line(stage, line)

    def show_override(self, r) -> None:
        """An edited stage against the original: both rows in the timings, the verdict above."""
        self.override_result = r
        self._timed(True)
        self.tabs.setCurrentIndex(0)
        problems = "; ".join(d.short() for d in r.diagnostics)
        if r.original is None or r.edited is None:
            self.status.setText(f"edited {r.stage or 'stage'}: {problems or 'no result'}")
            return
        rows = [(f"{r.kernel} (original)", r.original), (f"{r.kernel} (edited {r.stage})", r.edited)]
        self.timing_table.setRowCount(len(rows))
        for i, (what, t) in enumerate(rows):
            cells = [what, "", "", f"{t.median_us:.2f}", f"{t.iqr_us:.2f}", str(t.rounds), "-", ""]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.timing_table.setItem(i, c, item)
        verdict = "same outputs" if r.correct else "DIFFERENT outputs: " + "; ".join(r.mismatches[:2])
        self.status.setText(
            f"edited {r.stage} of {r.kernel}: {verdict}; speed-up {r.speedup:.3f}x over the original"
            f" ({r.edited.rounds} alternating rounds on {r.device})" + (f" — {problems}" if problems else "")
        )

    def show_cpu(self, result: CpuBenchResult) -> None:
        self.cpu_result = result
        self.tabs.setCurrentIndex(self.cpu_tab)
        self.status.setText(self.cpu_view.show_result(result))

    def _show_distribution(self) -> None:
        self.hist.clear()
        result = self.bench_result
        rows = self.timing_table.selectionModel().selectedRows() if self.timing_table.selectionModel() else []
        if result is None or not rows:
            return
        t = result.timings[rows[0].row()]
        samples = np.asarray(t.timing.samples_ms) * 1e3
        if samples.size == 0:
            return
        # draw up to the 99th percentile: a few slow calls (clock changes, other work)
        # would otherwise squeeze the distribution into one bar; say how many are left out
        hi = float(np.percentile(samples, 99))
        shown = samples[samples <= hi]
        counts, edges = np.histogram(shown, bins=min(60, max(5, shown.size // 10)))
        self.hist.plot(
            edges, counts, stepMode="center", fillLevel=0, brush=(30, 136, 229, 120), pen="#1e88e5"
        )
        left_out = samples.size - shown.size
        self.hist.setTitle(
            f"{t.kernel}{'[' + t.config + ']' if t.config else ''}: {samples.size} calls"
            + (f", {left_out} slower than p99 ({hi:.1f} us) not drawn" if left_out else "")
        )
        med = t.timing.median_ms * 1e3
        self.hist.addItem(
            pg.InfiniteLine(med, angle=90, pen=pg.mkPen("#e53935", width=2), label=f"median {med:.2f} us")
        )

    def show_check(self, report: CheckReport) -> None:
        self.check_report = report
        self.tabs.setCurrentIndex(1)
        if report.error:
            self.check_info.setText(report.error)
            self.status.setText(f"check: {report.error}")
            self.check_table.setRowCount(0)
            return
        names = list(dict.fromkeys(r.check for r in report.results))
        self.check_table.setRowCount(len(names))
        for row, name in enumerate(names):
            self.check_table.setItem(row, 0, QTableWidgetItem(name))
            for col, dist in enumerate((*DISTS, "edge"), start=1):
                rs = [r for r in report.results if r.check == name and r.dist == dist]
                passed = sum(r.ok for r in rs)
                item = QTableWidgetItem(f"{passed}/{len(rs)}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(pg.mkColor("#c8e6c9" if passed == len(rs) else "#ffcdd2"))
                failing = next((r for r in rs if not r.ok), None)
                if failing:
                    item.setToolTip(f"size {failing.size}: {failing.reason}")
                self.check_table.setItem(row, col, item)
        self.check_table.resizeColumnsToContents()
        self.check_info.setText(
            f"run on {report.mode}; sizes {sorted({r.size for r in report.results})}; "
            f"tolerance: {report.results[-1].rationale if report.results else '-'}"
        )
        self.status.setText(
            f"check on {report.mode}: {'all pass' if report.ok else 'failures (red cells; hover for the first)'}"
        )

    # ------------------------------------------------------------ trials

    def store(self) -> TrialStore | None:
        """The open file's trial tree: a Triton file's own, a C++ kernel's folder's (the
        folder is what a C++ trial saves: kernel units, dispatcher and binding)."""
        path = self.session.path
        if not path:
            return None
        if self.is_cpp():
            folder = os.path.dirname(os.path.abspath(path))
            store = TrialStore(trials_root(), os.path.basename(folder))
            store.init(self.cpu_view.options()["baseline"] or path)
        else:
            store = TrialStore(trials_root(), os.path.splitext(os.path.basename(path))[0])
            store.init(path)
        return store

    def save_trial(self) -> str | None:
        """Save the open file (as last saved; a C++ kernel's folder) as a trial, with the
        latest timing and check."""
        store = self.store()
        if store is None:
            self.trial_info.setText("open a kernel file first")
            return None
        kernel_us = baseline_us = correctness = None
        source = self.session.path
        if self.is_cpp():
            source = os.path.dirname(os.path.abspath(source))
            r = self.cpu_result
            if r is not None and r.kernel is not None:
                kernel_us, baseline_us = r.kernel.median_us, r.baseline.median_us
                correctness = "pass" if r.correct else "fail"
        elif self.override_result is not None and self.override_result.edited is not None:
            r = self.override_result
            source = r.stage_file
            kernel_us, baseline_us = r.edited.median_us, r.original.median_us
            correctness = "pass" if r.correct else "fail"
        else:
            if self.bench_result and self.bench_result.timings:
                picked = [t for t in self.bench_result.timings if t.chosen] or list(self.bench_result.timings)
                kernel_us = sum(t.timing.median_ms for t in picked) * 1e3
            if self.check_report is not None:
                correctness = "pass" if self.check_report.ok else "fail"
        try:
            tid = save_measured(
                store,
                source,
                self.strategy.text(),
                correctness=correctness,
                kernel_us=kernel_us,
                baseline_us=baseline_us,
                parent=self._selected_trial(),
            )
        except TrialError as e:
            self.trial_info.setText(str(e))
            return None
        self.render_trials()
        return tid

    def _selected_trial(self) -> str | None:
        item = self.trial_tree.currentItem()
        return item.text(0) if item is not None else None

    def render_trials(self) -> None:
        self.trial_tree.clear()
        store = self.store()
        if store is None:
            return
        items: dict[str, QTreeWidgetItem] = {}
        for _depth, tid, t in store.tree():
            cells = [
                tid,
                t["strategy"],
                t["correctness"] or "-",
                f"{t['kernel_us']:.2f}" if t["kernel_us"] else "-",
                f"{t['speedup']:.2f}x" if t["speedup"] else "-",
                t["status"],
            ]
            parent = items.get(t["parent"])
            item = QTreeWidgetItem(parent if parent is not None else self.trial_tree, cells)
            items[tid] = item
        self.trial_tree.expandAll()
        best = store.best()
        self.trial_info.setText(
            f"{store.dir}: {len(items)} trial(s)"
            + (f", best {best[0]} at {best[1]['speedup']:.2f}x" if best else "")
        )

    def catch_up(self) -> None:
        """Built after a file was opened: set up for it (what document_opened does)."""
        if self.session.path:
            self._file_changed()
        self.schedule()

    def _held_of_another_build(self) -> None:
        """A compile of another build came (the file changed since the run): the timings
        and hot lines here are that run's, and the status says so."""
        s = self.session
        notes = [
            s.held_note(s.measured.build, "the timings are") if s.measured else "",
            s.profiles.note,
        ]
        notes = [n for n in notes if n]
        if notes and not (self.job is not None and not self.job.done()):
            self.status.setText("; ".join(notes) + " (run again to measure this one)")

    def _file_changed(self) -> None:
        self.bench_result = self.check_report = self.cpu_result = self.override_result = None
        self.hot_view.clear()
        cpp = self.is_cpp()
        self.tabs.setTabVisible(self.cpu_tab, cpp)
        self.run_button.setText("Build and time on CPU" if cpp else "Time on GPU")
        self.run_button.setEnabled(cpp or self.gpu)
        self.check_button.setEnabled(not cpp)  # a C++ kernel's check is part of its timing run
        self.profile_button.setEnabled(self.gpu and not cpp)
        self.edit_button.setEnabled(self.gpu and not cpp)
        self.all_configs.setVisible(not cpp)
        if cpp:
            self.cpu_view.set_file(self.session.path)
            self.tabs.setCurrentIndex(self.cpu_tab)
            self.status.setText(
                "C++ kernel: built as a torch extension and timed against its PyTorch baseline"
            )
        else:
            self.status.setText(
                "" if self.gpu else "no GPU: timing is off; correctness runs in Triton's interpreter"
            )
        self.timing_table.setRowCount(0)
        self.check_table.setRowCount(0)
        self.hist.clear()
        self.render_trials()
