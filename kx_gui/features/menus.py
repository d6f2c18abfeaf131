"""The window's menus by name, each a row of named places that the window and the features
fill: an action added to a place goes after what that place holds and before the next
place's, whatever order the features are installed in. A feature names the place its
actions go ("file.bundles"), never the actions around it.

    menus = Menus(window, {"file": ("&File", "open bundles - quit")})
    menus.add("file.bundles", "Export &Bundle…", feature.choose_bundle_to_export)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

# a menu's name -> (its title, its places in order, space-separated; "-" is a separator)
Layout = dict[str, tuple[str, str]]


class Menus:
    """The menu bar's menus, built empty from a layout; `add`, `add_action`, `add_menu` and
    `add_separator` put entries in a place ("menu.place") or at the end of a submenu."""

    def __init__(self, window: QMainWindow, layout: Layout) -> None:
        self.window = window
        self.menus: dict[str, QMenu] = {}
        # "menu.place" -> the entries placed there, in order
        self._held: dict[str, list[QAction]] = {}
        self._order: dict[str, list[str]] = {}  # menu -> its places' keys, in order
        for name, (title, places) in layout.items():
            menu = window.menuBar().addMenu(title)
            self.menus[name] = menu
            self._order[name] = []
            for i, place in enumerate(places.split()):
                key = f"{name}.{place}" if place != "-" else f"{name}.-{i}"
                self._order[name].append(key)
                self._held[key] = [menu.addSeparator()] if place == "-" else []

    def menu(self, name: str) -> QMenu:
        return self.menus[name]

    def add_action(self, where: str | QMenu, action: QAction) -> QAction:
        """Put a made action (checkable, in a group) in a place, or at a submenu's end."""
        if isinstance(where, QMenu):
            where.addAction(action)
            return action
        if where not in self._held:
            raise KeyError(f"no menu place {where!r}: the window's MENUS lists them")
        name = where.split(".", 1)[0]
        order = self._order[name]
        later = (self._held[k] for k in order[order.index(where) + 1 :])
        before = next((held[0] for held in later if held), None)
        menu = self.menus[name]
        if before is None:
            menu.addAction(action)
        else:
            menu.insertAction(before, action)
        self._held[where].append(action)
        return action

    def add(
        self,
        where: str | QMenu,
        text: str,
        slot: Callable,
        shortcut: QKeySequence | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        """A new action of the window's, triggering `slot`, put in `where`."""
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        return self.add_action(where, action)

    def add_menu(self, where: str, title: str) -> QMenu:
        """A submenu put in a place (its parent the menu it is in, as QMenu.addMenu makes)."""
        submenu = QMenu(title, self.menus[where.split(".", 1)[0]])
        self.add_action(where, submenu.menuAction())
        return submenu

    def add_separator(self, where: str) -> QAction:
        separator = QAction(self.menus[where.split(".", 1)[0]])
        separator.setSeparator(True)
        return self.add_action(where, separator)
