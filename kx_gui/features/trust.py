"""Whether a file's code may run: the trust question (kx_gui.trust keeps the answers),
File ▸ Open Without Running… and File ▸ Trust This Folder."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog, QMessageBox

from kx_core.cpu.targets import CPP_SOURCES
from kx_gui.trust import is_trusted, trust


def install(window) -> Trust:
    return Trust(window)


def ask_trust(window, folder: str) -> str:
    """'trust', 'source' (show the file, run nothing) or 'cancel' (the window's
    `ask_trust`, which tests replace)."""
    box = QMessageBox(window)
    box.setWindowTitle("Run this file's code?")
    box.setText(
        f"Opening a kernel file runs its code, as python FILE would, to capture its kernels.\n\n"
        f"Trust the folder {folder} (and the folders in it)?"
    )
    trust_button = box.addButton("Trust and run", QMessageBox.ButtonRole.AcceptRole)
    source_button = box.addButton("Open without running", QMessageBox.ButtonRole.RejectRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return "trust" if clicked is trust_button else "source" if clicked is source_button else "cancel"


class Trust:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        # the trust question's second answer as a menu entry: reading a file someone sent,
        # without running its code, should not need a folder kx has never seen
        window.menus.add("file.without-running", "Open &Without Running…", self.choose_file_without_running)
        window.menus.add("file.trust", "Trust This Folder", self.trust_this_folder)

    def choose_file_without_running(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open a kernel file without running it", "", "Python (*.py);;All files (*)"
        )
        if path:
            self.open_without_running(path)

    def open_without_running(self, path: str) -> bool:
        """Show a file's source and run none of its code, whatever its folder's trust."""
        files = self.window.features.files
        if self.window.editor.dirty and not files.confirm_discard():
            return False
        if files.is_ir_file(path):
            return files.open_ir_file(path)
        if path.endswith(CPP_SOURCES):  # g++ -S runs nothing of the file: compiled as usual
            return self.open_trusted(path, True)
        if files.is_record(path):  # what the record shows without running its code
            return files.open_record(path, run=False)
        opened = self.session.open_file(path, run=False)
        if opened:
            self.window.status_label.setText(
                "shown without running it (File ▸ Open Without Running): F5 runs it"
            )
        return opened

    def may_run(self, path: str, trusted: bool = False) -> bool | None:
        """Whether the file may run: True (trusted), False (shown, not run) or None (the
        user cancelled). A file from a folder not yet trusted asks (trust.py); a C++
        kernel is compiled (g++ -S), never run: no question. A record folder (an Inductor
        debug folder) is asked about itself; a file, about the folder it is in."""
        window = self.window
        if trusted or path.endswith(CPP_SOURCES) or is_trusted(path):
            return True
        if window.headless and not window.ask_in_headless:
            return window.headless_trusts  # no one to ask
        folder = os.path.abspath(path) if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        answer = window.ask_trust(folder)
        if answer == "cancel":
            return None
        if answer == "trust":
            trust(folder)
        return answer == "trust"

    def open_trusted(self, path: str, run: bool) -> bool:
        opened = self.session.open_file(path, run=run)
        if opened and not run:
            self.window.status_label.setText(
                "shown without running it: its folder is not trusted (File ▸ Trust This Folder runs it)"
            )
        return opened

    def trust_this_folder(self) -> None:
        if self.unsaved_record_text():
            return
        record = self.session.record
        if record is not None and record.code_not_run and not self.window.editor.dirty:  # its module run
            trust(record.path if os.path.isdir(record.path) else os.path.dirname(record.path))
            self.session.open_record(record.path, trusted=True)
            return
        if self.session.path:
            trust(os.path.dirname(self.session.path))
            self.session.running = True
            self.session.compile()

    def unsaved_record_text(self) -> bool:
        """The document is text a record or bundle carried, with no file (Session.no_file):
        nothing of it runs until it is saved where the user chooses (Ctrl+S asks), and
        then as that file's folder's trust decides, never the folder the record named.
        True (and said) when it is still not saved."""
        if not self.session.no_file or self.window.save():
            return False
        self.window.status_label.setText("not run: this text is not saved to a file yet (Ctrl+S asks where)")
        return True
