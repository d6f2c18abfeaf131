"""Playground pane: an `.mlir` editor, triton-opt passes picked by flag, the IR before and
after them side by side, and the file's `// RUN:` lines run as lit would, each CHECK line
marked in the editor (green: matched; red: the one that failed, with why). Minimise
shrinks a failing input (T4's ddmin) into the editor.

Passes run in a worker process on a background thread (kx_core.lab.playground), so the
window never waits and a pass that crashes costs a message."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from kx_core.base import service
from kx_core.base.data import data_path
from kx_core.ir.lexers import MlirLexer
from kx_core.lab.filecheck import checks_of
from kx_core.lab.lit import RunResult, minimize, parse_pipeline, run_file_text, run_lines
from kx_core.lab.playground import PlaygroundResult, available_flags, run_passes
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView
from kx_gui.widgets.diff_view import DiffView

LIT = str(data_path("lit"))
PASSED, FAILED = QColor("#2e7d32"), QColor("#c62828")


class PlaygroundPane(Pane):
    title = "Playground"
    shows_build = False
    name = "playground"

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.editor = CodeView(read_only=False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.diff = DiffView(
            empty_titles=("input, as the passes get it", "output of the passes (Run passes)")
        )
        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("input (editable)"))
        ll.addWidget(self.editor)
        split.addWidget(left)
        split.addWidget(self.diff)
        split.setSizes([450, 650])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._button_bar())
        layout.addLayout(self._flag_row())
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        self.path: str | None = None
        self.result: PlaygroundResult | None = None
        self.lit_results: list[RunResult] = []
        self.marks: dict[int, tuple[QColor, str]] = {}
        self.open_button.clicked.connect(self._open)
        self.add_button.clicked.connect(self._add_flag)
        self.run_button.clicked.connect(self.run_passes)
        self.lit_button.clicked.connect(self.run_lit)
        self.minimize_button.clicked.connect(self.minimize)
        self.load(os.path.join(LIT, "coalesce.mlir"))

    def _button_bar(self) -> QHBoxLayout:
        self.open_button = QPushButton("Open .mlir…")
        self.pass_pick = QComboBox()
        self.pass_pick.setEditable(True)
        self.pass_pick.lineEdit().setPlaceholderText("loading Triton's passes…")
        # the window process never imports triton: the pass list comes from kx's lab
        # service child, on a job, and fills the picker when it arrives
        self.jobs.submit(
            "flags",
            lambda: service.call("lab", available_flags, timeout=120),
            self._fill_flags,
            self._no_flags,
        )
        self.add_button = QPushButton("Add")
        self.run_button = QPushButton("Run passes")
        self.lit_button = QPushButton("Run RUN lines")
        self.minimize_button = QPushButton("Minimise")
        bar = QHBoxLayout()
        for w in (
            self.open_button,
            self.pass_pick,
            self.add_button,
            self.run_button,
            self.lit_button,
            self.minimize_button,
        ):
            bar.addWidget(w)
        return bar

    def _flag_row(self) -> QHBoxLayout:
        self.flags = QLineEdit()
        self.flags.setPlaceholderText(
            "triton-opt flags, e.g. -tritongpu-coalesce (taken from the first RUN line)"
        )
        flag_row = QHBoxLayout()
        flag_row.addWidget(QLabel("passes"))
        flag_row.addWidget(self.flags, 1)
        return flag_row

    # ------------------------------------------------------------ input

    def load(self, path: str) -> bool:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            self.status.setText(f"cannot open {path}: {e.strerror}")
            return False
        self.path = path
        self.editor.set_content(text, MlirLexer())
        runs = run_lines(text)
        if runs:
            try:
                pipe = parse_pipeline(runs[0].command, check_passes=False)
                self.flags.setText(
                    " ".join(["-split-input-file"] * pipe.split + [_quote(f) for f in pipe.flags])
                )
            except ValueError:
                pass
        self.status.setText(
            f"{os.path.basename(path)}: {len(runs)} RUN line(s), {len(checks_of(text))} check(s)"
        )
        return True

    def _open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open an MLIR file", LIT, "MLIR (*.mlir)")
        if path:
            self.load(path)

    def _add_flag(self) -> None:
        flag = self.pass_pick.currentText().strip()
        if flag:
            self.flags.setText((self.flags.text() + " " + _quote(flag)).strip())

    def _flags(self) -> tuple[list[str], bool]:
        import shlex

        try:
            tokens = shlex.split(self.flags.text())
        except ValueError:
            tokens = self.flags.text().split()
        split = any(t.lstrip("-") == "split-input-file" for t in tokens)
        return [t for t in tokens if t.lstrip("-") != "split-input-file"], split

    # ------------------------------------------------------------ background work

    def _fill_flags(self, flags) -> None:
        self.pass_pick.addItems(["-" + f for f in flags])

    def _no_flags(self, _error: BaseException) -> bool:
        self.pass_pick.lineEdit().setPlaceholderText("type a triton-opt flag")
        return False

    def _start(self, kind: str, work) -> bool:
        if self.jobs.busy("work"):
            self.status.setText("still running the last one")
            return False

        def failed(e: BaseException) -> bool:
            self.status.setText(f"{type(e).__name__}: {e}")
            return False

        self.jobs.submit("work", work, lambda payload: self._show(kind, payload), failed)
        self.status.setText(
            {"passes": "running the passes…", "lit": "running the RUN lines…", "minimize": "minimising…"}[
                kind
            ]
        )
        return True

    def wait(self, timeout_s: float = 300.0) -> None:
        """Run the event loop until the background work is shown (tests)."""
        deadline = time.monotonic() + timeout_s
        while self.jobs.busy("work") and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.01)
        QApplication.processEvents()

    def _show(self, kind: str, payload) -> None:
        if kind == "passes":
            self._show_passes(*payload)
        elif kind == "lit":
            self._show_lit(payload)
        else:
            small, trials = payload
            self.editor.set_content(small, MlirLexer())
            self.status.setText(
                f"minimised in {trials} trials to {len(small.splitlines())} lines (in the editor)"
            )

    # ------------------------------------------------------------ actions

    def run_passes(self) -> bool:
        text = self.editor.toPlainText()
        flags, split = self._flags()

        def work():
            before = run_passes(text, [], split)
            return before, run_passes(text, flags, split), flags

        return self._start("passes", work)

    def _show_passes(self, before: PlaygroundResult, after: PlaygroundResult, flags) -> None:
        self.result = after
        if before.error:
            self.status.setText(f"the input does not parse: {before.error}")
            self.diff.clear(before.error)
            return
        if not after.ok:
            self.status.setText("; ".join(after.unsupported) or after.error)
            self.diff.clear(after.error or "; ".join(after.unsupported))
            return
        diff = self.diff.show_texts(
            before.text(), after.text(), "before", "after " + " ".join(flags), MlirLexer()
        )
        self.status.setText(
            "the passes changed nothing"
            if diff.identical
            else f"{len(diff.changed_right)} line(s) added or changed by {' '.join(flags)}"
        )

    def run_lit(self) -> bool:
        text = self.editor.toPlainText()
        return self._start("lit", lambda: run_file_text(text))

    def _show_lit(self, results: list[RunResult]) -> None:
        self.lit_results = results
        text = self.editor.toPlainText()
        checks = [c.line for c in checks_of(text)]
        marks: dict[int, tuple[QColor, str]] = {}
        for r in results:
            if r.status == "PASS":
                for line in checks:
                    marks.setdefault(line, (PASSED, "matched"))
            elif r.status == "FAIL" and r.check_line:
                for line in checks:
                    if line < r.check_line:
                        marks.setdefault(line, (PASSED, "matched"))
                marks[r.check_line] = (FAILED, r.message)
        self.marks = marks
        self.editor.set_marks(marks)
        self.status.setText(
            "  ".join(
                # line 0: the file has no RUN line at all (kx_core.lab.lit.run_file_text)
                (f"RUN line {r.line}: {r.status}" if r.line else r.status)
                + (f" ({r.message[:160]})" if r.message else "")
                for r in results
            )
        )
        # the failing RUN line's output, else the first one's: the views stayed empty after a
        # run that passed (first-user run), where what FileCheck read is still worth seeing
        shown = next((r for r in results if r.status == "FAIL" and r.output), None) or next(
            (r for r in results if r.output), None
        )
        if shown is not None:
            self.diff.show_texts(
                text, shown.output, "input", f"output FileCheck saw (RUN line {shown.line})", MlirLexer()
            )

    def minimize(self) -> bool:
        text = self.editor.toPlainText()
        if not any(r.status == "FAIL" for r in self.lit_results):
            self.status.setText("nothing to minimise: run the RUN lines first; one must fail")
            return False
        return self._start("minimize", lambda: minimize(text))


def _quote(flag: str) -> str:
    if "=" in flag and " " in flag:
        name, _, opts = flag.partition("=")
        return f"{name}='{opts.strip(chr(39))}'"
    return flag
