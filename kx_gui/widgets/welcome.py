"""The welcome page: what kx is, the target it compiles for, recent files and the examples,
shown where the source goes until a file is open."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

ABOUT = (
    "<h2>kx — Kernel eXplorer</h2>"
    "<p>Open a Triton kernel file and click through its compilation: Python source → TTIR → "
    "TTGIR → LLVM IR → PTX → SASS, with lines linked across stages, every MLIR pass, the "
    "layouts (which lane owns which element), the roofline and the autotune configs. kx runs "
    "the file to capture its launches; it compiles for any target without a GPU. A C++ CPU "
    "kernel (AVX2, AVX-512, a torch extension) shows its x86 assembly with Compiler Explorer's "
    "filters and every loop's vectorization remark on its line.</p>"
)


def first_line_of_docstring(path: Path) -> str:
    """An example's one-line description (its module docstring's first paragraph; a C++
    file's leading `//` comment)."""
    if path.suffix != ".py":
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return ""
        lead = []
        for line in lines:
            if not line.startswith("//"):
                break
            lead.append(line.removeprefix("//").strip())
        return " ".join(lead).split(". ")[0].strip()
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError, ValueError):
        return ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def _example_name(path: Path) -> str:
    """`vector_add.py`; a C++ example with its folder (`cpu/rmsnorm_avx2.cpp`); a kernel
    language its file name does not tell named (`gluon_transpose.py (Gluon)`): the
    language table decides, as for any file, what a name alone would be."""
    from kx_core.records.languages import language_of

    name = path.name if path.suffix == ".py" else f"{path.parent.name}/{path.name}"
    try:
        lang = language_of(path.read_text(encoding="utf-8"), str(path))
    except OSError:
        return name
    # (a file of this name with nothing in it: Triton for `.py`, C++ for `.cpp`)
    by_name = language_of("", str(path))
    return name if lang.name == by_name.name else f"{name} ({lang.display_name})"


class WelcomePage(QWidget):
    open_requested = Signal(str)  # a path: a recent file or an example
    choose_requested = Signal()  # File ▸ Open…

    def __init__(self, recent: list[str], examples: list[Path], target: str, parent=None) -> None:
        super().__init__(parent)
        about = QLabel(ABOUT)
        about.setWordWrap(True)
        about.setTextFormat(Qt.TextFormat.RichText)
        self.target_label = QLabel()
        self.target_label.setWordWrap(True)
        self.set_target(target)
        open_button = QPushButton("Open a kernel file…")
        open_button.clicked.connect(self.choose_requested)
        self.recent = self._list([(p, p) for p in recent], "no recent files yet" if not recent else None)
        self.examples = self._list(
            [(f"{_example_name(p)} — {first_line_of_docstring(p)}", str(p)) for p in examples]
        )
        for i, p in enumerate(examples):  # the whole description on hover
            self.examples.item(i).setToolTip(f"{first_line_of_docstring(p)}\n{p}")
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addWidget(self.target_label)
        layout.addWidget(open_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(QLabel("<b>Recent files</b>"))
        layout.addWidget(self.recent, 1)
        layout.addWidget(QLabel("<b>Examples</b> (double-click to open)"))
        layout.addWidget(self.examples, 2)

    def _list(self, rows: list[tuple[str, str]], empty: str | None = None) -> QListWidget:
        box = QListWidget()
        for text, path in rows:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            box.addItem(item)
        if empty:
            box.addItem(QListWidgetItem(empty))
        box.itemActivated.connect(self._activated)
        return box

    def _activated(self, item: QListWidgetItem) -> None:
        path = item.data(Qt.ItemDataRole.UserRole)
        if path:
            self.open_requested.emit(path)

    def set_target(self, target: str) -> None:
        self.target_label.setText(
            f"<p>Target: <b>{target}</b> — change it in the Target menu (a local GPU, any CUDA "
            "architecture, or AMD's gfx942).</p>"
        )
