"""Output pane: what the file printed in each run (the capture behind a compile, Bench,
Profile, a check): its stdout and stderr as the worker wrote them, the latest run first,
a run in flight as it prints (kx_gui/outputs.py)."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout

from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView

NOTE = "stdout + stderr"
NOTE_TIP = "stdout and stderr, interleaved as the file printed them; the last 64 kB of each run"
EMPTY = "nothing has run yet: what the file prints when kx runs it (compile, Bench, Profile) shows here"


def whose_run(run_path: str, open_now: str) -> str:
    """Whose output a run shown beside another file is: its file, by name, or by folder
    where the two share a name (a bundle opened beside the file it was made from read "a
    run of vector_add.py, not of vector_add.py")."""
    ran, shown = os.path.basename(run_path), os.path.basename(open_now)
    if ran != shown:
        return f"a run of {ran}, not of {shown}"
    return (
        f"a run of {ran} in {os.path.dirname(os.path.abspath(run_path))}, not of the {shown} "
        f"open now (in {os.path.dirname(os.path.abspath(open_now))})"
    )


class OutputPane(Pane):
    title = "Output"
    name = "output"
    shows_build = False  # each run is titled with what ran, on what
    listens = {"outputs.changed": "schedule", "document_opened": "schedule"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.runs = QComboBox()
        self.runs.setToolTip("each run of the file, latest first")
        self.note = QLabel(NOTE)
        self.note.setToolTip(NOTE_TIP)
        self.note.setWordWrap(True)
        self.view = CodeView()
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(self.runs, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        # a row of its own: a caveat wrapped beside the run list squeezed both in a narrow dock
        self.note.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        self.runs.currentIndexChanged.connect(lambda *_: self._show_run())
        self._shown_key: str | None = None
        self._newest_key: str | None = None  # the newest run when last drawn
        self.render()

    def render(self) -> None:
        runs = self.session.outputs.runs
        keep = self._shown_key
        self.runs.blockSignals(True)
        self.runs.clear()
        for run in runs:
            self.runs.addItem(run.heading, run.key)
        # the run looked at stays in view while it is still listed, until a newer run
        # comes (finished at once, as a capture's does, or running): then the newest.
        # Following only running ones left another file's output on screen.
        at = next((i for i, r in enumerate(runs) if r.key == keep), 0)
        if runs and runs[0].key != self._newest_key:
            at = 0
        self._newest_key = runs[0].key if runs else None
        self.runs.setCurrentIndex(at if runs else -1)
        self.runs.blockSignals(False)
        self._show_run()

    def _show_run(self) -> None:
        runs = self.session.outputs.runs
        i = self.runs.currentIndex()
        if not 0 <= i < len(runs):
            self._shown_key = None
            self.view.set_content(EMPTY)
            self._show_caveat("")
            return
        run = runs[i]
        open_now = self.session.path
        other = bool(run.path and open_now and os.path.abspath(run.path) != os.path.abspath(open_now))
        # a run of the file open before this one (Open Without Running, a failed compile):
        # its output is history, said as such rather than shown as this file's
        said = [run.caveat]
        if other:
            said.insert(0, whose_run(run.path, open_now))
        self._show_caveat("; ".join(c for c in said if c))
        text = run.text if run.text.strip() else "(the run printed nothing)"
        if run.key != self._shown_key or self.view.toPlainText() != text:
            self._shown_key = run.key
            self.view.set_content(text)
            self.view.scroll_to_line(max(1, text.count("\n")))  # the latest lines

    def _show_caveat(self, caveat: str) -> None:
        """A run that is not a real one (a capture's placeholders) says so above its text."""
        if caveat:
            self.note.setText(f"⚠ {caveat}")
            self.note.setStyleSheet("color: #e65100")
            self.note.setToolTip(f"{caveat}\n{NOTE_TIP}")
        else:
            self.note.setText(NOTE)
            self.note.setStyleSheet("")
            self.note.setToolTip(NOTE_TIP)
