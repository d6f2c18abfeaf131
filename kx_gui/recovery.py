"""Autosaved unsaved edits, offered back after the app died (kill -9, power loss).

One JSON file per edited path, written a second after typing stops and removed on save
or on a clean close. Location: $KX_STATE_DIR/recovery, else ~/.local/state/kx/recovery.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RecoveredEdit:
    path: str
    text: str
    saved_at: float  # seconds since the epoch
    # the text a record or bundle carried, never saved to a file (Session.no_file): `path`
    # is only the name it was shown under, restored with no file and nothing run
    no_file: bool = False


def state_dir() -> Path:
    if env := os.environ.get("KX_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "kx"


class RecoveryStore:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or state_dir() / "recovery"

    def _file(self, path: str) -> Path:
        return self.folder / (hashlib.sha1(os.path.abspath(path).encode()).hexdigest() + ".json")

    def save(self, path: str, text: str, no_file: bool = False) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self._file(path)
        tmp = target.with_suffix(".tmp")
        doc = {"path": os.path.abspath(path), "text": text, "saved_at": time.time()}
        tmp.write_text(json.dumps(doc | ({"no_file": True} if no_file else {})))
        os.replace(tmp, target)

    def clear(self, path: str) -> None:
        try:
            self._file(path).unlink()
        except FileNotFoundError:
            pass

    def pending(self) -> list[RecoveredEdit]:
        """Every autosave left behind, newest first (unreadable entries are skipped)."""
        out = []
        for f in self.folder.glob("*.json") if self.folder.is_dir() else []:
            try:
                d = json.loads(f.read_text())
                out.append(
                    RecoveredEdit(d["path"], d["text"], float(d["saved_at"]), d.get("no_file") is True)
                )
            except (OSError, ValueError, KeyError):
                continue
        return sorted(out, key=lambda e: -e.saved_at)
