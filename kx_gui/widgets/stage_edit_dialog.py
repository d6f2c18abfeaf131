"""Edit one stage of the selected kernel (TTIR, TTGIR, LLVM IR or PTX) and run it: the
dialog holds the stage's text, editable; Run hands back (stage, edited text)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout

from kx_core.bench.override import STAGES
from kx_core.ir.lexers import lexer_for_syntax
from kx_core.records.backends import ALL_STAGES
from kx_gui.widgets.code_view import CodeView


class StageEditDialog(QDialog):
    def __init__(self, kernel, parent=None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.setWindowTitle(f"Edit {kernel.name} at one stage and run it")
        self.resize(900, 640)
        self.stage = QComboBox()
        self.stages = [s for s in STAGES if isinstance(kernel.stages.get(s), str)]
        self.stage.addItems([ALL_STAGES[s].display_name for s in self.stages])
        self.view = CodeView(read_only=False)
        self._texts = {s: kernel.stages[s] for s in self.stages}
        self.stage.currentIndexChanged.connect(self._stage_changed)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run edited", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(QLabel("stage"))
        top.addWidget(self.stage)
        top.addWidget(
            QLabel("kx compiles the launch again from this text (the later stages from it) and times both"), 1
        )
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)
        self._current = None
        self._stage_changed(0)

    def _stage_changed(self, index: int) -> None:
        if self._current is not None:  # keep the edits of the stage left
            self._texts[self._current] = self.view.text()
        if not 0 <= index < len(self.stages):
            return
        self._current = self.stages[index]
        self.view.set_content(self._texts[self._current], lexer_for_syntax(ALL_STAGES[self._current].syntax))

    def edited(self) -> tuple[str, str]:
        """(stage name, its text as edited)."""
        return self._current, self.view.text()
