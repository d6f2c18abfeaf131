"""KernelBench pane: the KernelBench-style task library judged as the harness judges it
(kx_core.bench.kernelbench): every candidate under the naive judge (one input
distribution, no checks of the source) and the hardened one (five distributions, a
static check that refuses a candidate reading the reference), its verdict or speed-up
against the reference, why, and fast_p over the library. Judging runs `kx kernelbench
--json` in a worker process (a candidate's numpy spends seconds: never on the window's
thread); a click on a row shows the candidate's source and its verdict per distribution."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QTableWidgetItem, QVBoxLayout

from kx_core.base import workers
from kx_core.bench.kernelbench import EvalResult, fast_p, library
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView
from kx_gui.widgets.tables import row_table

COLUMNS = ("task", "candidate", "naive", "hardened", "why (hardened)")
JUDGE_TIMEOUT_S = 600.0


def judge_library() -> dict[str, list[EvalResult]]:
    """mode -> every candidate's result, from a `kx kernelbench --json` worker."""
    done = workers.run("kx_core.cli", ["kernelbench", "--mode", "both", "--json"], JUDGE_TIMEOUT_S)
    if done.timed_out:
        raise TimeoutError(f"judging took more than {JUDGE_TIMEOUT_S:.0f} s")
    line = next((ln for ln in reversed(done.output.splitlines()) if ln.startswith("{")), None)
    if line is None:
        raise RuntimeError(f"the judge printed no result (exit {done.returncode}): {done.output[-300:]}")
    data = json.loads(line)
    fields = set(EvalResult.__dataclass_fields__)
    return {
        m: [EvalResult.from_json({k: v for k, v in r.items() if k in fields}) for r in rs]
        for m, rs in data.items()
    }


def verdict(r: EvalResult | None) -> str:
    if r is None:
        return "-"
    return f"{r.speedup:.2f}x" if r.correct else r.status


class KernelbenchPane(Pane):
    title = "KernelBench"
    name = "kernelbench"
    shows_build = False  # the library's own tasks, not the open file

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.run_button = QPushButton("Judge the library")
        self.run_button.setToolTip("every candidate, naive and hardened judges (kx kernelbench), in a worker")
        self.summary = QLabel(
            "KernelBench-style tasks: press Judge to time every candidate against its reference"
        )
        self.summary.setWordWrap(True)
        self.table = row_table(COLUMNS, 4)
        self.source = CodeView()
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        bar = QHBoxLayout()
        bar.addWidget(self.run_button)
        bar.addWidget(self.summary, 1)
        below = QSplitter(Qt.Orientation.Vertical)
        below.addWidget(self.table)
        below.addWidget(self.source)
        below.setSizes([300, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.detail)
        layout.addWidget(below, 1)
        self.candidates = library()
        self.results: dict[str, list[EvalResult]] = {}
        self.run_button.clicked.connect(self.judge)
        self.table.currentCellChanged.connect(lambda row, *_: self._show_row(row))
        self._fill()

    def judge(self):
        self.run_button.setEnabled(False)
        self.summary.setText(f"judging {len(self.candidates)} candidates twice (naive, hardened)…")

        def failed(error: BaseException) -> bool:
            self.run_button.setEnabled(True)
            self.summary.setText(f"judging failed: {error}")
            return False

        return self.jobs.submit("judge", judge_library, self._judged, failed)

    def _judged(self, results: dict[str, list[EvalResult]]) -> bool:
        self.run_button.setEnabled(True)
        self.results = results
        self._fill()
        parts = [
            f"{mode}: fast_0 {fast_p(rs, 0.0):.2f}, fast_1 {fast_p(rs, 1.0):.2f}, fast_2 {fast_p(rs, 2.0):.2f}"
            for mode, rs in results.items()
        ]
        judged = len(next(iter(results.values()), []))
        skipped = len(self.candidates) - judged
        self.summary.setText(
            f"{judged} candidates judged"
            + (f" ({skipped} Triton ones need a CUDA GPU)" if skipped else "")
            + " — "
            + "; ".join(parts)
        )
        return True

    def _result(self, mode: str, task: str, name: str) -> EvalResult | None:
        return next((r for r in self.results.get(mode, ()) if r.task == task and r.candidate == name), None)

    def _fill(self) -> None:
        self.table.setRowCount(len(self.candidates))
        for row, c in enumerate(self.candidates):
            naive, hard = self._result("naive", c.task, c.name), self._result("hardened", c.task, c.name)
            why = hard.msg if hard else ("a Triton candidate: needs a CUDA GPU" if self.results else "")
            for col, text in enumerate((c.task, c.name, verdict(naive), verdict(hard), why)):
                item = QTableWidgetItem(text)
                item.setToolTip(c.intent if col < 2 else text)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()

    def _show_row(self, row: int) -> None:
        if not 0 <= row < len(self.candidates):
            return
        c = self.candidates[row]
        self.source.set_content(c.src)
        hard = self._result("hardened", c.task, c.name)
        dists = ", ".join(f"{d} {v}" for d, v in hard.per_dist.items()) if hard else ""
        self.detail.setText(f"{c.task} / {c.name}: {c.intent}" + (f" — hardened: {dists}" if dists else ""))
