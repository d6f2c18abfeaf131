"""File ▸ Export Repro Script…: a standalone script that compiles the kernel selected in the
Kernels pane as the capture did and checks Triton's hash (kx_core.lab.repro; `kx repro`
on the command line), for a GPU machine with torch and triton only."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog


def install(window) -> ReproExport:
    return ReproExport(window)


class ReproExport:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self.action = window.menus.add("file.repro", "Export &Repro Script…", self.choose_script_to_export)
        self.action.setEnabled(False)
        self.action.setToolTip("a script that compiles the selected kernel as captured, on a GPU machine")
        self.session.kernel_changed.connect(self._kernel_changed)

    def _kernel_changed(self, kernel, _source_map) -> None:
        self.action.setEnabled(kernel is not None and kernel.status == "compiled")

    def script_proposal(self) -> str:
        """Beside the file, named after it and the kernel (`softmax.py`, `softmax_kernel`
        -> `softmax_softmax_kernel_repro.py`); in the home folder for a document with no file."""
        kernel = self.session.kernel
        stem = os.path.splitext(os.path.basename(self.session.path or "kernel.py"))[0]
        name = f"{stem}_{kernel.name if kernel else 'kernel'}_repro.py"
        folder = os.path.dirname(self.session.path or "") if not self.session.no_file else ""
        return os.path.join(folder or os.path.expanduser("~"), name)

    def choose_script_to_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, "Export a repro script", self.script_proposal(), "Python scripts (*.py)"
        )
        if path:
            self.export_script(path)

    def export_script(self, path: str) -> bool:
        """Write the repro of the selected kernel to `path`; False (said in the status bar
        or a message box) where there is none to write."""
        from kx_core.lab.repro import make_repro
        from kx_core.lab.repro_types import ReproError

        window, result, kernel = self.window, self.session.result, self.session.kernel
        if result is None or kernel is None:
            window.show_error("no kernel selected: select a compiled kernel in the Kernels pane")
            return False
        sources = self._compiled_text(result)
        if sources is None:
            window.show_error(
                "the text these results were compiled from is no longer at hand: compile again, then export"
            )
            return False
        try:
            repro = make_repro(result, kernel, sources)
        except ReproError as e:
            window.show_error(f"no repro script for {kernel.display_name}: {e}")
            return False
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(repro.script)
        except OSError as e:
            window.show_error(f"cannot write {path}: {e.strerror or e}")
            return False
        window.status_label.setText(
            f"repro script written: {path} ({repro.mode} mode, expected hash {repro.expected_hash[:12]}…)"
        )
        return True

    def _compiled_text(self, result) -> dict[str, str] | None:
        """The document's text the results were compiled from, by its path (the editor's
        unsaved text, the text of the last good build or the file: the one whose hash is
        the build's); {} where the result names no content; None where none matches."""
        from kx_core.records.build import content_hash

        candidates = [self.session.build_text, self.window.editor.text()]
        try:
            with open(result.file, encoding="utf-8") as f:
                candidates.append(f.read())
        except OSError:
            pass
        texts = [t for t in candidates if t is not None]
        if result.build is None:
            return {}
        found = next((t for t in texts if content_hash(t.encode("utf-8")) == result.build.content), None)
        if found is None:
            return None
        return {result.file: found, os.path.abspath(result.file): found}
