"""kx's shipped examples: File ▸ Examples (one section per kernel language), each opened
as the user's own copy, and Restore This Example as Shipped."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kx_core.base.data import cpp_examples, data_path, examples
from kx_core.records.languages import language_of
from kx_gui import example_copies
from kx_gui.recovery import state_dir
from kx_gui.trust import trust

# what the status line adds after a build of an edited copy (status_note)
EDITED_NOTE = " — your edited copy of the example (File ▸ Examples ▸ Restore This Example as Shipped)"


def shipped_relative(path: str) -> Path | None:
    """Where `path` is in kx's shipped examples folder, or None: not one of them."""
    try:
        return Path(path).resolve().relative_to(Path(data_path("examples")).resolve())
    except ValueError:
        return None


def install(window) -> Examples:
    return Examples(window)


class Examples:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        menus = window.menus
        self.menu = menus.add_menu("file.examples", "&Examples")
        # one section per kernel language (kx_core.records.languages), Triton's first
        by_language: dict[str, list] = {}
        for path in examples():
            lang = language_of(path.read_text(encoding="utf-8"), str(path))
            by_language.setdefault(lang.display_name, []).append(path)
        for title, paths in sorted(by_language.items(), key=lambda kv: kv[0] != "Triton"):
            self.menu.addSection(title)
            for path in paths:
                menus.add(self.menu, path.name, lambda _=False, p=str(path): self.open_example(p))
        self.menu.addSection("C++ CPU kernels")
        for path in cpp_examples():
            label = f"{path.parent.name}/{path.name}"
            menus.add(self.menu, label, lambda _=False, p=str(path): self.open_example(p))
        self.menu.addSeparator()
        menus.add(self.menu, "Restore This Example as Shipped", self.restore_example)
        # an example from the welcome page: a copy; another file there opens as it is
        window.welcome.open_requested.connect(self.open_example)

    def open_example(self, path: str) -> bool:
        """A shipped example opens as the user's own copy (in kx's state folder, beside
        the files it includes), so an edit and Ctrl+S never write kx's file (a first
        user's save did). The copy is made once: opening it again keeps the user's edits
        (a copy never edited follows a newer kx's example: kx_gui.example_copies)."""
        src = Path(path)
        rel = shipped_relative(path)
        if rel is None:  # not one of kx's examples: as it is
            return self.window.open_file(path)
        copies = state_dir() / "examples"
        folder = copies / rel.parent
        try:
            example_copies.refresh(src.parent, copies, rel.parent)
        except OSError as e:
            self.window.show_error(f"cannot copy the example to {folder}: {e.strerror or e}; opened kx's own")
            return self.window.open_file(path, trusted=True)
        trust(str(copies))  # kx's own examples
        note = f"your copy of the example: {copies / rel} (kx's own stays as shipped)"
        return self._open_with_note(str(copies / rel), note)

    def _open_with_note(self, path: str, note: str) -> bool:
        """open_file, with `note` on the status line now and after the compile's summary
        (which would replace it at once)."""
        window = self.window

        def after(_result) -> None:
            window.result_shown.disconnect(after)
            window.status_label.setText(f"{window.status_label.text()} — {note}")

        window.result_shown.connect(after)
        opened = window.open_file(path, trusted=True)
        if not opened:
            window.result_shown.disconnect(after)
        window.status_label.setText(note)
        return opened

    def shipped_example(self, path: str | None) -> Path | None:
        """kx's own file of which `path` is the user's copy (open_example), else None."""
        if not path:
            return None
        try:
            rel = Path(path).resolve().relative_to((state_dir() / "examples").resolve())
        except ValueError:
            return None
        shipped = Path(data_path("examples")) / rel
        return shipped if shipped.is_file() else None

    def edited_example(self) -> bool:
        """The open file is the user's copy of an example, and differs from kx's."""
        shipped = self.shipped_example(self.session.path)
        return shipped is not None and example_copies.edited(
            Path(self.session.path), shipped, state_dir() / "examples"
        )

    def status_note(self) -> str:
        """What a build's status line adds for the open file ('' unless an edited copy)."""
        return EDITED_NOTE if self.edited_example() else ""

    def restore_example(self) -> bool:
        """The open example's copy back to kx's shipped text. The user's text (saved or
        not) is kept beside it as NAME.edited-TIME.py: nothing is lost."""
        window = self.window
        copy = Path(self.session.path or "")
        shipped = self.shipped_example(self.session.path)
        if shipped is None:
            window.show_error("the open file is not a copy of one of kx's examples (File ▸ Examples)")
            return False
        kept = copy.with_name(f"{copy.stem}.edited-{time.strftime('%Y%m%d-%H%M%S')}{copy.suffix}")
        try:
            kept.write_text(window.editor.text(), encoding="utf-8")
            shutil.copy2(shipped, copy)
            example_copies.refresh(
                shipped.parent, state_dir() / "examples", copy.parent.relative_to(state_dir() / "examples")
            )
        except (OSError, ValueError) as e:
            window.show_error(f"cannot restore {copy.name}: {e.strerror or e}")
            return False
        # the shipped text as an edit of the document: Ctrl+Z brings the user's back
        # (kept in `kept` too); the reopen below keeps the editor's text and its history
        window.editor.restore_text(shipped.read_text(encoding="utf-8"))
        window.recovery.clear(str(copy))
        note = f"{copy.name} is as shipped again; your text is in {kept}"
        return self._open_with_note(str(copy), note)
