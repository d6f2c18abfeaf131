"""Pipeline pane: every MLIR/LLVM pass of the selected kernel, changed passes marked,
and the IR before and after the selected pass side by side.

Passes are captured on request (they make a compile slower and its result larger):
"Capture passes" recompiles the selected kernel and config only, in the background, with
its own timeout; "all configs" does every config of that kernel, side by side. The
results on screen stay as they are until the passes join them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
)

from kx_core.ir.lexers import lexer_for_syntax
from kx_core.ir.passes import ir_around
from kx_gui.panes.base import Pane
from kx_gui.widgets.diff_view import DiffView
from kx_gui.widgets.elided_label import ElidedLabel
from kx_gui.widgets.shrink import shrinkable
from kx_gui.widgets.tables import row_table

COLUMNS = ("#", "pm", "pass", "argument", "function", "changed", "ms")
ALL_FUNCTIONS = "all functions"


class PipelinePane(Pane):
    title = "Pipeline"
    name = "pipeline"
    listens = {
        "pass_captures.progress": "_progress",
        "pass_captures.captured": "_captured",
        "kernel_changed": "schedule",
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.capture_button = QPushButton("Capture passes")
        self.capture_all = QPushButton("all configs")
        self.capture_all.setToolTip("capture the passes of every config of this kernel, side by side")
        self.timeout = QSpinBox()
        self.timeout.setRange(5, 3600)
        self.timeout.setValue(120)
        self.timeout.setSuffix(" s")
        self.timeout.setToolTip("the pass capture's own timeout")
        self.llvm = QCheckBox("LLVM passes too")
        self.llvm.setToolTip("also LLVM's passes (print-after-all): several times slower")
        self.status = ElidedLabel()  # cut with "…" where it is long, the whole on hover
        self.function_box = shrinkable(QComboBox())
        self.changed_only = QCheckBox("changed only")
        self.ignore_numbering = QCheckBox("ignore renumbering")
        self.ignore_numbering.setChecked(True)
        # two rows, so the pane's minimum width leaves the stages their room (defect 3)
        bar = QHBoxLayout()
        for w in (self.capture_button, self.capture_all, self.timeout, self.llvm, self.status):
            bar.addWidget(w)
        bar.setStretch(4, 1)
        filters = QHBoxLayout()
        for w in (QLabel("function"), self.function_box, self.changed_only, self.ignore_numbering):
            filters.addWidget(w)
        filters.addStretch(1)
        self.table = row_table(COLUMNS, stretch=2)
        self.diff = DiffView()
        # the pass list above, the before/after IR below at full width
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.diff)
        split.setSizes([260, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addLayout(filters)
        layout.addWidget(split, 1)
        self.capture_button.clicked.connect(self.capture_passes)
        self.capture_all.clicked.connect(self.capture_all_configs)
        self.function_box.currentIndexChanged.connect(lambda _i: self._fill())
        self.changed_only.toggled.connect(lambda _b: self._fill())
        self.ignore_numbering.toggled.connect(lambda _b: self.show_pass(self.selected_index()))
        self.table.currentCellChanged.connect(lambda row, *_: self.show_pass(self._row_to_index(row)))
        self._rows: list[int] = []

    def capture_passes(self) -> bool:
        """The selected kernel and config only (session.capture_passes)."""
        kernel = self.session.kernel
        if kernel is None:
            return False
        started = self.session.capture_passes(kernel, float(self.timeout.value()), self.llvm.isChecked())
        if started:
            self._say(f"capturing the passes of {kernel.display_name}…")
        return started

    def capture_all_configs(self) -> int:
        """Every config of the selected kernel, side by side; returns how many started."""
        kernel, result = self.session.kernel, self.session.result
        if kernel is None or result is None:
            return 0
        mine = [k for k in result.kernels if k.name == kernel.name and k.specialization and not k.passes]
        started = sum(
            self.session.capture_passes(k, float(self.timeout.value()), self.llvm.isChecked()) for k in mine
        )
        self._say(f"capturing the passes of {started} configs of {kernel.name}…")
        return started

    def _progress(self, name: str, message: str) -> None:
        self._say(f"{name}: {message}")

    def _captured(self, name: str, error: str) -> None:
        self._say(f"{name}: {error}" if error else f"{name}: passes captured")

    def _say(self, text: str) -> None:
        self.status.setText(text)

    def render(self) -> None:
        self.show_kernel(self.session.kernel)

    def show_kernel(self, kernel, _source_map=None) -> None:
        passes = kernel.passes if kernel is not None else ()
        if kernel is None or kernel.display_name not in self.session.pass_captures.jobs:
            self._say("")  # a word about another kernel's capture is not this one's
        self.function_box.blockSignals(True)
        self.function_box.clear()
        self.function_box.addItem(ALL_FUNCTIONS)
        for f in sorted({p.function for p in passes if p.function}):
            self.function_box.addItem(f)
        self.function_box.blockSignals(False)
        # passes are captured by recompiling a compiled kernel's specialization: nothing
        # to capture for none, or for a failed, pruned, not-launched or compiling one
        capturable = kernel is not None and kernel.status == "compiled" and kernel.specialization is not None
        self.capture_button.setEnabled(capturable and not passes)
        self.capture_all.setEnabled(capturable)
        self._fill()
        if not passes:
            if kernel is None:
                why = "nothing compiled: open a file and let it compile"
            elif not capturable:
                why = f"{kernel.display_name} is {kernel.status}: only a compiled kernel's passes can be captured"
            else:
                why = "no passes captured for this kernel: press 'Capture passes' (or kx compile --passes)"
            self.diff.clear(why)

    def _passes(self):
        return self.session.kernel.passes if self.session.kernel is not None else ()

    def _fill(self) -> None:
        """The pass table under the filters; the selected pass stays selected when it is
        still listed (else the next listed one), and the diff shows what the row does."""
        keep = self.selected_index()
        passes = self._passes()
        function = self.function_box.currentText()
        self._rows = [
            i
            for i, p in enumerate(passes)
            if (not self.changed_only.isChecked() or p.changed)
            and (function in ("", ALL_FUNCTIONS) or p.function in (function, None))
        ]
        self.table.setRowCount(len(self._rows))
        bold = QFont()
        bold.setBold(True)
        for row, i in enumerate(self._rows):
            p = passes[i]
            values = (
                i,
                p.pipeline,
                p.name,
                p.argument,
                p.function or "",
                "●" if p.changed else "",
                f"{p.time_s * 1000:.2f}" if p.time_s is not None else "",
            )
            for col, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                if p.changed:
                    item.setFont(bold)
                if p.kind != "mlir":
                    item.setForeground(QColor("#6a1b9a"))
                item.setToolTip(f"{p.kind} pass {p.name} ({p.argument}{p.options})")
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        if self._rows:
            # the selected pass, else (passes just captured, or another kernel) the first
            # that changed the IR: the diff below is never left saying "no passes captured"
            first_changed = next((i for i in self._rows if passes[i].changed), self._rows[0])
            target = (
                next((i for i in self._rows if i >= keep), self._rows[-1])
                if keep is not None
                else first_changed
            )
            self.table.blockSignals(True)  # one show_pass below, for the row highlighted
            self.table.selectRow(self._rows.index(target))
            self.table.blockSignals(False)
            self.show_pass(target)
        elif passes:
            self.diff.clear(f"none of the {len(passes)} passes is listed under these filters")

    def _row_to_index(self, row: int) -> int | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def selected_index(self) -> int | None:
        return self._row_to_index(self.table.currentRow())

    def select_pass(self, index: int) -> bool:
        """Select a pass by its number in the kernel's pass list."""
        if index in self._rows:
            row = self._rows.index(index)
            self.table.selectRow(row)
            self.table.scrollToItem(self.table.item(row, 0))
            return True
        return False

    def show_pass(self, index: int | None) -> None:
        passes = self._passes()
        if index is None or not 0 <= index < len(passes):
            return
        p = passes[index]
        before, after = ir_around(passes, index)
        if after is None:
            after = self.session.kernel.stages.get("llir" if p.kind == "llvm" else "ttgir", "")
            after_title = "after: (the stage text; no later dump)"
        else:
            after_title = f"after {p.name}"
        lexer = lexer_for_syntax("llvm" if p.kind == "llvm" else "mlir")
        self.diff.show_texts(
            before,
            after,
            f"before {p.name} ({p.argument})",
            after_title,
            lexer,
            self.ignore_numbering.isChecked(),
        )
