"""The four workspaces (kx_gui.pane_registry.WORKSPACES): the toolbar, View ▸ Workspace
(Ctrl+1 to Ctrl+4) and View ▸ Reset Layout of This Workspace; each workspace's default
arrangement of the docks, and the arrangement the user left it in, saved."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QStyle, QTabBar, QToolBar

from kx_gui.pane_registry import BY_NAME, WORKSPACE_BY_NAME, WORKSPACES, Workspace

# The saved arrangements' format (QMainWindow.saveState's version): the panes a state
# knew are saved beside it, so a pane added to kx later does not discard the user's layouts.
STATE_FORMAT = 2


def install(window) -> Workspaces:
    return Workspaces(window)


class Workspaces:
    def __init__(self, window) -> None:
        self.window = window
        self.current: str | None = None  # the workspace on screen
        self.states: dict[str, QByteArray] = {}  # the arrangement each left behind (saveState)
        window.menus.add("view.workspaces", "Reset Layout of This Workspace", self.reset_layout)
        bar = window.addToolBar("Workspaces")
        bar.setObjectName("workspaceBar")
        bar.setMovable(False)
        menu = window.menus.add_menu("view.workspaces", "&Workspace")
        self.group = QActionGroup(window)
        self.group.setExclusive(True)
        for i, ws in enumerate(WORKSPACES, start=1):
            action = QAction(ws.title, window, checkable=True)
            action.setData(ws.name)
            action.setShortcut(QKeySequence(f"Ctrl+{i}"))
            action.setToolTip(f"{ws.title} (Ctrl+{i}): {ws.tip}")
            action.triggered.connect(lambda _=False, n=ws.name: self.set_workspace(n))
            self.group.addAction(action)
            bar.addAction(action)
            menu.addAction(action)

    def restore(self, saved: str) -> None:
        """The workspace the user left (the window's first show), else Explore."""
        self.set_workspace(saved if saved in WORKSPACE_BY_NAME else "explore")

    def set_workspace(self, name: str) -> None:
        """Show workspace `name`: the arrangement it was left in, or its default. The
        session (file, kernel, selected line) is the same in every workspace."""
        window = self.window
        if name == self.current:
            return
        if self.current is not None:
            self.states[self.current] = window.saveState(STATE_FORMAT)
        self.current = name
        self._park_tab_bars()
        state, known = self.states.get(name), set(window.docks)
        if state is None:
            saved = window.settings.value(f"workspace/{name}")
            state = saved if isinstance(saved, QByteArray) else None
            known = set(str(window.settings.value(f"workspace/{name}/panes", "")).split(","))
        # a state of another format is refused (Qt checks the version); one saved before
        # a pane existed is kept, and the new pane takes its default place
        if state is None or not window.restoreState(state, STATE_FORMAT):
            arrange(window, WORKSPACE_BY_NAME[name])
        else:
            self._place_new_panes(WORKSPACE_BY_NAME[name], known)
        for action in self.group.actions():
            action.setChecked(action.data() == name)
        window.settings.setValue("workspace", name)

    def _park_tab_bars(self) -> None:
        """Move the window's dock tab bars off screen before a workspace is arranged:
        the layout then places again the bars of the tab groups it shows. Qt places only
        a shown group's bar, and a group whose docks are all hidden or moved away
        (Explore's Kernels, Problems, Output, once Performance hides Problems and
        regroups the other two) kept its old bar where it was, drawn under the new one,
        its tabs showing past the new bar's last: a ghost tab."""
        for bar in self.window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.move(-500 - bar.width(), -500 - bar.height())  # where Qt parks a bar it does not show

    def _place_new_panes(self, ws: Workspace, known: set[str]) -> None:
        """After a saved arrangement: each pane it did not know (added to kx since) goes
        where the workspace puts it by default (tabbed with its group), or is hidden."""
        docks = self.window.docks
        for name in [n for n in docks if n not in known]:
            group = next((g for g in (ws.left_top, ws.left_bottom, ws.right) if name in g), None)
            anchor = next((n for n in group or () if n in known and docks[n].isVisible()), None)
            if anchor is None:
                docks[name].hide()
                continue
            self.window.tabifyDockWidget(docks[anchor], docks[name])
            docks[name].show()

    def reset_layout(self) -> None:
        """The current workspace's default arrangement, forgetting the saved one."""
        if self.current is None:
            return
        self.states.pop(self.current, None)
        self.window.settings.remove(f"workspace/{self.current}")
        arrange(self.window, WORKSPACE_BY_NAME[self.current])

    def save(self) -> None:
        """Every workspace's arrangement into the settings, with the panes it knew (the
        window is closing)."""
        window = self.window
        if self.current is not None:
            self.states[self.current] = window.saveState(STATE_FORMAT)
        for name, state in self.states.items():
            window.settings.setValue(f"workspace/{name}", state)
            window.settings.setValue(f"workspace/{name}/panes", ",".join(window.docks))


def arrange(window, ws: Workspace) -> None:
    """The workspace's default arrangement of the window's docks (pane_registry.WORKSPACES)."""
    docks = window.docks
    left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
    for name, dock in docks.items():
        if name not in ws.panes:
            dock.hide()
    groups = [g for g in (ws.left_top, ws.left_bottom, ws.right) if g]
    # placed and tabbed while hidden, shown after: shown as each was added, a group's
    # docks stood stacked for a moment and their summed minimum heights grew the
    # window at once (Labs: four panes, 1280x920 on a 1280x800 screen, never shrunk)
    for names in groups:
        area = right if names is ws.right else left
        for n in names:
            # taken out first: moved from a tab group straight into a new one, a dock
            # left a second bar for that new group, drawn under it (Qt's tabify)
            window.removeDockWidget(docks[n])
            window.addDockWidget(area, docks[n])
    if ws.left_top and ws.left_bottom:
        window.splitDockWidget(docks[ws.left_top[0]], docks[ws.left_bottom[0]], Qt.Orientation.Vertical)
    for names in groups:
        for n in names[1:]:
            window.tabifyDockWidget(docks[names[0]], docks[n])
    for names in groups:
        for n in names:
            docks[n].show()
        docks[names[0]].raise_()
    for name in ws.panes:  # a C++ kernel has no roofline or autotune: Bench is its page
        if BY_NAME[name].front_for and (window.session.path or "").endswith(BY_NAME[name].front_for):
            docks[name].raise_()
    width, height = window.width(), window.height()
    # the docks' share of the height: what the menu, tool and status bars leave (sizes
    # over it made Qt grow the window past the screen)
    chrome = window.menuBar().sizeHint().height() + window.statusBar().sizeHint().height()
    chrome += sum(bar.sizeHint().height() for bar in window.findChildren(QToolBar))
    height = max(200, height - chrome - 2 * window.style().pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight))
    if ws.right and (ws.left_top or ws.left_bottom):
        first_left = docks[(ws.left_top or ws.left_bottom)[0]]
        window.resizeDocks(
            [first_left, docks[ws.right[0]]],
            [width * 45 // 100, width * 55 // 100],
            Qt.Orientation.Horizontal,
        )
    if ws.left_top and ws.left_bottom:
        window.resizeDocks(
            [docks[ws.left_top[0]], docks[ws.left_bottom[0]]],
            [height * 2 // 3, height // 3],
            Qt.Orientation.Vertical,
        )
