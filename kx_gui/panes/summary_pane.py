"""Summary pane: what each kernel/config is made of, side by side (one column each):
resources, MMA shapes, async copies, barriers, vector widths, SASS mix by family."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QVBoxLayout

from kx_core.ir.summary import InstructionSummary, summarize
from kx_gui.panes.base import Pane


def _rows(summaries: list[InstructionSummary]) -> list[tuple[str, list[str]]]:
    def widths(d: dict[int, int]) -> str:
        return ", ".join(f"{w} b ×{n}" for w, n in sorted(d.items())) or "-"

    rows = [
        ("registers", [str(s.registers) for s in summaries]),
        ("spills", [str(s.spills) for s in summaries]),
        ("shared B", [str(s.shared) for s in summaries]),
        ("MMA shapes", [", ".join(f"{k} ×{v}" for k, v in s.mma_shapes.items()) or "-" for s in summaries]),
        ("ldmatrix", [str(s.ldmatrix) for s in summaries]),
        ("cp.async", [str(s.cp_async) for s in summaries]),
        ("bulk copies", [str(s.bulk_copies) for s in summaries]),
        ("barriers", [str(s.barriers) for s in summaries]),
        ("vector loads", [widths(s.global_vector_loads) for s in summaries]),
        ("vector stores", [widths(s.global_vector_stores) for s in summaries]),
        ("SASS instructions", [str(s.sass_total) for s in summaries]),
    ]
    families = sorted(
        {f for s in summaries for f in s.sass_mix},
        key=lambda f: -max(s.sass_mix.get(f, 0) for s in summaries),
    )
    rows += [(f"  {f}", [str(s.sass_mix.get(f, 0)) for s in summaries]) for f in families]
    return rows


class SummaryPane(Pane):
    title = "Summary"
    name = "summary"

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.summaries: list[InstructionSummary] = []
        self.listen(session.result_changed, lambda *_: self.schedule())

    def render(self) -> None:
        if self.session.result is not None:
            self.set_result(self.session.result)

    def set_result(self, result) -> None:
        self.summaries = [summarize(k) for k in result.kernels if k.status == "compiled"]
        rows = _rows(self.summaries) if self.summaries else []
        self.table.clear()
        self.table.setColumnCount(len(self.summaries))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels([s.kernel for s in self.summaries])
        self.table.setVerticalHeaderLabels([name for name, _ in rows])
        for r, (_name, values) in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
