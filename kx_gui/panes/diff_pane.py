"""Diff pane: any stage of any kernel/config of the file against any other, side by
side (TTIR vs TTGIR of one kernel, or one stage across two autotune configs)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout

from kx_core.compile.stages import ALL_STAGES
from kx_core.ir.lexers import lexer_for_syntax
from kx_gui.panes.base import Pane
from kx_gui.widgets.diff_view import DiffView


class DiffPane(Pane):
    title = "Diff"
    name = "diff"

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.left_kernel, self.left_stage = QComboBox(), QComboBox()
        self.right_kernel, self.right_stage = QComboBox(), QComboBox()
        self.ignore_numbering = QCheckBox("ignore renumbering")
        self.ignore_numbering.setChecked(True)
        bar = QHBoxLayout()
        for w in (
            QLabel("left"),
            self.left_kernel,
            self.left_stage,
            QLabel("right"),
            self.right_kernel,
            self.right_stage,
            self.ignore_numbering,
        ):
            bar.addWidget(w)
        bar.addStretch(1)
        self.diff = DiffView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.diff, 1)
        for box in (self.left_kernel, self.left_stage, self.right_kernel, self.right_stage):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.ignore_numbering.toggled.connect(lambda _b: self.refresh())
        self._filling = False
        self.listen(session.result_changed, self.set_result)

    def set_result(self, result) -> None:
        self._filling = True
        names = [k.display_name for k in result.kernels]
        stages = [s for s in ALL_STAGES if any(s in k.stages for k in result.kernels)]
        for box, items in (
            (self.left_kernel, names),
            (self.right_kernel, names),
            (self.left_stage, stages),
            (self.right_stage, stages),
        ):
            box.clear()
            box.addItems(items)
        # default: what the first kernel's TTIR became in TTGIR
        if "ttgir" in stages:
            self.right_stage.setCurrentText("ttgir")
        self._filling = False
        self.refresh()

    def compare(self, left_kernel: int, left_stage: str, right_kernel: int, right_stage: str) -> None:
        self._filling = True
        self.left_kernel.setCurrentIndex(left_kernel)
        self.right_kernel.setCurrentIndex(right_kernel)
        self.left_stage.setCurrentText(left_stage)
        self.right_stage.setCurrentText(right_stage)
        self._filling = False
        self.refresh()

    def refresh(self) -> None:
        result = self.session.result
        if self._filling or result is None or not result.kernels:
            return
        lk, rk = self.left_kernel.currentIndex(), self.right_kernel.currentIndex()
        ls, rs = self.left_stage.currentText(), self.right_stage.currentText()
        if lk < 0 or rk < 0 or not ls or not rs:
            return
        left, right = result.kernels[lk], result.kernels[rk]
        syntax = ALL_STAGES[ls].syntax if ls == rs else None
        self.diff.show_texts(
            left.stages.get(ls, ""),
            right.stages.get(rs, ""),
            f"{left.display_name} · {ls}",
            f"{right.display_name} · {rs}",
            lexer_for_syntax(syntax) if syntax else None,
            self.ignore_numbering.isChecked(),
        )
