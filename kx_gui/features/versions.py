"""What the worker runs with: Target ▸ Triton Version (kx's own or one `kx versions add`
installed), Python Interpreter… and Worker Memory Limit…."""

from __future__ import annotations

import sys

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog


def install(window) -> Versions:
    return Versions(window)


class Versions:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        menus = window.menus
        self.menu = menus.add_menu("target.worker", "&Triton Version")
        # filled when opened: `kx versions add` in a terminal shows here without a restart
        self.menu.aboutToShow.connect(self.fill_versions)
        menus.add("target.worker", "Python &Interpreter…", self.choose_python)
        menus.add("target.worker", "Worker &Memory Limit…", self.choose_memory_limit)

    def fill_versions(self) -> None:
        """kx's own Triton, then each version kx manages (kx_core/base/triton_envs.py):
        choosing one compiles with that version's environment (its interpreter)."""
        from importlib.metadata import PackageNotFoundError, version

        from kx_core.base import triton_envs

        try:
            own = version("triton")  # its metadata: importing triton here costs the UI thread
        except PackageNotFoundError:
            own = "not installed"
        menu = self.menu
        menu.clear()
        group = QActionGroup(menu)
        choices = [(None, f"kx's own (triton {own})")]
        choices += [(e.python, f"triton {e.triton} (torch {e.torch})") for e in triton_envs.installed()]
        for python, label in choices:
            action = QAction(label, menu, checkable=True)
            action.setChecked(python == self.session.python)
            action.triggered.connect(lambda _=False, p=python: self.set_python(p))
            group.addAction(action)
            menu.addAction(action)
        menu.addSeparator()
        hint = menu.addAction("Add one: kx versions add 3.6.0 (in a terminal)")
        hint.setEnabled(False)
        self._version_actions = group  # kept alive with the menu

    def choose_python(self) -> None:
        """Run the file with another Python (the user's environment); Cancel keeps it,
        an empty choice goes back to kx's own."""
        start = self.session.python or sys.executable
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Python interpreter for the worker (Cancel: kx's own)", start
        )
        self.set_python(path or None)

    def set_python(self, path: str | None) -> None:
        self.window.settings.setValue("python", path or "")
        self.session.python = path
        self.window.status_label.setText(f"interpreter: {path or 'kx’s own'}")
        if self.session.path:
            self.session.compile()

    def choose_memory_limit(self) -> None:
        """The worker's address-space limit in MiB (0: none); running out of it is an
        out-of-memory diagnostic at the line that allocated."""
        from PySide6.QtWidgets import QInputDialog

        from kx_core.base.workers import default_memory_limit_mb

        current = self.session.memory_limit_mb
        value, ok = QInputDialog.getInt(
            self.window,
            "Worker memory limit",
            "MiB the worker may use (0: no limit):",
            default_memory_limit_mb() if current is None else current,
            0,
            1 << 24,
        )
        if ok:
            self.window.settings.setValue("memory_limit_mb", value)
            self.session.memory_limit_mb = value
