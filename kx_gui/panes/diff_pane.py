"""Diff pane: any stage of any kernel/config of the file against any other, side by
side: TTIR vs TTGIR of one kernel, one stage across two autotune configs, one stage
across two targets or two Pythons (the right side can come from a compile for another
target or by another interpreter, run in the background like any other), or what the
last edit changed (the previous compile of the file, kept up to date after each save)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLabel, QVBoxLayout

from kx_core.ir.lexers import lexer_for_syntax
from kx_core.records.backends import ALL_STAGES
from kx_core.records.target import KNOWN_TARGETS
from kx_gui.compile_job import CompileJob
from kx_gui.panes.base import Pane
from kx_gui.widgets.diff_view import DiffView
from kx_gui.widgets.shrink import shrinkable

THIS_COMPILE = "this compile"
PREVIOUS_COMPILE = "the previous compile"  # of the same file: what the last edit changed
ANOTHER_PYTHON = "another Python…"


class DiffPane(Pane):
    title = "Diff"
    name = "diff"
    listens = {"result_changed": "set_result"}

    other_compiled = Signal(object)  # the CompileResult for the other target

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.left_kernel, self.left_stage = shrinkable(QComboBox(), 26), QComboBox()
        self.right_kernel, self.right_stage = shrinkable(QComboBox(), 26), QComboBox()
        self.right_target = shrinkable(QComboBox(), 10)
        self.right_target.addItem(THIS_COMPILE)
        self.right_target.addItem(PREVIOUS_COMPILE)
        self.right_target.addItems(list(KNOWN_TARGETS))
        self.right_target.addItem(ANOTHER_PYTHON)
        self.right_target.setToolTip(
            "where the right side comes from: this compile, the compile before the last edit, "
            "a compile for another target, or one by another Python"
        )
        self.right_python: str | None = None
        self.other_result = None
        self._job: CompileJob | None = None
        self._generation = 0
        self.ignore_numbering = QCheckBox("ignore renumbering")
        self.ignore_numbering.setChecked(True)
        # a row per side, so the pane's minimum width stays small (issue 18, defect 3)
        left, right = QHBoxLayout(), QHBoxLayout()
        for row, widgets in (
            (left, (QLabel("left "), self.left_kernel, self.left_stage, self.ignore_numbering)),
            (right, (QLabel("right"), self.right_target, self.right_kernel, self.right_stage)),
        ):
            for w in widgets:
                row.addWidget(w)
            row.addStretch(1)
        self.diff = DiffView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(left)
        layout.addLayout(right)
        layout.addWidget(self.diff, 1)
        for box in (self.left_kernel, self.left_stage, self.right_kernel, self.right_stage):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.ignore_numbering.toggled.connect(lambda _b: self.refresh())
        self.right_target.currentIndexChanged.connect(lambda _i: self._target_changed())
        self._filling = False

    def _target_changed(self, ask: bool = True) -> None:
        target = self.right_target.currentText()
        self.other_result = None
        if target == THIS_COMPILE or not self.session.path:
            self._fill_right(self.session.result)
            self.refresh()
            return
        if target == PREVIOUS_COMPILE:
            self.other_result = self.session.previous_result
            if self.other_result is None:
                self.diff.clear(
                    "no earlier compile of this file yet: edit and save it (Ctrl+S), then compare"
                )
                return
            self._fill_right(self.other_result)
            self._filling = True
            self.right_stage.setCurrentText(self.left_stage.currentText())  # the same stage
            self.right_kernel.setCurrentIndex(max(0, self.left_kernel.currentIndex()))
            self._filling = False
            self.refresh()
            return
        if target == ANOTHER_PYTHON:
            if ask or not self.right_python:
                path, _ = QFileDialog.getOpenFileName(
                    self, "Python interpreter for the right side", self.right_python or ""
                )
                if not path:
                    self.right_target.setCurrentText(THIS_COMPILE)
                    return
                self.right_python = path
            request = self.session.request(python=self.right_python)
            what = self.right_python
        else:
            request = self.session.request(target=target, gpu=None)
            what = target
        self.diff.clear(f"compiling with {what}…")
        self._generation += 1
        self._job = CompileJob(request, self._generation, self)
        self._job.finished_result.connect(self._other_compiled)
        self._job.failed.connect(lambda _g, m: self.diff.clear(f"compile with {what} failed: {m}"))
        self._job.start()

    def _other_compiled(self, generation: int, payload) -> None:
        if generation != self._generation:
            return
        self.other_result = payload[0]
        self._fill_right(self.other_result)
        self.refresh()
        self.other_compiled.emit(self.other_result)

    def _fill_right(self, result) -> None:
        if result is None:
            return
        self._filling = True
        current = self.right_stage.currentText()
        self.right_kernel.clear()
        _add_kernels(self.right_kernel, result.kernels)
        self.right_stage.clear()
        self.right_stage.addItems([s for s in ALL_STAGES if any(s in k.stages for k in result.kernels)])
        if current:
            self.right_stage.setCurrentText(current)
        self._filling = False

    def compare_target(self, target: str) -> None:
        """Compare with a compile for `target` (compiled in the background)."""
        self.right_target.setCurrentText(target)

    def compare_python(self, python: str) -> None:
        """Compare with a compile of the same file by another interpreter."""
        self.right_python = python
        self.right_target.blockSignals(True)
        self.right_target.setCurrentText(ANOTHER_PYTHON)
        self.right_target.blockSignals(False)
        self._target_changed(ask=False)

    def compare_previous(self) -> None:
        """Compare with the compile before the last edit (and keep comparing after each)."""
        self.right_target.setCurrentText(PREVIOUS_COMPILE)

    def set_result(self, result) -> None:
        if result is None:  # nothing on screen: no sides to compare
            self._filling = True
            for box in (self.left_kernel, self.right_kernel, self.left_stage, self.right_stage):
                box.clear()
            self._filling = False
            self.other_result = None
            self.diff.show_texts("", "", "", "", None, False)
            return
        if self.right_target.currentText() == PREVIOUS_COMPILE:
            self.other_result = self.session.previous_result
        elif self.right_target.currentText() != THIS_COMPILE:
            self._target_changed(ask=False)  # the file changed: recompile the other side too
        self._filling = True
        stages = [s for s in ALL_STAGES if any(s in k.stages for k in result.kernels)]
        for box in (self.left_kernel, self.right_kernel):
            _add_kernels(box, result.kernels)
        for box in (self.left_stage, self.right_stage):
            box.clear()
            box.addItems(stages)
        previous = self.right_target.currentText() == PREVIOUS_COMPILE
        # default: what the first kernel's TTIR became in TTGIR
        if "ttgir" in stages and not previous:
            self.right_stage.setCurrentText("ttgir")
        self._filling = False
        if previous and self.other_result is not None:
            self._fill_right(self.other_result)  # its kernels, the same stage as the left
            self.right_stage.setCurrentText(self.left_stage.currentText())
        self.schedule()

    def render(self) -> None:
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
        right_result = self.other_result or result
        if rk >= len(right_result.kernels):
            return
        left, right = result.kernels[lk], right_result.kernels[rk]
        syntax = ALL_STAGES[ls].syntax if ls == rs else None
        sides = [
            (left.stages.get(ls, ""), _header(left, ls, result)),
            (right.stages.get(rs, ""), _header(right, rs, right_result)),
        ]
        if self.right_target.currentText() == PREVIOUS_COMPILE and self.other_result is not None:
            # before an edit and after it: the old build on the left, each side named
            sides = [
                (sides[1][0], "previous compile · " + sides[1][1]),
                (sides[0][0], "this compile · " + sides[0][1]),
            ]
        (left_text, left_head), (right_text, right_head) = sides
        self.diff.show_texts(
            left_text,
            right_text,
            left_head,
            right_head,
            lexer_for_syntax(syntax) if syntax else None,
            self.ignore_numbering.isChecked(),
        )


def _header(kernel, stage: str, result) -> str:
    """One side's header: the kernel, the stage and the build it is of (the content hash
    of the file it was compiled from, the target, the Triton version)."""
    content = f" · @{result.build.content[:8]}" if result.build else ""
    return f"{kernel.short_name} · {stage}{content} · {result.target.spec} · triton {result.triton_version}"


def _add_kernels(box, kernels) -> None:
    """A kernel picker: short names, each with its full name as the tooltip."""
    box.clear()
    for i, k in enumerate(kernels):
        box.addItem(k.short_name)
        box.setItemData(i, k.display_name, Qt.ItemDataRole.ToolTipRole)
