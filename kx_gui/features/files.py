"""Opening files: File ▸ Open…, Open … Folder…, Open Recent, Save, Recompile (F5) and
Recompile as You Type; what a path opens as (a kernel file, a bundle, a record of a real
run, a Proton profile, IR) and the question about unsaved edits first."""

from __future__ import annotations

import os

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from kx_core.cpu.targets import CPP_SOURCES
from kx_gui.settings import add_recent, recent_files

# Files that are IR, not kernel sources: never run (open_ir_file). MLIR goes to the Playground.
MLIR_FILES = (".mlir", ".ttir", ".ttgir")
IR_FILES = (*MLIR_FILES, ".ll", ".llir", ".ptx", ".sass")

# record kinds whose kernels kx compiles from the Python module they hold (recorded.inductor_module)
RECOMPILED_KINDS = ("inductor-debug", "torch-trace")


def install(window) -> Files:
    return Files(window)


def ask_save_changes(window) -> str:
    """'save', 'discard' or 'cancel' for unsaved edits (the window's `ask_save_changes`,
    which tests replace)."""
    if window.headless:
        return "cancel"
    answer = QMessageBox.question(
        window,
        "Unsaved changes",
        f"Save the changes to {os.path.basename(window.session.path or '')}?",
        QMessageBox.StandardButton.Save
        | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel,
    )
    return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
        answer, "cancel"
    )


class Files:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        menus = window.menus
        menus.add("file.open", "&Open…", self.choose_file, QKeySequence.StandardKey.Open)
        menus.add(
            "file.records", "Open Triton Cache, Dump or Inductor Debug &Folder…", self.choose_record_folder
        )
        self.recent_menu = menus.add_menu("file.records", "Open &Recent")
        self.fill_recent()
        menus.add("file.save", "&Save", window.save, QKeySequence.StandardKey.Save)
        menus.add("file.compile", "Recompile", self.recompile, QKeySequence("F5"))
        # live recompile: the edited text compiles as you type (unsaved; the file on disk is
        # untouched until Ctrl+S); on by default, the choice kept
        self.live_action = QAction("Recompile as You Type", window, checkable=True)
        self.live_action.setChecked(str(window.settings.value("live", "true")) == "true")
        self.live_action.toggled.connect(self.set_live)
        menus.add_action("file.compile", self.live_action)
        self.set_live(self.live_action.isChecked())
        window.welcome.choose_requested.connect(self.choose_file)
        self.session.document_opened.connect(self._document_opened)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Open a kernel file",
            os.path.dirname(self.session.path) if self.session.path else "",  # beside the open file
            # the first filter holds every kind File ▸ Open reads: a trace was invisible
            # until a new user found the filter below
            "Kernel files, traces and profiles (*.py *.cpp *.cc *.cxx *.ndjson *.ndjson.gz *.json.gz *.log "
            "*.hatchet *.hatchet.json *.mlir);;"
            "Python (*.py);;C++ (*.cpp *.cc *.cxx);;"
            "tritonparse traces (*.ndjson *.ndjson.gz *.json.gz *.bin.ndjson);;"
            "TORCH_TRACE logs (*.log);;Proton profiles (*.hatchet *.hatchet.json);;"
            "MLIR, for the Playground (*.mlir);;All files (*)",
        )
        if path:
            self.open_file(path)

    def choose_record_folder(self) -> None:
        """A folder a real run left: a Triton cache (TRITON_CACHE_DIR, ~/.triton/cache), a
        dump folder (TRITON_KERNEL_DUMP) or an Inductor debug folder (TORCH_COMPILE_DEBUG);
        the file dialog of Open… cannot pick a folder."""
        path = QFileDialog.getExistingDirectory(
            self.window, "Open a Triton cache or dump folder, or an Inductor debug folder", ""
        )
        if path:
            self.open_file(path)

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        files = recent_files(self.window.settings)
        for path in files:
            self.window.menus.add(self.recent_menu, path, lambda _=False, p=path: self.open_file(p))
        self.recent_menu.setEnabled(bool(files))

    def _document_opened(self, path: str, _text: str) -> None:
        add_recent(self.window.settings, path)
        self.fill_recent()

    def open_file(self, path: str, trusted: bool = False, trust_record: bool = False) -> bool:
        """Open a kernel file (asks about unsaved edits first). A file from a folder not
        yet trusted asks first (trust.py); `trusted`: the user named it (command line).
        A bundle (.kxb) shows what it recorded, running nothing. A record whose module
        runs (an Inductor folder, a TORCH_TRACE log) asks about its folder even when named
        on the command line (`kx gui LOG`: its code is the sender's, not the user's file),
        unless `trust_record` (`kx gui --trust`)."""
        trust = self.window.features.trust
        if self.is_ir_file(path):
            return self.open_ir_file(path)
        if self.window.editor.dirty and not self.confirm_discard():
            return False
        if path.endswith(".kxb"):
            return self.session.open_bundle(path)
        if self.is_record(path):  # a real run's record: read, never run (no trust question)
            from kx_core.recorded.open_record import record_kind

            # a record of Inductor's source is compiled by running its output module under
            # kx's capture: that is running the record's code, asked as a file's is
            # ("Open without running" shows its kernels as the module's text names them)
            run = trust.may_run(path, trust_record) if record_kind(path) in RECOMPILED_KINDS else False
            return run is not None and self.open_record(path, run)
        run = trust.may_run(path, trusted)
        if run is None:
            return False
        return trust.open_trusted(path, run)

    def open_record(self, path: str, run: bool) -> bool:
        """A record of a real run (a Proton profile: beside the build on screen); `run`:
        an Inductor record's module may run (the user trusts it)."""
        from kx_core.recorded.open_record import record_kind

        kind = record_kind(path)
        if kind == "proton":
            return self.open_profile(path)
        opened = self.session.open_record(path, trusted=run)
        if opened and kind in RECOMPILED_KINDS and not run:
            self.window.status_label.setText(
                "shown without running its module: its kernels are listed from its text "
                "(F5 or File ▸ Trust This Folder runs it)"
            )
        return opened

    def open_profile(self, path: str) -> bool:
        """A Proton profile: shown in the Bench pane's Hot lines beside the build on screen,
        its heat drawn on the lines of that build's kernels of the same names (nothing
        runs, and the document stays: a profile holds no kernels of its own)."""
        from kx_core.recorded.open_record import NotARecord, open_record

        try:
            profile = open_record(path).profile
        except NotARecord as e:
            self.window.show_error(str(e))
            return False
        result = self.session.result
        names = {k.name for k in (result.kernels if result else ())}
        joined = [k.kernel for k in profile.kernels if k.kernel in names]
        self.window.show_pane("bench")
        self.window.pane("bench").show_profile(profile, self.session.build if joined else None)
        self.window.status_label.setText(
            f"{os.path.basename(path)}: a Proton profile of {len(profile.kernels)} kernel(s); "
            + (
                f"{len(joined)} of them joined by name to the kernels on screen"
                if joined
                else "none is a kernel on screen (open their file or record first to see their hot lines)"
            )
        )
        return True

    @staticmethod
    def is_ir_file(path: str) -> bool:
        """Compiler output or MLIR, never run (open_ir_file)."""
        return path.lower().endswith(IR_FILES)

    @staticmethod
    def is_record(path: str) -> bool:
        """A Triton cache or dump folder or a tritonparse trace, by its content (a kernel
        file's suffix is not read: a .py or C++ file is a kernel file)."""
        if path.endswith((".py", *CPP_SOURCES)):
            return False
        from kx_core.recorded.open_record import record_kind

        return record_kind(path) is not None

    def open_ir_file(self, path: str) -> bool:
        """An IR file is not a kernel source and is never run: MLIR opens in the Labs
        Playground (triton-opt passes, RUN lines), LLVM IR/PTX/SASS get a message that
        says where kx takes them (run as Python, a first user's .mlir was a SyntaxError)."""
        if path.lower().endswith(MLIR_FILES):
            self.window.show_pane("playground")
            opened = self.window.playground_pane.load(path)
            if opened:
                self.window.status_label.setText(
                    f"{os.path.basename(path)} opened in the Playground (Labs): MLIR is run through "
                    "triton-opt passes there, not as a kernel file"
                )
            return opened
        self.window.show_error(
            f"{os.path.basename(path)} is compiler output (LLVM IR, PTX or SASS), not a kernel source: "
            "kx opens Triton .py and C++ files and shows these stages from their compile; "
            "MLIR (.mlir) opens in the Playground (Labs workspace)"
        )
        return False

    def confirm_discard(self) -> bool:
        """The unsaved edits saved or dropped as the user answers; False: cancelled."""
        choice = self.window.ask_save_changes()
        if choice == "save":
            return self.window.save()
        if choice == "discard" and self.session.path:
            self.window.recovery.clear(self.session.path)
        return choice == "discard"

    def set_live(self, on: bool) -> None:
        self.window.settings.setValue("live", "true" if on else "false")
        self.window.editor.live = on
        self.session.compiles_as_typed = on

    def recompile(self) -> None:
        """F5: compile what the editor shows. Unsaved edits are saved first (through the
        same check as Ctrl+S: a change on disk is never overwritten unseen); without
        edits, the file is compiled for real even when a result is cached. A file shown
        without running runs now, once its folder is trusted (the question is asked where
        it is not: F5 did nothing, silently)."""
        window, trust = self.window, self.window.features.trust
        if trust.unsaved_record_text():
            return
        record = self.session.record
        if record is not None and record.code_not_run and not window.editor.dirty:  # shown, not run
            run = trust.may_run(record.path)
            if run:
                self.session.open_record(record.path, trusted=True)
            else:
                window.status_label.setText("not run: its folder is not trusted (File ▸ Trust This Folder)")
            return
        if not self.session.running and self.session.path:
            run = trust.may_run(self.session.path)
            if not run:
                window.status_label.setText("not run: its folder is not trusted (File ▸ Trust This Folder)")
                return
            self.session.running = True
        if window.editor.dirty:
            window.editor.save()
        else:
            self.session.compile(use_cache=False)
