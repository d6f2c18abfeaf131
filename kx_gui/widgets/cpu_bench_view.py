"""The Bench pane's page for a C++ kernel: which PyTorch baseline and op to measure,
and what the run found (correctness, both medians, the speed-up, perf stat's counters
and the seed profiler's advice). The pane runs the job; this page only asks and shows."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kx_core.bench.cpu_bench import registered_ops
from kx_core.bench.cpu_result import CpuBenchResult
from kx_gui.widgets.tables import row_table

RESULT_COLUMNS = ("what", "median us", "IQR us", "blocks")
COUNTER_COLUMNS = ("counter", "value")


def guess_baseline(folder: str) -> str:
    """The folder's baseline file when there is exactly one `*baseline*.py`."""
    try:
        found = sorted(n for n in os.listdir(folder) if n.endswith(".py") and "baseline" in n)
    except OSError:
        return ""
    return os.path.join(folder, found[0]) if len(found) == 1 else ""


class CpuBenchView(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.baseline = QLineEdit()
        self.baseline.setPlaceholderText(
            "PyTorch baseline .py: get_inputs() and Model or get_reference_output()"
        )
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        self.op = QComboBox()
        self.op.setMinimumContentsLength(22)
        self.perf = QCheckBox("hardware counters (perf stat)")
        self.perf.setChecked(True)
        self.summary = QLabel("open a .cpp kernel and press Build and time on CPU")
        self.summary.setWordWrap(True)
        self.results = row_table(RESULT_COLUMNS, 0)
        self.counters = row_table(COUNTER_COLUMNS, 0)
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        row = QHBoxLayout()
        row.addWidget(QLabel("baseline"))
        row.addWidget(self.baseline, 1)
        row.addWidget(self.browse)
        row2 = QHBoxLayout()
        row2.addWidget(QLabel("op"))
        row2.addWidget(self.op)
        row2.addWidget(self.perf)
        row2.addStretch(1)
        tables = QHBoxLayout()
        tables.addWidget(self.results, 3)
        tables.addWidget(self.counters, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addLayout(row2)
        layout.addWidget(self.summary)
        layout.addLayout(tables, 1)
        layout.addWidget(self.advice)

    def set_file(self, path: str) -> None:
        """A new kernel file: its folder's baseline and ops, and no results."""
        folder = os.path.dirname(os.path.abspath(path))
        if not self.baseline.text() or os.path.dirname(self.baseline.text()) != folder:
            self.baseline.setText(guess_baseline(folder))
        self.op.clear()
        self.op.addItems(registered_ops(Path(folder)))
        self.clear()

    def clear(self) -> None:
        self.results.setRowCount(0)
        self.counters.setRowCount(0)
        self.advice.clear()

    def options(self) -> dict:
        return {
            "baseline": self.baseline.text().strip(),
            "op": self.op.currentText() or "",
            "perf": self.perf.isChecked(),
        }

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "PyTorch baseline", self.baseline.text(), "Python (*.py)")
        if path:
            self.baseline.setText(path)

    def show_result(self, r: CpuBenchResult) -> str:
        """Fill the page; returns the one-line status for the pane."""
        self.clear()
        problems = "; ".join(d.short() for d in r.diagnostics)
        if r.kernel is None or r.baseline is None:
            self.summary.setText(problems or "no result")
            return f"C++ kernel: {problems or 'no result'}"
        rows = [(f"{r.op} ({r.extra.get('tier', 'kernel')})", r.kernel), ("PyTorch baseline", r.baseline)]
        self.results.setRowCount(len(rows))
        for i, (what, t) in enumerate(rows):
            cells = (what, f"{t.median_us:.1f}", f"{t.iqr_us:.1f}", str(t.runs))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.results.setItem(i, c, item)
        self.results.resizeColumnsToContents()
        verdict = "correct" if r.correct else "WRONG: " + "; ".join(r.mismatches[:2])
        variants = r.extra.get("variants") or []
        others = [v for v in variants if v != r.extra.get("tier")]
        which = f"timed the {r.extra['tier']} variant" if r.extra.get("tier") else ""
        which += f" (others in the folder: {', '.join(others)})" if others and which else ""
        note = r.extra.get("tier_note", "")
        self.summary.setText(
            f"{verdict} — speed-up {r.speedup:.2f}x over PyTorch (medians, blocked_autorange), "
            f"{r.threads} threads, built in {r.build_s:.1f} s"
            + "".join(f" — {part}" for part in (which, note, problems) if part)
        )
        if r.perf is not None:
            self._show_perf(r.perf)
        tier = f" ({r.extra['tier']})" if r.extra.get("tier") else ""
        return (
            f"C++ kernel {r.op}{tier}: {'correct' if r.correct else 'WRONG'}, {r.speedup:.2f}x over PyTorch"
        )

    def _show_perf(self, p) -> None:
        derived = [
            ("IPC", p.ipc),
            ("L1 miss rate %", p.l1_miss_pct),
            ("LLC miss rate %", p.llc_miss_pct),
            ("branch miss rate %", p.branch_miss_pct),
        ]
        rows = [(k, f"{v:.2f}") for k, v in derived if v is not None]
        rows += [
            (k + (" ms" if k == "task-clock" else ""), "not supported" if v is None else f"{v:,.1f}")
            for k, v in p.counters.items()
        ]
        self.counters.setRowCount(len(rows))
        for i, (k, v) in enumerate(rows):
            self.counters.setItem(i, 0, QTableWidgetItem(k))
            item = QTableWidgetItem(v)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.counters.setItem(i, 1, item)
        self.counters.resizeColumnsToContents()
        lines = ([p.message] if p.message else []) + [f"» {rec}" for rec in p.recommendations]
        self.advice.setText(f"perf stat over {p.iters} calls: " + "\n".join(lines) if lines else "")
