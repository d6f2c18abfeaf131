"""The Arguments form: one field per parameter of a kernel nothing launched, prefilled
(the last values used for this file and kernel, else the kernel's defaults and kx's
suggestions), compiling on Enter as a call with these values would (`--arg`)."""

from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

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


# The width one parameter takes, its name beside its field ("x_ptr [fp32[4096]  ]"): as
# many of these as fit side by side make a row, so a kernel's fields fit the few hundred
# pixels a 1280x800 window gives the Kernels pane (issue 54: one field showed at a time).
PAIR_WIDTH = 175


class ArgumentsForm(QGroupBox):
    """Emits `submitted(kernel, {param: value}, grid)` on Enter or Compile. Its fields are
    laid out `columns` to a row (`reflow(width)`), the grid's last."""

    submitted = Signal(str, object, str)

    def __init__(self, parent=None) -> None:
        super().__init__("Arguments", parent)
        self.definition: KernelDefinition | None = None
        self.path = ""
        self.fields: dict[str, QLineEdit] = {}
        self._labels: list[QLabel] = []
        self.grid = QLineEdit("1")
        self.grid.setToolTip("the launch grid: 128, or 64x8")
        self._grid_label = QLabel("grid")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.columns = 1
        self.pairs = QGridLayout()  # (name, field) pairs, `columns` to a row, rebuilt per kernel
        self.pairs.setVerticalSpacing(4)
        self.compile_button = QPushButton("Compile")
        self.compile_button.clicked.connect(self.submit)
        self.grid.returnPressed.connect(self.submit)
        top = QHBoxLayout()  # what the form does, and its button: one row
        top.addWidget(self.note, 1)
        top.addWidget(self.compile_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addLayout(self.pairs)
        layout.addStretch(1)
        self.hide()

    def show_kernel(self, definition: KernelDefinition, path: str) -> None:
        """Fill the form for `definition`: remembered values first, then defaults."""
        self.definition, self.path = definition, path
        for widget in [*self.fields.values(), *self._labels]:
            self.pairs.removeWidget(widget)
            widget.hide()  # gone now: a deferred delete left the last kernel's drawn under these
            widget.deleteLater()
        self.fields, self._labels = {}, []
        saved = remembered(path, definition.name)
        for p in definition.params:
            if p.provided_by:
                continue  # autotune configs and heuristics set it
            field = QLineEdit()
            field.setMinimumWidth(60)
            default = repr(p.default) if p.has_default else (p.suggested or "")
            field.setText(saved.get(p.name, default))
            kind = "constexpr" if p.constexpr else (p.annotation or "value")
            field.setToolTip(
                f"{p.name} ({kind}): a tensor as dtype[shape] (fp16[256,512], optionally :strides), or a Python value"
            )
            field.returnPressed.connect(self.submit)
            label = QLabel(p.name)
            label.setToolTip(field.toolTip())
            self.fields[p.name] = field
            self._labels.append(label)
        self.grid.setText(saved.get("__grid__", "1"))
        self._place()
        set_by = [p.name for p in definition.params if p.provided_by]
        self.note.setText(
            f"Nothing launches {definition.name}: compile it as a call with these values would."
            + (f" Set by its decorators: {', '.join(set_by)}." if set_by else "")
        )
        self.setTitle(f"Arguments of {definition.name}")
        self.show()

    def reflow(self, width: int) -> None:
        """Lay the fields out for `width` pixels: as many side by side as fit."""
        columns = max(1, width // PAIR_WIDTH)
        if columns != self.columns:
            self.columns = columns
            self._place()

    def _place(self) -> None:
        pairs = [*zip(self._labels, self.fields.values()), (self._grid_label, self.grid)]
        for label, field in pairs:
            self.pairs.removeWidget(label)
            self.pairs.removeWidget(field)
        for c in range(self.pairs.columnCount()):
            self.pairs.setColumnStretch(c, 0)
        for i, (label, field) in enumerate(pairs):
            row, column = divmod(i, self.columns)
            self.pairs.addWidget(label, row, 2 * column)
            self.pairs.addWidget(field, row, 2 * column + 1)
        for column in range(self.columns):
            self.pairs.setColumnStretch(2 * column + 1, 1)

    def values(self) -> dict[str, str]:
        return {name: f.text().strip() for name, f in self.fields.items() if f.text().strip()}

    def submit(self) -> None:
        if self.definition is None:
            return
        values = self.values()
        remember(self.path, self.definition.name, values | {"__grid__": self.grid.text().strip()})
        self.submitted.emit(self.definition.name, values, self.grid.text().strip())
