"""Unsaved edits a session that died left behind (kx_gui.recovery keeps them): offered
back at start, through the same trust question as opening their file."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QMessageBox


def install(window) -> Recovery:
    return Recovery(window)


class Recovery:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session

    @property
    def store(self):
        """The autosaves (kx_gui.recovery.RecoveryStore: the window's, which the source
        pane writes)."""
        return self.window.recovery

    def _same_as_on_disk(self, edit) -> bool:
        """An autosave whose text is the file's (the edit was undone, or saved elsewhere):
        nothing to recover, and it is removed."""
        try:
            with open(edit.path, encoding="utf-8", errors="replace") as f:
                same = f.read() == edit.text
        except OSError:
            return False
        if same:
            self.store.clear(edit.path)
        return same

    def offer_recovery(self, ask=None) -> bool:
        """Offer the newest autosave left by a session that died; True if restored.
        `ask(edit) -> bool` decides (default: a dialog)."""
        window, trust = self.window, self.window.features.trust
        pending = [e for e in self.store.pending() if not self._same_as_on_disk(e)]
        if not pending:
            return False
        edit = pending[0]

        def dialog(e) -> bool:
            answer = QMessageBox.question(
                window,
                "Recover unsaved edits",
                f"kx closed with unsaved edits to {e.path}. Restore them?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            )
            return answer == QMessageBox.StandardButton.Yes

        if not (ask or dialog)(edit):
            self.store.clear(edit.path)
            return False
        if edit.no_file:
            # a record's or bundle's text, never saved: it comes back as it was, with no
            # file and nothing run (its name is the record's word, not a trusted place)
            self.session.open_unsaved(edit.path, edit.text, running=False, no_file=True)
            window.status_label.setText(
                f"recovered text of {os.path.basename(edit.path)} from a record: saved nowhere (Ctrl+S asks where)"
            )
        elif os.path.exists(edit.path):
            # the same trust question as opening the file: restoring must not run a file
            # from a folder the user never trusted (the autosave stays for a later yes)
            run = trust.may_run(edit.path)
            if run is None or not trust.open_trusted(edit.path, run):
                return False
        else:
            # the file is gone (moved, deleted): the text comes back as an unsaved buffer;
            # Save recreates it. The same trust question first: its text runs as the file
            # would (a live compile of the restored edit), so never unasked
            run = trust.may_run(edit.path)
            if run is None:
                return False
            self.session.open_unsaved(edit.path, edit.text, running=run)
            window.status_label.setText(
                f"{edit.path} no longer exists: the recovered text is unsaved (Ctrl+S writes it)"
                + ("" if run else "; not run: its folder is not trusted")
            )
        window.editor.replace_text(edit.text)
        return True
