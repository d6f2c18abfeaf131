"""Keys and commands that act on a pane: View ▸ Find… (Ctrl+F) and Go to Line… (Ctrl+G) on
the pane they are meant for, and each pane's own View-menu commands (PaneSpec.actions)."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from kx_gui.pane_registry import PANES, WORKSPACE_BY_NAME


def install(window) -> PaneKeys:
    return PaneKeys(window)


class PaneKeys:
    def __init__(self, window) -> None:
        self.window = window
        menus = window.menus
        menus.add("view.keys", "Find…", self.find, QKeySequence.StandardKey.Find)
        menus.add("view.keys", "Go to Line…", self.go_to_line, QKeySequence("Ctrl+G"))
        for spec in PANES:
            for text, method, keys in spec.actions:
                menus.add(
                    "view.pane-actions",
                    text,
                    lambda _=False, n=spec.name, m=method: window.pane_action(n, m),
                    keys,
                )

    def go_to_line(self) -> None:
        pane = self.pane_for_keys("ask_line")
        if pane is not None:
            pane.ask_line()

    def find(self) -> None:
        pane = self.pane_for_keys("find_bar")
        if pane is not None:
            pane.find_bar.open()

    def pane_for_keys(self, having: str):
        """The pane a key (Ctrl+F, Ctrl+G) acts on: the one holding the focus when it has
        `having`, else the first shown pane on the right of this workspace that has it."""
        window = self.window
        focus = QApplication.focusWidget()
        for pane in window.panes.values():
            if focus is not None and pane.isAncestorOf(focus) and hasattr(pane, having):
                return pane
        ws = WORKSPACE_BY_NAME.get(window.workspace or "")
        order = (ws.right + ws.left_top + ws.left_bottom) if ws else tuple(window.panes)
        shown = [window.panes[n] for n in order if n in window.panes and window.docks[n].isVisible()]
        return next((p for p in shown if hasattr(p, having)), None)
