"""Persistent settings: window geometry and dock layout, recent files, last target.

QSettings in an INI file under $KX_SETTINGS_DIR when set (tests use a temporary one),
else the platform's usual place for organisation "kx", application "kx"."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

MAX_RECENT = 10


def open_settings() -> QSettings:
    folder = os.environ.get("KX_SETTINGS_DIR")
    if folder:
        return QSettings(os.path.join(folder, "kx.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "kx", "kx")


def recent_files(settings: QSettings) -> list[str]:
    value = settings.value("recent", [])
    if isinstance(value, str):
        value = [value]
    return [p for p in (value or []) if isinstance(p, str)]


def add_recent(settings: QSettings, path: str) -> list[str]:
    path = os.path.abspath(path)
    files = [path] + [p for p in recent_files(settings) if p != path]
    files = files[:MAX_RECENT]
    settings.setValue("recent", files)
    return files
