"""The main window: the kernels of the open file, and one tab per compilation stage.

A first window for the foundation issue; the dockable panes of the desktop-app issue
replace its central widget.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontDatabase, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
)

from kx_core.compile import CompiledKernel, CompileRequest, CompileResult
from kx_core.compile.stages import stages_for
from kx_core.compile.target import parse_target
from kx_gui.compile_job import CompileJob


def monospace_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


class MainWindow(QMainWindow):
    """Open a file, compile it in the background, browse its kernels' stages."""

    result_ready = Signal(object)  # CompileResult, after the window has shown it

    def __init__(self, target: str = "default") -> None:
        super().__init__()
        self.setWindowTitle("kx — Kernel eXplorer")
        self.resize(1280, 800)
        self.target = target
        self.result: CompileResult | None = None
        self.job: CompileJob | None = None
        self.path: str | None = None

        self.kernel_list = QListWidget()
        self.kernel_list.currentRowChanged.connect(self._show_kernel)
        self.stage_tabs = QTabWidget()
        self.source_view = self._text_view()
        self.stage_tabs.addTab(self.source_view, "Source")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.kernel_list)
        splitter.addWidget(self.stage_tabs)
        splitter.setSizes([440, 840])
        self.setCentralWidget(splitter)

        self.status = QLabel("no file")
        self.statusBar().addWidget(self.status, 1)
        self._build_menu()

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open…", self)
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._choose_file)
        file_menu.addAction(open_action)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

    def _text_view(self) -> QPlainTextEdit:
        view = QPlainTextEdit()
        view.setReadOnly(True)
        view.setFont(monospace_font())
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        return view

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a Triton kernel file", "", "Python (*.py)")
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> None:
        """Show the file and compile it in the background."""
        self.path = os.path.abspath(path)
        with open(self.path, encoding="utf-8") as f:
            self.source_view.setPlainText(f.read())
        self.setWindowTitle(f"kx — {os.path.basename(self.path)}")
        if self.job is not None:
            self.job.cancel()
        self.status.setText(f"compiling {os.path.basename(self.path)} for {self.target}…")
        self.job = CompileJob(CompileRequest(self.path, target=self.target), self)
        self.job.progress.connect(self.status.setText)
        self.job.finished_result.connect(self.show_result)
        self.job.failed.connect(lambda m: self.status.setText(f"failed: {m}"))
        self.job.start()

    def show_result(self, result: CompileResult) -> None:
        self.result = result
        self.kernel_list.clear()
        for k in result.kernels:
            item = QListWidgetItem(self._kernel_label(k))
            item.setToolTip(k.message or k.status)
            self.kernel_list.addItem(item)
        fatal = [d for d in result.diagnostics if d.fatal]
        summary = f"{len(result.kernels)} kernels for {result.target.spec}, triton {result.triton_version}"
        summary += f", {result.wall_time_s:.1f} s" + (" (cached)" if result.from_cache else "")
        if result.diagnostics:
            d = (fatal or list(result.diagnostics))[0]
            summary += f" — {d.kind}: line {d.line}: {d.message}" if d.line else f" — {d.kind}: {d.message}"
        self.status.setText(summary)
        if result.kernels:
            self.kernel_list.setCurrentRow(0)
        self.result_ready.emit(result)

    @staticmethod
    def _kernel_label(k: CompiledKernel) -> str:
        md = k.metadata
        if md is None:
            return f"{k.display_name}  ({k.status})"
        return f"{k.display_name}\n  {md.num_warps} warps, {md.num_stages} stages, {md.registers} regs, {md.shared} B shared"

    def _show_kernel(self, row: int) -> None:
        while self.stage_tabs.count() > 1:
            self.stage_tabs.removeTab(1)
        if self.result is None or row < 0:
            return
        kernel = self.result.kernels[row]
        for stage in stages_for(kernel.target):
            view = self._text_view()
            view.setPlainText(kernel.stages.get(stage.name, f"({stage.display_name}: not produced)"))
            self.stage_tabs.addTab(view, stage.display_name)

    def select_stage(self, name: str) -> bool:
        """Bring the tab of a stage (by StageDescriptor name or display name) to front."""
        target = parse_target(self.target) if self.result is None else self.result.target
        for i, stage in enumerate(stages_for(target), start=1):
            if name.lower() in (stage.name, stage.display_name.lower()) and i < self.stage_tabs.count():
                self.stage_tabs.setCurrentIndex(i)
                return True
        return False

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.job is not None and self.job.isRunning():
            self.job.cancel()
            self.job.wait(5000)
        super().closeEvent(event)
