"""Bundles: File ▸ Export Bundle… writes the source and results on screen to one file
(kx_core.records.bundle) that another kx opens as it was; File ▸ Open Bundle… opens one."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog


def install(window) -> Bundles:
    return Bundles(window)


class Bundles:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        window.menus.add("file.bundles", "Export &Bundle…", self.choose_bundle_to_export)
        window.menus.add("file.bundles", "Open B&undle…", self.choose_bundle_to_open)

    def choose_bundle_to_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, "Export a bundle", self.bundle_proposal(), "kx bundles (*.kxb)"
        )
        if path:
            self.export_bundle(path)

    def bundle_proposal(self) -> str:
        """Where Export Bundle proposes to write: beside the file, named after it
        (`softmax.py` -> `softmax.kxb`); a document with no file (a trace's or bundle's
        source), in the home folder. (It proposed `kernel.kxb` in the app's current
        folder: the checkout, for a user who started it there.)"""
        name = os.path.splitext(os.path.basename(self.session.path or "kernel.py"))[0] + ".kxb"
        folder = os.path.dirname(self.session.path or "") if not self.session.no_file else ""
        return os.path.join(folder or os.path.expanduser("~"), name)

    def choose_bundle_to_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open a bundle", "", "kx bundles (*.kxb);;All files (*)"
        )
        if path:
            self.window.open_file(path)

    def export_bundle(self, path: str) -> bool:
        """One file with the source, target, options and results on screen (records/
        bundle.py) that another kx opens as it is here. The source written is the text the
        results were compiled from: the editor's (a live compile) or the file's."""
        from kx_core.records.build import content_hash
        from kx_core.records.bundle import write_bundle

        window = self.window
        result = self.session.result
        if result is None or result.build is None:
            window.show_error("nothing compiled to export: open a file and let it compile")
            return False
        if any(k.status == "compiling" for k in result.kernels):
            # a partial build on screen (its first kernel's first stage while Triton makes
            # the rest): not what another kx would open as this build
            window.show_error("still compiling: export once the build is done")
            return False
        candidates = [window.editor.text()]
        try:
            with open(result.file, encoding="utf-8") as f:
                candidates.append(f.read())
        except OSError:
            pass
        source = next(
            (t for t in candidates if content_hash(t.encode("utf-8")) == result.build.content), None
        )
        if source is None:
            window.show_error(
                "the text these results were compiled from is no longer at hand: compile again, then export"
            )
            return False
        try:
            write_bundle(path, source, result)
        except OSError as e:
            window.show_error(f"cannot write {path}: {e.strerror or e}")
            return False
        window.status_label.setText(f"bundle written: {path}")
        return True
