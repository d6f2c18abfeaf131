"""The window hosts and the features register (issue 53): each feature module installs its
own actions in named menu places, whose order is the window's table, not the order the
features happen to be installed in; main_window.py stays a host."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMainWindow, QMenu

from kx_gui import features
from kx_gui.features.menus import Menus
from kx_testing import ROOT

LAYOUT = {"file": ("&File", "open bundles - quit"), "view": ("&View", "docks filters")}


def _entries(menu: QMenu) -> list[str]:
    return ["----" if a.isSeparator() else a.text() for a in menu.actions()]


def _fill(menus: Menus, order: list[str]) -> None:
    adds = {
        "open": lambda: menus.add("file.open", "Open", lambda: None),
        "bundles": lambda: (
            menus.add("file.bundles", "Export Bundle", lambda: None),
            menus.add("file.bundles", "Open Bundle", lambda: None),
        ),
        "quit": lambda: menus.add("file.quit", "Quit", lambda: None),
        "filters": lambda: menus.add_menu("view.filters", "Display Filters").addAction("Shorten Paths"),
    }
    for name in order:
        adds[name]()


@pytest.mark.parametrize(
    "order", [["open", "bundles", "quit", "filters"], ["quit", "filters", "bundles", "open"]]
)
def test_menu_places_keep_the_tables_order_whatever_the_install_order(qtbot, order):
    window = QMainWindow()
    qtbot.addWidget(window)
    menus = Menus(window, LAYOUT)
    _fill(menus, order)
    assert _entries(menus.menu("file")) == ["Open", "Export Bundle", "Open Bundle", "----", "Quit"]
    assert _entries(menus.menu("view")) == ["Display Filters"]
    with pytest.raises(KeyError, match="no menu place"):
        menus.add("file.nowhere", "Lost", lambda: None)


def test_every_feature_is_installed_and_the_window_only_hosts(make_window):
    w = make_window()
    for module in features.FEATURES:
        name = module.__name__.rsplit(".", 1)[1]
        assert getattr(w.features, name) is not None, name
    lines = (ROOT / "kx_gui" / "main_window.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"main_window.py has {lines} lines: a new action belongs in a feature"
