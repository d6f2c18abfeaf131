"""Trusted folders: opening a kernel file runs its code (capture runs it as `python
FILE` would), so the first file opened from a folder asks whether to trust that folder
(remembered, with every folder below it), or to show the file without running it. Files
named on the command line (`kx gui FILE`) and the shipped examples count as trusted: the
user asked for them by name, or they are kx's own."""

from __future__ import annotations

import json
import os

from kx_core.base.data import data_root
from kx_gui.settings import open_settings

KEY = "trusted_folders"


def trusted_folders() -> list[str]:
    value = open_settings().value(KEY, "")
    try:
        folders = json.loads(value) if value else []
    except ValueError:
        return []
    return [f for f in folders if isinstance(f, str)]


def trust(folder: str) -> None:
    folders = trusted_folders()
    folder = os.path.realpath(folder)
    if folder not in folders:
        open_settings().setValue(KEY, json.dumps([*folders, folder]))


def is_trusted(path: str) -> bool:
    real = os.path.realpath(path)
    roots = [*trusted_folders(), os.path.realpath(data_root())]
    return any(real == r or real.startswith(os.path.join(r, "")) for r in roots)
