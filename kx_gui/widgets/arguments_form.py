"""The Arguments form: one field per parameter of a kernel nothing launched, prefilled
(the last values used for this file and kernel, else the kernel's defaults and kx's
suggestions), compiling on Enter as a call with these values would (`--arg`)."""

from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QLineEdit, QPushButton, QVBoxLayout

from kx_core.records.results import KernelDefinition
from kx_gui.settings import open_settings


def _key(path: str, kernel: str) -> str:
    return "arguments/" + json.dumps([path, kernel])


def remembered(path: str, kernel: str) -> dict[str, str]:
    value = open_settings().value(_key(path, kernel), "")
    try:
        got = json.loads(value) if value else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in got.items()} if isinstance(got, dict) else {}


def remember(path: str, kernel: str, values: dict[str, str]) -> None:
    open_settings().setValue(_key(path, kernel), json.dumps(values))


class ArgumentsForm(QGroupBox):
    """Emits `submitted(kernel, {param: value}, grid)` on Enter or Compile."""

    submitted = Signal(str, object, str)

    def __init__(self, parent=None) -> None:
        super().__init__("Arguments", parent)
        self.definition: KernelDefinition | None = None
        self.path = ""
        self.fields: dict[str, QLineEdit] = {}
        self.grid = QLineEdit("1")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.form = QFormLayout()
        grid_row = QFormLayout()  # apart from the parameters' rows, which are rebuilt
        grid_row.addRow("grid", self.grid)
        self.compile_button = QPushButton("Compile")
        self.compile_button.clicked.connect(self.submit)
        self.grid.returnPressed.connect(self.submit)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(self.form)
        layout.addLayout(grid_row)
        layout.addWidget(self.compile_button)
        self.hide()

    def show_kernel(self, definition: KernelDefinition, path: str) -> None:
        """Fill the form for `definition`: remembered values first, then defaults."""
        self.definition, self.path = definition, path
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        saved = remembered(path, definition.name)
        for p in definition.params:
            if p.provided_by:
                continue  # autotune configs and heuristics set it
            field = QLineEdit()
            default = repr(p.default) if p.has_default else (p.suggested or "")
            field.setText(saved.get(p.name, default))
            kind = "constexpr" if p.constexpr else (p.annotation or "value")
            field.setToolTip(
                f"{p.name} ({kind}): a tensor as dtype[shape] (fp16[256,512], optionally :strides), or a Python value"
            )
            field.returnPressed.connect(self.submit)
            self.form.addRow(p.name, field)
            self.fields[p.name] = field
        self.grid.setText(saved.get("__grid__", "1"))
        set_by = [p.name for p in definition.params if p.provided_by]
        self.note.setText(
            f"Nothing in the file launches {definition.name}: compile it as a call with these values would."
            + (f" Set by its decorators: {', '.join(set_by)}." if set_by else "")
        )
        self.setTitle(f"Arguments of {definition.name}")
        self.show()

    def values(self) -> dict[str, str]:
        return {name: f.text().strip() for name, f in self.fields.items() if f.text().strip()}

    def submit(self) -> None:
        if self.definition is None:
            return
        values = self.values()
        remember(self.path, self.definition.name, values | {"__grid__": self.grid.text().strip()})
        self.submitted.emit(self.definition.name, values, self.grid.text().strip())
