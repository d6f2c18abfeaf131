"""What the user's file printed, as the app holds it: one feature model beside the
Session. Each run of the file (the capture behind a compile, a Bench run, a profile, a
check) leaves its stdout and stderr here, interleaved as the worker wrote them (the
last 64 kB); a run in flight is updated while it prints. The Output pane lists them,
latest first (its `listens`: "outputs.changed")."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

KEPT_RUNS = 20


@dataclass(frozen=True)
class RunOutput:
    key: str  # one run ("capture 3", "bench 1"): a later put of the same key replaces it
    title: str  # what ran, on what: "capture of two_kernels.py for cuda:90"
    text: str
    finished: bool
    started: float  # time.time() of its first put
    # what the text is not (a capture ran the file on tensors without data: a check it
    # printed, "matches torch", is of placeholders, not of a kernel's output)
    caveat: str = ""
    path: str | None = None  # the file that ran (the pane says when it is not the one open)

    @property
    def heading(self) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(self.started))
        state = "" if self.finished else " (running)"
        printed = "" if self.text.strip() else ": printed nothing"
        marked = " ⚠ not a real run" if self.caveat else ""
        return f"{clock} {self.title}{state}{printed}{marked}"


class Outputs(QObject):
    changed = Signal()

    def __init__(self, session) -> None:
        super().__init__(session)
        self.runs: list[RunOutput] = []  # latest first

    def put(
        self,
        key: str,
        title: str,
        text: str,
        finished: bool = True,
        caveat: str = "",
        path: str | None = None,
    ) -> None:
        old = next((r for r in self.runs if r.key == key), None)
        if old is not None:
            if (old.text, old.finished, old.title, old.caveat) == (text, finished, title, caveat):
                return  # a poll with nothing new: no repaint
            self.runs[self.runs.index(old)] = replace(
                old, title=title, text=text, finished=finished, caveat=caveat
            )
        else:
            self.runs.insert(0, RunOutput(key, title, text, finished, time.time(), caveat, path))
            del self.runs[KEPT_RUNS:]
        self.changed.emit()
