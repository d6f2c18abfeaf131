"""View ▸ Display Filters: Compiler Explorer's filters for the stage views (the links stay
exact), each kept in the settings."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QAction

from kx_core.ir.display_filters import DisplayFilters

# (DisplayFilters field, menu text): saved as settings "filters/<field>"
FILTERS = (
    ("hide_locations", "Hide Locations and Debug Info (loc, #loc, !dbg, .loc)"),
    ("hide_line_comments", "Hide SASS Line Comments (//## File …)"),
    ("shorten_paths", "Shorten Paths"),
    ("hide_directives", "Hide Assembler Directives and Debug Labels (.cfi, .p2align, .LBB)"),
    ("hide_comment_lines", "Hide Comment-Only Lines (C++ assembly)"),
    ("demangle", "Demangle C++ Names"),
    ("hide_unused_labels", "Hide Unused Labels (C++ assembly)"),
    ("hide_library_functions", "Hide Library Functions (C++: defined outside your files)"),
)


def install(window) -> Filters:
    return Filters(window)


class Filters:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        menu = window.menus.add_menu("view.filters", "Display &Filters")
        values = {}
        for field, text in FILTERS:
            value = window.settings.value(f"filters/{field}", True)
            values[field] = value if isinstance(value, bool) else str(value).lower() == "true"
            action = QAction(text, window, checkable=True)
            action.setChecked(values[field])
            action.toggled.connect(lambda on, f=field: self.set_display_filter(f, on))
            menu.addAction(action)
        self.session.set_display_filters(DisplayFilters(**values))

    def set_display_filter(self, field: str, on: bool) -> None:
        self.window.settings.setValue(f"filters/{field}", on)
        self.session.set_display_filters(replace(self.session.display_filters, **{field: on}))
