"""Source pane: the kernel file, editable, highlighted, with diagnostics on their lines.

Ctrl+S saves and recompiles. Clicking a line links it to what it became in every stage.
Edits are autosaved to a recovery file a second after typing stops (a failing autosave
says so in the window).

The pane watches its file. A change made outside kx reloads it (and recompiles) when
there are no unsaved edits, and asks when there are (keep mine / take theirs, the diff
shown); Save never overwrites a change on disk it has not shown. A reload keeps the trust
decision made for the file: one shown without running stays unrun.

Text a record or bundle carried (Session.no_file) has no file: nothing watches the name
it is shown under, and Save asks where it goes (ask_save_path), never that name.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QTimer, Signal
from PySide6.QtGui import QColor, QTextCursor
from PySide6.QtWidgets import QVBoxLayout

from kx_core.compile import CompileResult
from kx_core.compile.jobs.cache import file_hash as _hash_of  # None: it cannot be read now
from kx_core.cpu.remarks import MISSED, VECTOR_CODE, VECTORIZED, line_marks
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import EditorView, ask_and_go_to_line
from kx_gui.widgets.find_bar import FindBar
from kx_gui.widgets.heat import view_heat
from kx_gui.widgets.python_highlighter import PythonHighlighter
from kx_gui.widgets.token_styles import band_color

MARK_COLORS = {
    "syntax": QColor("#d32f2f"),
    "compile": QColor("#d32f2f"),
    "crash": QColor("#d32f2f"),
    "timeout": QColor("#ef6c00"),
    "runtime": QColor("#1976d2"),
}
# a C++ loop's vectorization remark in the gutter: vectorized, or not (and why, on hover);
# a loop written with vector intrinsics is neither (grey: GCC had nothing to vectorize)
LAYOUT_LINK = QColor("#d7ecff")  # the tint of a layout written in a Gluon source (a link)
REMARK_COLORS = {VECTORIZED: QColor("#43a047"), MISSED: QColor("#f9a825"), VECTOR_CODE: QColor("#90a4ae")}


LIVE_PAUSE_MS = 300  # the pause in typing after which the edited text compiles


class SourcePane(Pane):
    title = "Source"
    shows_build = False
    name = "source"
    listens = {
        "document_opened": "show_document",
        "result_changed": "show_diagnostics",
        "kernel_changed": "_kernel_changed",
        "link_changed": "_link_changed",
        "profiles.changed": "_show_heat",
        "line_requested": "go_to_line",
    }

    dirty_changed = Signal(bool)
    # the autosave's standing: a message while edits are not backed up, "" once they are
    # again; the window keeps it on screen, since compile progress rewrites the status line
    backup_state = Signal(str)

    def __init__(self, session, recovery=None, headless: bool = False, parent=None) -> None:
        super().__init__(session, parent)
        self.recovery = recovery
        self.headless = headless  # no one to ask (tests, --screenshot): edits are kept
        self.view = EditorView(read_only=False)
        self.highlighter = PythonHighlighter(self.view.document())
        self.find_bar = FindBar(lambda: self.view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addWidget(self.find_bar)
        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(1000)
        self._autosave.timeout.connect(self._save_recovery)
        # live recompile: the edited text compiles (unsaved, as the file) once typing has
        # paused this long; each keystroke restarts the wait, a new compile cancels the last
        self.live = True
        self._live = QTimer(self)
        self._live.setSingleShot(True)
        self._live.setInterval(LIVE_PAUSE_MS)
        self._live.timeout.connect(self._compile_live)
        self.view.document().modificationChanged.connect(self.dirty_changed)
        self.view.textChanged.connect(self._edited)
        # what the Arguments form compiles: the text on screen where it is not the file's
        session.unsaved_text = lambda: self.text() if self.dirty else None
        self.view.line_clicked.connect(self._line_clicked)
        self._loading = False
        self._autosave_failed = False
        self._layout_spans: dict[int, list[tuple[int, int]]] = {}
        # the file's content as last read or written here: a change on disk is a
        # different hash (our own save is not)
        self._disk_hash: str | None = None
        self._document_path: str | None = None  # the file whose text the editor shows
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._changed_on_disk)

    @property
    def dirty(self) -> bool:
        return self.view.document().isModified()

    def text(self) -> str:
        return self.view.toPlainText()

    def show_document(self, path: str, text: str) -> None:
        self._live.stop()
        self._loading = True
        self.highlighter.set_language(path)
        # the file shown again with the text already on screen (Restore This Example as
        # Shipped, after restore_text): kept, with its undo history; loading it again
        # cleared that, and Ctrl+Z could not bring the user's text back
        if path != self._document_path or text != self.text() or not self.view.fully_loaded:
            self.view.set_content(text)
        if path != self._document_path:
            self.find_bar.reset()  # another file: the last one's search goes with it
        self._document_path = path
        self.view.document().setModified(False)
        self._loading = False
        self.find_bar.forget()
        if self.session.no_file:  # the name is a record's word: no file of it is the text's
            self._watch(None)
            self._disk_hash = None
        else:
            self._watch(path)
            self._disk_hash = _hash_of(path) if text or os.path.exists(path) else None
        self._mark_layouts()

    def _watch(self, path: str | None) -> None:
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        if path is not None and os.path.exists(path):
            self.watcher.addPath(path)

    def _changed_on_disk(self, path: str) -> None:
        """The file changed outside kx (or was replaced: editors save by renaming)."""
        if path != self.session.path or self.session.no_file:
            return
        if os.path.exists(path) and path not in self.watcher.files():
            self.watcher.addPath(path)  # a rename-save drops the watch: watch the new file
        now = _hash_of(path)
        if now is None or now == self._disk_hash:
            return  # gone (a rename in progress), or our own save
        if not self.dirty:
            # nothing of the user's to lose: reload, and compile where the file may run (a
            # file shown without running stays so: a pull or a sync is no trust answer)
            self.session.open_file(path, run=self.session.running)
            return
        self._resolve_outside_change(path)

    def _resolve_outside_change(self, path: str) -> bool:
        """Unsaved edits and a changed file: the user chooses. True when the pane now
        holds what should be saved (theirs was taken, or mine kept knowingly)."""
        from kx_core.base.textfile import text_or_empty

        theirs = text_or_empty(path)
        if self.ask_outside_change(path, theirs) == "theirs":
            self.session.open_file(path, run=self.session.running)  # the trust decision kept
            return False
        self._disk_hash = _hash_of(path)  # shown and declined: Save may now overwrite it
        return True

    def ask_outside_change(self, path: str, theirs: str) -> str:
        """'mine' or 'theirs', for a file changed on disk while edits are unsaved (a
        dialog with the diff between them under Show Details)."""
        import difflib

        from PySide6.QtWidgets import QMessageBox

        if self.headless:
            self.session.compile_progress.emit(
                f"{os.path.basename(path)} changed on disk: your edits are kept"
            )
            return "mine"
        box = QMessageBox(self)
        box.setWindowTitle("File changed on disk")
        box.setText(f"{os.path.basename(path)} was changed outside kx, and you have unsaved edits.")
        diff = difflib.unified_diff(
            theirs.splitlines(), self.text().splitlines(), "on disk", "your edits", lineterm=""
        )
        box.setDetailedText("\n".join(diff))
        mine = box.addButton("Keep mine", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Take theirs", QMessageBox.ButtonRole.DestructiveRole)
        box.exec()
        return "mine" if box.clickedButton() is mine else "theirs"

    def restore_text(self, text: str) -> None:
        """Replace the whole text with `text` as one edit, which Ctrl+Z undoes (back to
        the text that was there), and count it as the file's text: the caller has just
        written `text` to the file."""
        self._loading = True  # no live compile or autosave of it: the file has this text
        cursor = QTextCursor(self.view.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
        self._loading = False
        self.view.document().setModified(False)
        self._disk_hash = _hash_of(self.session.path) if self.session.path else None

    def replace_text(self, text: str) -> None:
        """Put recovered text in the editor, as an unsaved edit."""
        self.view.setPlainText(text)
        self.view.document().setModified(True)

    def ask_save_path(self, name: str) -> str | None:
        """Where to save text with no file (a record's or bundle's copy): the user's
        choice, None when they cancel (headless: no one to ask, nothing written)."""
        if self.headless:
            self.session.error.emit(
                f"{name} is a record's text with no file of its own: not saved (Save asks where)"
            )
            return None
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getSaveFileName(self, f"Save {name} as", name, "All files (*)")
        return path or None

    def _save_as(self) -> bool:
        """Text with no file, saved where the user chooses; that file is the document now."""
        old = self.session.path or "kernel.py"
        chosen = self.ask_save_path(os.path.basename(old))
        if not chosen or not self._write_text(chosen):
            return False
        self.session.saved_as(chosen)
        self._document_path = self.session.path
        self._disk_hash = _hash_of(self.session.path)
        self._watch(self.session.path)
        self.view.document().setModified(False)
        self.dirty_changed.emit(False)  # the title names the new file
        if self.recovery is not None:
            self.recovery.clear(old)
        return True

    def _write_text(self, path: str) -> bool:
        """The editor's text into `path`; a failure is said, and False."""
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.text())
        except OSError as e:
            self.session.error.emit(f"cannot save {path}: {e.strerror or e}")
            return False
        return True

    def save(self) -> bool:
        """Write the editor's text to the file and recompile."""
        path = self.session.path
        if not path:
            return False
        if self.session.no_file:  # the name is the record's word, never where a save goes
            return self._save_as()
        self._live.stop()  # the save compiles what it writes
        on_disk = _hash_of(path)
        if on_disk is not None and self._disk_hash is not None and on_disk != self._disk_hash:
            # changed outside kx since it was read: never overwritten unseen
            if not self._resolve_outside_change(path):
                return False
        if not self._write_text(path):
            return False
        self._disk_hash = _hash_of(path)
        self._watch(path)
        self.view.document().setModified(False)
        if self.recovery is not None:
            self.recovery.clear(path)
        self.session.compile()
        return True

    def _edited(self) -> None:
        if self._loading:
            return
        # also when the edit made the text clean again (undone to the saved text): the
        # autosave then removes the backup, or the next start offers a stale "restore"
        self._autosave.start()
        if self.live:
            self._live.start()  # also an undo back to the saved text: the build is of a broken one

    def _compile_live(self) -> None:
        if not self.live:
            return
        text = self.text()
        if text == self.session.requested_text:
            return  # what is on screen (or compiling) is of this text already
        if self.dirty:
            self.session.compile_text(text)
        else:
            # undone back to the saved text: the file's own build (a cached one, at once),
            # not the last good build kept beside a broken text that is gone
            self.session.compile()

    def _save_recovery(self) -> None:
        if self.recovery is None or not self.session.path:
            return
        if not self.dirty:
            self.recovery.clear(self.session.path)
            self._set_backed_up()
            return
        try:
            self.recovery.save(self.session.path, self.text(), no_file=self.session.no_file)
        except OSError as e:
            message = (
                f"autosave failed ({e.strerror or e}: {self.recovery.folder}): your unsaved "
                "edits are not backed up; save them (Ctrl+S)"
            )
            if not self._autosave_failed:  # said once, until an autosave works again
                self.session.error.emit(message)
                self.backup_state.emit(message)
            self._autosave_failed = True
            return
        self._set_backed_up()

    def _set_backed_up(self) -> None:
        if self._autosave_failed:
            self.backup_state.emit("")
        self._autosave_failed = False

    def show_diagnostics(self, result: CompileResult) -> None:
        marks = {}
        for d in self.session.diagnostics_for_open_file():
            if d.line:
                # a fatal kind without a colour of its own (missing-extra, out-of-memory) is
                # red as a compile error is: grey read as a note
                colour = MARK_COLORS.get(d.kind, QColor("#d32f2f" if d.fatal else "#757575"))
                marks[d.line] = (colour, f"{d.kind}: {d.message}")
        self.view.set_marks(marks)
        self.view.set_gutter_marks(self._remark_marks(result))
        self._mark_layouts()

    def _remark_marks(self, result: CompileResult | None) -> dict:
        """Every loop's vectorization remark (a C++ file's Vectorization stages) on its line."""
        texts = [k.stages.get("vectorization", "") for k in (result.kernels if result else ())]
        return {line: (REMARK_COLORS[verdict], text) for line, (verdict, text) in line_marks(texts).items()}

    def _show_heat(self, _result=None) -> None:
        """The selected kernel's sampled source lines, as gutter bars."""
        heat, total = self.session.profiles.heat()
        self.view.set_heat(view_heat(heat.get("source", {}), total, self.session.editor_line))

    def _kernel_changed(self, kernel, source_map) -> None:
        self._show_heat()
        if source_map is None:
            self.view.set_bands({})
            return
        # in the editor's lines, coloured as the build's (the stages' bands): they differ
        # while a broken edit keeps the last good build on screen
        editor = self.session.editor_line
        self.view.set_bands(
            {
                editor(line): band_color(line)
                for line in source_map.mapped_source_lines()
                if editor(line) is not None
            }
        )
        self.view.set_emphasis(())

    def _line_clicked(self, line: int) -> None:
        self.session.select_source_line(line)
        if self._layout_spans:  # a Gluon file: its layouts are links to the Layout pane
            cursor = self.view.textCursor()
            col = cursor.positionInBlock() if cursor.blockNumber() + 1 == line else None
            self.session.request_source_layout(self.text(), line, col)

    def _mark_layouts(self, *_args) -> None:
        """The layouts a Gluon source writes, tinted: each is a link to the Layout pane
        (kx_core.layout.source_layouts). Redone for each opened file and each build."""
        from kx_core.layout.source_layouts import find_layout_calls
        from kx_core.records.languages import language_of

        text = self.text()
        spans: dict[int, list[tuple[int, int]]] = {}
        if language_of(text, self.session.path or "").source_layouts:
            lines = text.splitlines()
            for c in find_layout_calls(text):
                end = c.end_col if c.end_line == c.line else len(lines[c.line - 1])
                spans.setdefault(c.line, []).append((c.col, end - c.col))
        self._layout_spans = spans
        self.view.set_char_marks(spans, LAYOUT_LINK)

    def _link_changed(self, source_line, links) -> None:
        self.view.set_emphasis({source_line} if source_line else set())
        if source_line and source_line not in self.view.visible_lines():
            self.view.scroll_to_line(source_line)

    def ask_line(self) -> None:
        """Ctrl+G: ask for a line, go there and link it to the stages, as a click does."""
        line = ask_and_go_to_line(self, self.view)
        if line is not None:
            self._line_clicked(line)

    def go_to_line(self, line: int) -> None:
        self.view.go_to_line(line)
        self.view.setFocus()

    def title_for(self) -> str:
        name = os.path.basename(self.session.path or "untitled")
        saved_nowhere = " (a record's copy, not saved)" if self.session.no_file else ""
        return f"{name}{saved_nowhere}{' •' if self.dirty else ''}"
