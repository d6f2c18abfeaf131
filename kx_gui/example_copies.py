"""The user's copies of kx's shipped examples (File ▸ Examples opens a copy, so a save
never writes kx's file). Each copy remembers the shipped text it was made from (the
sha256 in `.shipped.json` beside the copies): a copy the user never edited follows a newer
kx's example, and only a copy that differs from what it was made from is "edited" (a
first user was told an untouched copy of an older example was their edited copy)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

MANIFEST = ".shipped.json"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest(copies: Path) -> dict[str, str]:
    try:
        data = json.loads((copies / MANIFEST).read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def refresh(shipped_dir: Path, copies: Path, rel_dir: Path) -> None:
    """Copy every file of `shipped_dir` into `copies / rel_dir`: missing ones, and those
    the user has not edited since they were copied (a newer kx's text replaces them).
    Raises OSError."""
    folder = copies / rel_dir
    folder.mkdir(parents=True, exist_ok=True)
    made = _manifest(copies)
    for f in shipped_dir.iterdir():  # its siblings too: a header it includes, a baseline
        if not f.is_file():
            continue
        key = str(rel_dir / f.name)
        copy = folder / f.name
        now = _sha(f)
        if copy.exists():
            mine = _sha(copy)
            if mine == now:  # as shipped: nothing to copy
                made[key] = now
                continue
            if mine != made.get(key):  # the user's edit: kept
                continue
        shutil.copy2(f, copy)
        made[key] = now
    (copies / MANIFEST).write_text(json.dumps(made, indent=1, sort_keys=True), encoding="utf-8")


def edited(copy: Path, shipped: Path, copies: Path) -> bool:
    """Whether the user changed `copy` since it was made from the shipped text (without a
    record of that text: whether it differs from the shipped file now)."""
    try:
        rel = str(copy.resolve().relative_to(copies.resolve()))
        made = _manifest(copies).get(rel)
        return _sha(copy) != (made or _sha(shipped))
    except (OSError, ValueError):
        return False
