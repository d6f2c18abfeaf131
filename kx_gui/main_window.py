"""The main window: dockable panes, menus, status bar with progress and Cancel.

Layout, geometry, recent files and the last target persist in QSettings. Dropping a
file on the window opens it. With `headless=True` no dialog is ever shown (errors go
to stderr and to the Problems pane), for --screenshot and tests.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QStyle,
    QTabBar,
    QToolBar,
    QWidget,
)

from kx_core.base.data import cpp_examples, examples
from kx_core.base.words import counted
from kx_core.compile import CompileResult
from kx_core.compile.capturing.capture_device import target_for_gpu
from kx_core.cpu.targets import CPP_SOURCES, CPU_TARGETS
from kx_core.ir.display_filters import DisplayFilters, hidden_by_library_filter
from kx_core.model.gpu import SPECS
from kx_core.records.backends import backend_of
from kx_core.records.languages import language_of
from kx_core.records.target import DEFAULT_TARGET, KNOWN_TARGETS, default_spec, local_target
from kx_gui.pane_registry import (
    BY_NAME,
    EDITOR,
    PANES,
    WORKSPACE_BY_NAME,
    WORKSPACES,
    PaneSpec,
    Workspace,
    prefetch_pane_modules,
)
from kx_gui.panes.base import Pane
from kx_gui.recovery import RecoveryStore
from kx_gui.session import Session
from kx_gui.settings import add_recent, open_settings, recent_files
from kx_gui.trust import is_trusted, trust
from kx_gui.widgets.plot_warmup import warm_up_plots
from kx_gui.widgets.welcome import WelcomePage

# Files that are IR, not kernel sources: never run (open_ir_file). MLIR goes to the Playground.
MLIR_FILES = (".mlir", ".ttir", ".ttgir")
IR_FILES = (*MLIR_FILES, ".ll", ".llir", ".ptx", ".sass")

MIN_WIDTH, MIN_HEIGHT = 1280, 800
# the panes not shown at start are built one at a time, this long after the window shows
# and this far apart (each is one short stall: _prebuild_next_pane)
PREBUILD_AFTER_MS, PREBUILD_GAP_MS = 1500, 120

# The saved arrangements' format (QMainWindow.saveState's version): the panes a state
# knew are saved beside it, so a pane added to kx later does not discard the user's layouts.
STATE_FORMAT = 2


# record kinds whose kernels kx compiles from the Python module they hold (recorded.inductor_module)
RECOMPILED_KINDS = ("inductor-debug", "torch-trace")


class MainWindow(QMainWindow):
    """Open a file, compile it in the background, browse its kernels' stages."""

    result_shown = Signal(object)  # CompileResult, once every pane has it

    def __init__(self, target: str | None = None, headless: bool = False, warm: bool | None = None) -> None:
        super().__init__()
        # the cyclic GC must not run in a worker thread (see gc_guard)
        from PySide6.QtWidgets import QApplication

        from kx_gui import gc_guard

        gc_guard.install(QApplication.instance())
        # workers (warm server, compiles, the service child) yield the CPU to the window's
        # thread (kx_core.base.lifeline): on two cores, a warm worker importing torch
        # stalled the window for 30-50 ms in its first seconds
        os.environ.setdefault("KX_WORKER_NICE", "5")
        self.headless = headless
        # headless windows (tests, --screenshot) trust every file unless a test asks; with
        # no one to ask, `headless_trusts` False runs nothing a folder's trust decides
        # (`kx gui RECORD --screenshot`: app.py)
        self.ask_in_headless = False
        self.headless_trusts = True
        self.settings = open_settings()
        self.session = self._open_session(target, headless, warm)
        self.recovery = RecoveryStore()
        self.setWindowTitle("kx — Kernel eXplorer")
        self.resize(MIN_WIDTH, MIN_HEIGHT)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self._build_docks()
        # arranged once before the window is shown: Qt sizes a window to its layout's
        # minimum at show(), and with every dock still stacked that was 946 px tall (on a
        # 1280x800 screen); showEvent arranges the saved workspace with its dock sizes
        self._arrange(WORKSPACE_BY_NAME["explore"])
        self._build_status_bar()
        self._build_menus()
        self.editor.dirty_changed.connect(self._update_title)
        self.editor.backup_state.connect(self._show_backup_state)
        self._connect_session()
        self.last_error: str | None = None
        self._layout_done = False

    # ------------------------------------------------------------ building

    def _open_session(self, target: str | None, headless: bool, warm: bool | None) -> Session:
        """The session with the saved target, GPU, python and memory limit."""
        target = target or self.settings.value("target", "default")
        session = Session(target=target, parent=self)
        session.gpu = self.settings.value("gpu", "") or None
        session.python = self.settings.value("python", "") or None
        limit = self.settings.value("memory_limit_mb", "")
        session.memory_limit_mb = int(limit) if str(limit).isdigit() else None
        # a warm worker from the start (edits then compile without paying the imports);
        # headless windows (tests, --screenshot) only when asked
        session.warm_workers = (not headless) if warm is None else warm
        session.ensure_warm_worker()
        return session

    def _build_docks(self) -> None:
        """Every pane is a dock; the central area is left empty so all of them can move.
        Which are shown, and where, is the workspace's (set_workspace)."""
        placeholder = QWidget()
        placeholder.setMaximumSize(0, 0)
        self.setCentralWidget(placeholder)
        self.panes: dict[str, Pane] = {}
        self.docks: dict[str, QDockWidget] = {}
        for spec in PANES:
            self._add_dock(spec)
        # the welcome page stands where the source goes until a file is open
        self.welcome = WelcomePage(
            recent_files(self.settings), examples() + cpp_examples(), self._target_text()
        )
        self.welcome.open_requested.connect(self.open_example)  # an example: a copy; else as it is
        self.welcome.choose_requested.connect(self.choose_file)
        self.source_stack = QStackedWidget()
        self.source_stack.addWidget(self.welcome)
        self.source_stack.addWidget(self.editor)
        self.docks[EDITOR].setWidget(self.source_stack)
        # the workspace on screen, and the arrangement each left behind (saveState)
        self.workspace: str | None = None
        self._workspace_states: dict[str, QByteArray] = {}

    def _connect_session(self) -> None:
        s = self.session
        # a request a pane answers builds that pane if it is not there yet
        for spec in PANES:
            for signal in spec.answers:
                getattr(s, signal).connect(
                    lambda *args, n=spec.name, sig=signal: self._to_new_pane(n, sig, *args)
                )
        s.compile_started.connect(self._compile_started)
        s.compile_progress.connect(self.status_label.setText)
        s.compile_finished.connect(self._compile_finished)
        s.result_settled.connect(self._result_changed)
        s.error.connect(self._show_error)
        s.document_opened.connect(self._document_opened)

    def _add_dock(self, spec: PaneSpec) -> None:
        dock = QDockWidget(spec.title, self)
        dock.setObjectName(f"{spec.name}Dock")
        dock.setWidget(QWidget())  # the pane replaces it when built
        dock.visibilityChanged.connect(lambda shown, name=spec.name: self._dock_shown(name, shown))
        area = (
            Qt.DockWidgetArea.LeftDockWidgetArea
            if spec.area == "left"
            else Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.addDockWidget(area, dock)
        self.docks[spec.name] = dock
        if not spec.lazy:
            self.pane(spec.name)

    def pane(self, name: str, defer_render: bool = False) -> Pane:
        """The pane called `name`, built now if it was not (pane_registry). With
        `defer_render` (a dock raised by the user) its first render waits for the next turn
        of the event loop, so building and drawing are two shorter stalls, not one."""
        if name not in self.panes:
            spec = BY_NAME[name]
            pane = spec.load()(self.session, **{need: getattr(self, need) for need in spec.needs})
            pane.raise_requested.connect(lambda n=name: self.show_pane(n))
            self.panes[name] = pane
            dock = self.docks[name]
            dock.setWidget(pane)
            pane.set_shown(not dock.visibleRegion().isEmpty() if dock.isVisible() else False)
            if defer_render:
                QTimer.singleShot(0, lambda: self._built(name, pane))
            else:
                self._built(name, pane)
        return self.panes[name]

    def _built(self, name: str, pane: Pane) -> None:
        """A pane built late takes what happened before it (Pane.catch_up)."""
        pane.catch_up()

    def __getattr__(self, attr: str):
        # window.layout_pane and the like build their pane on first use
        name = {"stage": "stages"}.get(attr[: -len("_pane")], attr[: -len("_pane")])
        if attr.endswith("_pane") and name in BY_NAME:
            return self.pane(name)
        raise AttributeError(attr)

    def _dock_shown(self, name: str, shown: bool) -> None:
        if shown:
            self.pane(name, defer_render=True).set_shown(True, later=True)
        elif name in self.panes:
            self.panes[name].set_shown(False)

    def _to_new_pane(self, name: str, signal: str, *args) -> None:
        """Deliver a Session request to a pane built by it, as the pane's `listens` says
        (a built pane listens itself); say where it shows when it is not in this
        workspace."""
        if name not in self.panes:
            pane = self.pane(name)
            pane._slot(pane.listens[signal])(*args)
        if not self.docks[name].isVisible():
            ws = next(w for w in WORKSPACES if name in w.panes)
            key = WORKSPACES.index(ws) + 1
            self.status_label.setText(f"shown in the {ws.title} workspace (Ctrl+{key})")

    def _build_status_bar(self) -> None:
        self.status_label = QLabel("Open a Triton kernel file (File ▸ Open, or drop it here)")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy indicator: a compile has no known length
        self.progress.setMaximumWidth(160)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.session.cancel)
        # a standing warning, apart from the status line that every compile rewrites
        self.backup_label = QLabel("⚠ edits not backed up")
        self.backup_label.setStyleSheet("color: #c62828; font-weight: bold")
        self.backup_label.hide()
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.backup_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()

    def _action(self, menu, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(file_menu, "&Open…", self.choose_file, QKeySequence.StandardKey.Open)
        # the trust question's second answer as a menu entry: reading a file someone sent,
        # without running its code, should not need a folder kx has never seen
        self._action(file_menu, "Open &Without Running…", self.choose_file_without_running)
        self._action(
            file_menu, "Open Triton Cache, Dump or Inductor Debug &Folder…", self.choose_record_folder
        )
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self._fill_recent()
        self.examples_menu = file_menu.addMenu("&Examples")
        # one section per kernel language (kx_core.records.languages), Triton's first
        by_language: dict[str, list] = {}
        for path in examples():
            lang = language_of(path.read_text(encoding="utf-8"), str(path))
            by_language.setdefault(lang.display_name, []).append(path)
        for title, paths in sorted(by_language.items(), key=lambda kv: kv[0] != "Triton"):
            self.examples_menu.addSection(title)
            for path in paths:
                self._action(self.examples_menu, path.name, lambda _=False, p=str(path): self.open_example(p))
        self.examples_menu.addSection("C++ CPU kernels")
        for path in cpp_examples():
            label = f"{path.parent.name}/{path.name}"
            self._action(self.examples_menu, label, lambda _=False, p=str(path): self.open_example(p))
        self.examples_menu.addSeparator()
        self._action(self.examples_menu, "Restore This Example as Shipped", self.restore_example)
        self._action(file_menu, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Export &Bundle…", self.choose_bundle_to_export)
        self._action(file_menu, "Open B&undle…", self.choose_bundle_to_open)
        self._action(file_menu, "Trust This Folder", self.trust_this_folder)
        self._action(file_menu, "Recompile", self.recompile, QKeySequence("F5"))
        # live recompile: the edited text compiles as you type (unsaved; the file on disk is
        # untouched until Ctrl+S); on by default, the choice kept
        self.live_action = QAction("Recompile as You Type", self, checkable=True)
        self.live_action.setChecked(str(self.settings.value("live", "true")) == "true")
        self.live_action.toggled.connect(self.set_live)
        file_menu.addAction(self.live_action)
        self.set_live(self.live_action.isChecked())
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        view_menu = bar.addMenu("&View")
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        self._action(view_menu, "Find…", self._find, QKeySequence.StandardKey.Find)
        self._action(view_menu, "Go to Line…", self._go_to_line, QKeySequence("Ctrl+G"))
        for spec in PANES:
            for text, method, keys in spec.actions:
                self._action(
                    view_menu, text, lambda _=False, n=spec.name, m=method: self.pane_action(n, m), keys
                )
        self._action(view_menu, "Reset Layout of This Workspace", self.reset_layout)
        self._build_workspace_bar(view_menu)
        self._build_filter_menu(view_menu.addMenu("Display &Filters"))

        target_menu = bar.addMenu("&Target")
        self.target_group = QActionGroup(self)
        self.target_group.setExclusive(True)
        targets = list(KNOWN_TARGETS)
        local = local_target()
        labels = {t: t for t in targets}
        if local is not None:
            targets.insert(0, "local")
            labels["local"] = f"Local GPU ({local.spec})"
        # C++ CPU kernels (kx_core.cpu): the seed's ISA tiers
        targets += list(CPU_TARGETS)
        labels.update({t: f"{t} (C++ kernels)" for t in CPU_TARGETS})
        for t in targets:
            if t == CPU_TARGETS[0]:
                target_menu.addSeparator()
            action = QAction(labels[t], self, checkable=True)
            action.setData(t)
            action.setChecked(t == self._menu_target())
            action.triggered.connect(lambda _=False, t=t: self.set_target(t))
            self.target_group.addAction(action)
            target_menu.addAction(action)
        target_menu.addSeparator()
        gpu_menu = target_menu.addMenu("Capture &GPU")
        self.gpu_group = QActionGroup(self)
        for key, label in [("", "the target's flagship"), *((k, g.name) for k, g in SPECS.items())]:
            action = QAction(label, self, checkable=True)
            action.setData(key)
            action.setChecked(key == (self.session.gpu or ""))
            action.triggered.connect(lambda _=False, k=key: self.set_gpu(k or None))
            self.gpu_group.addAction(action)
            gpu_menu.addAction(action)
        self.versions_menu = target_menu.addMenu("&Triton Version")
        # filled when opened: `kx versions add` in a terminal shows here without a restart
        self.versions_menu.aboutToShow.connect(self._fill_versions)
        self._action(target_menu, "Python &Interpreter…", self.choose_python)
        self._action(target_menu, "Worker &Memory Limit…", self.choose_memory_limit)

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

    def _build_filter_menu(self, menu) -> None:
        """Compiler Explorer's filters for the stage views; the links stay exact."""
        values = {}
        for field, text in self.FILTERS:
            value = self.settings.value(f"filters/{field}", True)
            values[field] = value if isinstance(value, bool) else str(value).lower() == "true"
            action = QAction(text, self, checkable=True)
            action.setChecked(values[field])
            action.toggled.connect(lambda on, f=field: self.set_display_filter(f, on))
            menu.addAction(action)
        self.session.set_display_filters(DisplayFilters(**values))

    def set_display_filter(self, field: str, on: bool) -> None:
        self.settings.setValue(f"filters/{field}", on)
        self.session.set_display_filters(replace(self.session.display_filters, **{field: on}))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = recent_files(self.settings)
        for path in files:
            self._action(self.recent_menu, path, lambda _=False, p=path: self.open_file(p))
        self.recent_menu.setEnabled(bool(files))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._layout_done:
            # dock sizes only take once the window has its size
            self._layout_done = True
            # a headless window (screenshots, tests) keeps the default size: the offscreen
            # platform's small virtual screen bends a restored geometry (1280x884 saved came
            # back as 836x2270)
            geometry = None if self.headless else self.settings.value("geometry")
            if isinstance(geometry, QByteArray):
                self.restoreGeometry(geometry)
            if self.width() < MIN_WIDTH or self.height() < MIN_HEIGHT:
                self.resize(max(self.width(), MIN_WIDTH), max(self.height(), MIN_HEIGHT))
            saved, wanted = str(self.settings.value("workspace", "explore")), self.size()
            self.set_workspace(saved if saved in WORKSPACE_BY_NAME else "explore")
            # docks moved one by one grow the window while the layout settles (1280x808
            # from 1280x800): the size asked for, once it has, and never past the screen
            QTimer.singleShot(0, lambda: self._settle_size(wanted))
            # the lazy panes' modules (pyqtgraph: a quarter second) imported in a thread
            # while the user reads, so raising a tab later only builds widgets
            QTimer.singleShot(300, prefetch_pane_modules)
            QTimer.singleShot(600, warm_up_plots)  # then pyqtgraph's first plot, in steps
            QTimer.singleShot(PREBUILD_AFTER_MS, self, self._prebuild_next_pane)  # then the panes
            # what building and showing the window made lives as long as it: out of the
            # collector's sight (the first young collection scanned it all: 50 ms)
            from kx_gui import gc_guard

            gc_guard.settle()

    def _prebuild_next_pane(self) -> None:
        """Build one pane not built yet (hidden, so it draws nothing), then the next a turn
        later: 3-18 ms each while the user reads, where a first switch to the Performance
        workspace built three at once (140 ms). A module not imported yet waits for the
        background import (prefetch_pane_modules)."""
        import sys

        waiting = [name for name in self.docks if name not in self.panes and name in BY_NAME]
        if not waiting or self.session is None:
            return
        if BY_NAME[waiting[0]].factory.split(":")[0] in sys.modules:
            self.pane(waiting[0])
        # with the window as context: a window closed meanwhile is never called back
        QTimer.singleShot(PREBUILD_GAP_MS, self, self._prebuild_next_pane)

    def _settle_size(self, wanted) -> None:
        if self.size() != wanted:
            self.resize(wanted)
        if not self.headless:
            self.fit_screen()

    def fit_screen(self) -> None:
        """Never larger than the screen's free area (a 1280x800 laptop screen): the
        window's default and saved sizes are shrunk to it."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        frame = self.frameGeometry().size() - self.size()  # the title bar and borders
        width = min(self.width(), free.width() - frame.width())
        height = min(self.height(), free.height() - frame.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
            self.move(max(free.left(), self.x()), max(free.top(), self.y()))

    # ------------------------------------------------------------ workspaces

    def _build_workspace_bar(self, view_menu) -> None:
        """A toolbar and View ▸ Workspace, Ctrl+1 to Ctrl+4."""
        bar = self.addToolBar("Workspaces")
        bar.setObjectName("workspaceBar")
        bar.setMovable(False)
        menu = view_menu.addMenu("&Workspace")
        self.workspace_group = QActionGroup(self)
        self.workspace_group.setExclusive(True)
        for i, ws in enumerate(WORKSPACES, start=1):
            action = QAction(ws.title, self, checkable=True)
            action.setData(ws.name)
            action.setShortcut(QKeySequence(f"Ctrl+{i}"))
            action.setToolTip(f"{ws.title} (Ctrl+{i}): {ws.tip}")
            action.triggered.connect(lambda _=False, n=ws.name: self.set_workspace(n))
            self.workspace_group.addAction(action)
            bar.addAction(action)
            menu.addAction(action)

    def set_workspace(self, name: str) -> None:
        """Show workspace `name`: the arrangement it was left in, or its default. The
        session (file, kernel, selected line) is the same in every workspace."""
        if name == self.workspace:
            return
        if self.workspace is not None:
            self._workspace_states[self.workspace] = self.saveState(STATE_FORMAT)
        self.workspace = name
        self._park_tab_bars()
        state, known = self._workspace_states.get(name), set(self.docks)
        if state is None:
            saved = self.settings.value(f"workspace/{name}")
            state = saved if isinstance(saved, QByteArray) else None
            known = set(str(self.settings.value(f"workspace/{name}/panes", "")).split(","))
        # a state of another format is refused (Qt checks the version); one saved before
        # a pane existed is kept, and the new pane takes its default place
        if state is None or not self.restoreState(state, STATE_FORMAT):
            self._arrange(WORKSPACE_BY_NAME[name])
        else:
            self._place_new_panes(WORKSPACE_BY_NAME[name], known)
        for action in self.workspace_group.actions():
            action.setChecked(action.data() == name)
        self.settings.setValue("workspace", name)

    def _park_tab_bars(self) -> None:
        """Move the window's dock tab bars off screen before a workspace is arranged:
        the layout then places again the bars of the tab groups it shows. Qt places only
        a shown group's bar, and a group whose docks are all hidden or moved away
        (Explore's Kernels, Problems, Output, once Performance hides Problems and
        regroups the other two) kept its old bar where it was, drawn under the new one,
        its tabs showing past the new bar's last: a ghost tab."""
        for bar in self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.move(-500 - bar.width(), -500 - bar.height())  # where Qt parks a bar it does not show

    def _arrange(self, ws: Workspace) -> None:
        """The workspace's default arrangement (pane_registry.WORKSPACES)."""
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        for name, dock in self.docks.items():
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
                self.removeDockWidget(self.docks[n])
                self.addDockWidget(area, self.docks[n])
        if ws.left_top and ws.left_bottom:
            self.splitDockWidget(
                self.docks[ws.left_top[0]], self.docks[ws.left_bottom[0]], Qt.Orientation.Vertical
            )
        for names in groups:
            for n in names[1:]:
                self.tabifyDockWidget(self.docks[names[0]], self.docks[n])
        for names in groups:
            for n in names:
                self.docks[n].show()
            self.docks[names[0]].raise_()
        for name in ws.panes:  # a C++ kernel has no roofline or autotune: Bench is its page
            if BY_NAME[name].front_for and (self.session.path or "").endswith(BY_NAME[name].front_for):
                self.docks[name].raise_()
        width, height = self.width(), self.height()
        # the docks' share of the height: what the menu, tool and status bars leave (sizes
        # over it made Qt grow the window past the screen)
        chrome = self.menuBar().sizeHint().height() + self.statusBar().sizeHint().height()
        chrome += sum(bar.sizeHint().height() for bar in self.findChildren(QToolBar))
        docks = max(200, height - chrome - 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight))
        if ws.right and (ws.left_top or ws.left_bottom):
            first_left = self.docks[(ws.left_top or ws.left_bottom)[0]]
            self.resizeDocks(
                [first_left, self.docks[ws.right[0]]],
                [width * 45 // 100, width * 55 // 100],
                Qt.Orientation.Horizontal,
            )
        if ws.left_top and ws.left_bottom:
            self.resizeDocks(
                [self.docks[ws.left_top[0]], self.docks[ws.left_bottom[0]]],
                [docks * 2 // 3, docks // 3],
                Qt.Orientation.Vertical,
            )

    def _place_new_panes(self, ws: Workspace, known: set[str]) -> None:
        """After a saved arrangement: each pane it did not know (added to kx since) goes
        where the workspace puts it by default (tabbed with its group), or is hidden."""
        for name in [n for n in self.docks if n not in known]:
            group = next((g for g in (ws.left_top, ws.left_bottom, ws.right) if name in g), None)
            anchor = next((n for n in group or () if n in known and self.docks[n].isVisible()), None)
            if anchor is None:
                self.docks[name].hide()
                continue
            self.tabifyDockWidget(self.docks[anchor], self.docks[name])
            self.docks[name].show()

    def reset_layout(self) -> None:
        """The current workspace's default arrangement, forgetting the saved one."""
        if self.workspace is None:
            return
        self._workspace_states.pop(self.workspace, None)
        self.settings.remove(f"workspace/{self.workspace}")
        self._arrange(WORKSPACE_BY_NAME[self.workspace])

    # ------------------------------------------------------------ actions

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a kernel file",
            os.path.dirname(self.session.path) if self.session.path else "",  # beside the open file
            # the first filter holds every kind File ▸ Open reads: a trace was invisible
            # until a new user found the filter below
            "Kernel files, traces and profiles (*.py *.cpp *.cc *.cxx *.ndjson *.ndjson.gz *.json.gz *.log "
            "*.hatchet *.hatchet.json *.mlir);;"
            "Python (*.py);;C++ (*.cpp *.cc *.cxx);;"
            "tritonparse traces (*.ndjson *.ndjson.gz *.json.gz *.bin.ndjson);;"
            "TORCH_TRACE logs (*.log);;Proton profiles (*.hatchet *.hatchet.json);;"
            "MLIR, for the Playground (*.mlir);;All files (*)",
        )
        if path:
            self.open_file(path)

    def choose_record_folder(self) -> None:
        """A folder a real run left: a Triton cache (TRITON_CACHE_DIR, ~/.triton/cache), a
        dump folder (TRITON_KERNEL_DUMP) or an Inductor debug folder (TORCH_COMPILE_DEBUG);
        the file dialog of Open… cannot pick a folder."""
        path = QFileDialog.getExistingDirectory(
            self, "Open a Triton cache or dump folder, or an Inductor debug folder", ""
        )
        if path:
            self.open_file(path)

    def open_example(self, path: str) -> bool:
        """A shipped example opens as the user's own copy (in kx's state folder, beside
        the files it includes), so an edit and Ctrl+S never write kx's file (a first
        user's save did). The copy is made once: opening it again keeps the user's edits
        (a copy never edited follows a newer kx's example: kx_gui.example_copies)."""
        from kx_core.base.data import data_path
        from kx_gui import example_copies
        from kx_gui.recovery import state_dir

        src = Path(path)
        try:
            rel = src.resolve().relative_to(Path(data_path("examples")).resolve())
        except ValueError:  # not one of kx's examples: as it is
            return self.open_file(path)
        copies = state_dir() / "examples"
        folder = copies / rel.parent
        try:
            example_copies.refresh(src.parent, copies, rel.parent)
        except OSError as e:
            self._show_error(f"cannot copy the example to {folder}: {e.strerror or e}; opened kx's own")
            return self.open_file(path, trusted=True)
        trust(str(copies))  # kx's own examples
        note = f"your copy of the example: {copies / rel} (kx's own stays as shipped)"
        opened = self._open_with_note(str(copies / rel), note)
        return opened

    def _open_with_note(self, path: str, note: str) -> bool:
        """open_file, with `note` on the status line now and after the compile's summary
        (which would replace it at once)."""

        def after(_result) -> None:
            self.result_shown.disconnect(after)
            self.status_label.setText(f"{self.status_label.text()} — {note}")

        self.result_shown.connect(after)
        opened = self.open_file(path, trusted=True)
        if not opened:
            self.result_shown.disconnect(after)
        self.status_label.setText(note)
        return opened

    def shipped_example(self, path: str | None) -> Path | None:
        """kx's own file of which `path` is the user's copy (open_example), else None."""
        from kx_core.base.data import data_path
        from kx_gui.recovery import state_dir

        if not path:
            return None
        try:
            rel = Path(path).resolve().relative_to((state_dir() / "examples").resolve())
        except ValueError:
            return None
        shipped = Path(data_path("examples")) / rel
        return shipped if shipped.is_file() else None

    def _edited_example(self) -> bool:
        """The open file is the user's copy of an example, and differs from kx's."""
        from kx_gui import example_copies
        from kx_gui.recovery import state_dir

        shipped = self.shipped_example(self.session.path)
        return shipped is not None and example_copies.edited(
            Path(self.session.path), shipped, state_dir() / "examples"
        )

    def restore_example(self) -> bool:
        """The open example's copy back to kx's shipped text. The user's text (saved or
        not) is kept beside it as NAME.edited-TIME.py: nothing is lost."""
        import shutil
        import time

        copy = Path(self.session.path or "")
        shipped = self.shipped_example(self.session.path)
        if shipped is None:
            self._show_error("the open file is not a copy of one of kx's examples (File ▸ Examples)")
            return False
        kept = copy.with_name(f"{copy.stem}.edited-{time.strftime('%Y%m%d-%H%M%S')}{copy.suffix}")
        try:
            kept.write_text(self.editor.text(), encoding="utf-8")
            shutil.copy2(shipped, copy)
            from kx_gui import example_copies
            from kx_gui.recovery import state_dir

            example_copies.refresh(
                shipped.parent, state_dir() / "examples", copy.parent.relative_to(state_dir() / "examples")
            )
        except (OSError, ValueError) as e:
            self._show_error(f"cannot restore {copy.name}: {e.strerror or e}")
            return False
        # the shipped text as an edit of the document: Ctrl+Z brings the user's back
        # (kept in `kept` too); the reopen below keeps the editor's text and its history
        self.editor.restore_text(shipped.read_text(encoding="utf-8"))
        self.recovery.clear(str(copy))
        note = f"{copy.name} is as shipped again; your text is in {kept}"
        opened = self._open_with_note(str(copy), note)
        return opened

    def choose_file_without_running(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a kernel file without running it", "", "Python (*.py);;All files (*)"
        )
        if path:
            self.open_without_running(path)

    def open_without_running(self, path: str) -> bool:
        """Show a file's source and run none of its code, whatever its folder's trust."""
        if self.editor.dirty and not self._confirm_discard():
            return False
        if path.lower().endswith(IR_FILES):
            return self.open_ir_file(path)
        if path.endswith(CPP_SOURCES):  # g++ -S runs nothing of the file: compiled as usual
            return self._open_trusted(path, True)
        if self._is_record(path):  # what the record shows without running its code
            return self._open_record(path, run=False)
        opened = self.session.open_file(path, run=False)
        if opened:
            self.status_label.setText("shown without running it (File ▸ Open Without Running): F5 runs it")
        return opened

    def choose_bundle_to_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export a bundle", self.bundle_proposal(), "kx bundles (*.kxb)"
        )
        if path:
            self.export_bundle(path)

    def bundle_proposal(self) -> str:
        """Where Export Bundle proposes to write: beside the file, named after it
        (`softmax.py` -> `softmax.kxb`); a document with no file (a trace's or bundle's
        source), in the home folder. (It proposed `kernel.kxb` in the app's current
        folder: the checkout, for a user who started it there.)"""
        name = os.path.splitext(os.path.basename(self.session.path or "kernel.py"))[0] + ".kxb"
        folder = os.path.dirname(self.session.path or "") if not self.session.no_file else ""
        return os.path.join(folder or os.path.expanduser("~"), name)

    def choose_bundle_to_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a bundle", "", "kx bundles (*.kxb);;All files (*)")
        if path:
            self.open_file(path)

    def export_bundle(self, path: str) -> bool:
        """One file with the source, target, options and results on screen (records/
        bundle.py) that another kx opens as it is here. The source written is the text the
        results were compiled from: the editor's (a live compile) or the file's."""
        from kx_core.records.build import content_hash
        from kx_core.records.bundle import write_bundle

        result = self.session.result
        if result is None or result.build is None:
            self._show_error("nothing compiled to export: open a file and let it compile")
            return False
        if any(k.status == "compiling" for k in result.kernels):
            # a partial build on screen (its first kernel's first stage while Triton makes
            # the rest): not what another kx would open as this build
            self._show_error("still compiling: export once the build is done")
            return False
        candidates = [self.editor.text()]
        try:
            with open(result.file, encoding="utf-8") as f:
                candidates.append(f.read())
        except OSError:
            pass
        source = next(
            (t for t in candidates if content_hash(t.encode("utf-8")) == result.build.content), None
        )
        if source is None:
            self._show_error(
                "the text these results were compiled from is no longer at hand: compile again, then export"
            )
            return False
        try:
            write_bundle(path, source, result)
        except OSError as e:
            self._show_error(f"cannot write {path}: {e.strerror or e}")
            return False
        self.status_label.setText(f"bundle written: {path}")
        return True

    def open_file(self, path: str, trusted: bool = False, trust_record: bool = False) -> bool:
        """Open a kernel file (asks about unsaved edits first). A file from a folder not
        yet trusted asks first (trust.py); `trusted`: the user named it (command line).
        A bundle (.kxb) shows what it recorded, running nothing. A record whose module
        runs (an Inductor folder, a TORCH_TRACE log) asks about its folder even when named
        on the command line (`kx gui LOG`: its code is the sender's, not the user's file),
        unless `trust_record` (`kx gui --trust`)."""
        if path.lower().endswith(IR_FILES):
            return self.open_ir_file(path)
        if self.editor.dirty and not self._confirm_discard():
            return False
        if path.endswith(".kxb"):
            return self.session.open_bundle(path)
        if self._is_record(path):  # a real run's record: read, never run (no trust question)
            from kx_core.recorded.open_record import record_kind

            # a record of Inductor's source is compiled by running its output module under
            # kx's capture: that is running the record's code, asked as a file's is
            # ("Open without running" shows its kernels as the module's text names them)
            run = self._may_run(path, trust_record) if record_kind(path) in RECOMPILED_KINDS else False
            return run is not None and self._open_record(path, run)
        run = self._may_run(path, trusted)
        if run is None:
            return False
        return self._open_trusted(path, run)

    def _open_record(self, path: str, run: bool) -> bool:
        """A record of a real run (a Proton profile: beside the build on screen); `run`:
        an Inductor record's module may run (the user trusts it)."""
        from kx_core.recorded.open_record import record_kind

        kind = record_kind(path)
        if kind == "proton":
            return self.open_profile(path)
        opened = self.session.open_record(path, trusted=run)
        if opened and kind in RECOMPILED_KINDS and not run:
            self.status_label.setText(
                "shown without running its module: its kernels are listed from its text "
                "(F5 or File ▸ Trust This Folder runs it)"
            )
        return opened

    def open_profile(self, path: str) -> bool:
        """A Proton profile: shown in the Bench pane's Hot lines beside the build on screen,
        its heat drawn on the lines of that build's kernels of the same names (nothing
        runs, and the document stays: a profile holds no kernels of its own)."""
        from kx_core.recorded.open_record import NotARecord, open_record

        try:
            profile = open_record(path).profile
        except NotARecord as e:
            self._show_error(str(e))
            return False
        result = self.session.result
        names = {k.name for k in (result.kernels if result else ())}
        joined = [k.kernel for k in profile.kernels if k.kernel in names]
        self.show_pane("bench")
        self.pane("bench").show_profile(profile, self.session.build if joined else None)
        self.status_label.setText(
            f"{os.path.basename(path)}: a Proton profile of {len(profile.kernels)} kernel(s); "
            + (
                f"{len(joined)} of them joined by name to the kernels on screen"
                if joined
                else "none is a kernel on screen (open their file or record first to see their hot lines)"
            )
        )
        return True

    @staticmethod
    def _is_record(path: str) -> bool:
        """A Triton cache or dump folder or a tritonparse trace, by its content (a kernel
        file's suffix is not read: a .py or C++ file is a kernel file)."""
        if path.endswith((".py", *CPP_SOURCES)):
            return False
        from kx_core.recorded.open_record import record_kind

        return record_kind(path) is not None

    def open_ir_file(self, path: str) -> bool:
        """An IR file is not a kernel source and is never run: MLIR opens in the Labs
        Playground (triton-opt passes, RUN lines), LLVM IR/PTX/SASS get a message that
        says where kx takes them (run as Python, a first user's .mlir was a SyntaxError)."""
        if path.lower().endswith(MLIR_FILES):
            self.show_pane("playground")
            opened = self.playground_pane.load(path)
            if opened:
                self.status_label.setText(
                    f"{os.path.basename(path)} opened in the Playground (Labs): MLIR is run through "
                    "triton-opt passes there, not as a kernel file"
                )
            return opened
        self._show_error(
            f"{os.path.basename(path)} is compiler output (LLVM IR, PTX or SASS), not a kernel source: "
            "kx opens Triton .py and C++ files and shows these stages from their compile; "
            "MLIR (.mlir) opens in the Playground (Labs workspace)"
        )
        return False

    def _may_run(self, path: str, trusted: bool = False) -> bool | None:
        """Whether the file may run: True (trusted), False (shown, not run) or None (the
        user cancelled). A file from a folder not yet trusted asks (trust.py); a C++
        kernel is compiled (g++ -S), never run: no question. A record folder (an Inductor
        debug folder) is asked about itself; a file, about the folder it is in."""
        if trusted or path.endswith(CPP_SOURCES) or is_trusted(path):
            return True
        if self.headless and not self.ask_in_headless:
            return self.headless_trusts  # no one to ask
        folder = os.path.abspath(path) if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        answer = self.ask_trust(folder)
        if answer == "cancel":
            return None
        if answer == "trust":
            trust(folder)
        return answer == "trust"

    def _open_trusted(self, path: str, run: bool) -> bool:
        opened = self.session.open_file(path, run=run)
        if opened and not run:
            self.status_label.setText(
                "shown without running it: its folder is not trusted (File ▸ Trust This Folder runs it)"
            )
        return opened

    def ask_trust(self, folder: str) -> str:
        """'trust', 'source' (show the file, run nothing) or 'cancel'."""
        box = QMessageBox(self)
        box.setWindowTitle("Run this file's code?")
        box.setText(
            f"Opening a kernel file runs its code, as python FILE would, to capture its kernels.\n\n"
            f"Trust the folder {folder} (and the folders in it)?"
        )
        trust_button = box.addButton("Trust and run", QMessageBox.ButtonRole.AcceptRole)
        source_button = box.addButton("Open without running", QMessageBox.ButtonRole.RejectRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return "trust" if clicked is trust_button else "source" if clicked is source_button else "cancel"

    def trust_this_folder(self) -> None:
        if self._unsaved_record_text():
            return
        record = self.session.record
        if record is not None and record.code_not_run and not self.editor.dirty:  # its module run
            trust(record.path if os.path.isdir(record.path) else os.path.dirname(record.path))
            self.session.open_record(record.path, trusted=True)
            return
        if self.session.path:
            trust(os.path.dirname(self.session.path))
            self.session.running = True
            self.session.compile()

    def _unsaved_record_text(self) -> bool:
        """The document is text a record or bundle carried, with no file (Session.no_file):
        nothing of it runs until it is saved where the user chooses (Ctrl+S asks), and
        then as that file's folder's trust decides, never the folder the record named.
        True (and said) when it is still not saved."""
        if not self.session.no_file or self.save():
            return False
        self.status_label.setText("not run: this text is not saved to a file yet (Ctrl+S asks where)")
        return True

    def save(self) -> bool:
        return self.editor.save()

    def set_gpu(self, key: str | None) -> None:
        """The GPU the capture stands for; its architecture becomes the target."""
        self.settings.setValue("gpu", key or "")
        for action in self.gpu_group.actions():
            action.setChecked(action.data() == (key or ""))
        self.session.gpu = key
        if key:
            self.set_target(target_for_gpu(key).spec)
        elif self.session.path:
            self.session.compile()

    def _fill_versions(self) -> None:
        """kx's own Triton, then each version kx manages (kx_core/base/triton_envs.py):
        choosing one compiles with that version's environment (its interpreter)."""
        from importlib.metadata import PackageNotFoundError, version

        from kx_core.base import triton_envs

        try:
            own = version("triton")  # its metadata: importing triton here costs the UI thread
        except PackageNotFoundError:
            own = "not installed"
        menu = self.versions_menu
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
            self, "Python interpreter for the worker (Cancel: kx's own)", start
        )
        self.set_python(path or None)

    def choose_memory_limit(self) -> None:
        """The worker's address-space limit in MiB (0: none); running out of it is an
        out-of-memory diagnostic at the line that allocated."""
        from PySide6.QtWidgets import QInputDialog

        from kx_core.base.workers import default_memory_limit_mb

        current = self.session.memory_limit_mb
        value, ok = QInputDialog.getInt(
            self,
            "Worker memory limit",
            "MiB the worker may use (0: no limit):",
            default_memory_limit_mb() if current is None else current,
            0,
            1 << 24,
        )
        if ok:
            self.settings.setValue("memory_limit_mb", value)
            self.session.memory_limit_mb = value

    def set_python(self, path: str | None) -> None:
        self.settings.setValue("python", path or "")
        self.session.python = path
        self.status_label.setText(f"interpreter: {path or 'kx’s own'}")
        if self.session.path:
            self.session.compile()

    def set_target(self, target: str) -> None:
        self.settings.setValue("target", target)
        self.session.set_target(target)
        for action in self.target_group.actions():
            action.setChecked(action.data() == self._menu_target())
        self.welcome.set_target(self._target_text())

    def _menu_target(self) -> str:
        """The Target menu's entry for the session's target ('default' is the local GPU
        when there is one, else cuda:90: that entry is ticked)."""
        return default_spec(self.session.target)

    def _target_text(self) -> str:
        if self.session.target == "default":
            local = local_target()
            return (
                f"{local.spec} (the local GPU)"
                if local
                else f"{DEFAULT_TARGET.spec} (no local GPU: the default)"
            )
        return self.session.target

    def show_pane(self, name: str) -> bool:
        """Show and raise a pane by name: source, stages, kernels, problems, pipeline,
        diff, concepts, summary, layout."""
        dock = self.docks.get(name.lower())
        if dock is None:
            return False
        current = WORKSPACE_BY_NAME.get(self.workspace or "")
        if current is not None and name.lower() not in current.panes and not dock.isVisible():
            self.set_workspace(next(w.name for w in WORKSPACES if name.lower() in w.panes))
        dock.show()
        dock.raise_()
        if name.lower() in self.panes:  # asked for by name: drawn now, not on a later turn
            self.panes[name.lower()].render_if_stale()
        return True

    def set_live(self, on: bool) -> None:
        self.settings.setValue("live", "true" if on else "false")
        self.editor.live = on

    def recompile(self) -> None:
        """F5: compile what the editor shows. Unsaved edits are saved first (through the
        same check as Ctrl+S: a change on disk is never overwritten unseen); without
        edits, the file is compiled for real even when a result is cached. A file shown
        without running runs now, once its folder is trusted (the question is asked where
        it is not: F5 did nothing, silently)."""
        if self._unsaved_record_text():
            return
        record = self.session.record
        if record is not None and record.code_not_run and not self.editor.dirty:  # shown, not run
            run = self._may_run(record.path)
            if run:
                self.session.open_record(record.path, trusted=True)
            else:
                self.status_label.setText("not run: its folder is not trusted (File ▸ Trust This Folder)")
            return
        if not self.session.running and self.session.path:
            run = self._may_run(self.session.path)
            if not run:
                self.status_label.setText("not run: its folder is not trusted (File ▸ Trust This Folder)")
                return
            self.session.running = True
        if self.editor.dirty:
            self.editor.save()
        else:
            self.session.compile(use_cache=False)

    def pane_action(self, name: str, method: str) -> None:
        """A command a pane offers in the View menu (PaneSpec.actions): show the pane, run it."""
        self.show_pane(name)
        getattr(self.pane(name), method)()

    @property
    def editor(self) -> Pane:
        """The pane holding the open document (pane_registry.EDITOR)."""
        return self.pane(EDITOR)

    def _go_to_line(self) -> None:
        pane = self._pane_for_keys("ask_line")
        if pane is not None:
            pane.ask_line()

    def _find(self) -> None:
        pane = self._pane_for_keys("find_bar")
        if pane is not None:
            pane.find_bar.open()

    def _pane_for_keys(self, having: str) -> Pane | None:
        """The pane a key (Ctrl+F, Ctrl+G) acts on: the one holding the focus when it has
        `having`, else the first shown pane on the right of this workspace that has it."""
        focus = QApplication.focusWidget()
        for pane in self.panes.values():
            if focus is not None and pane.isAncestorOf(focus) and hasattr(pane, having):
                return pane
        ws = WORKSPACE_BY_NAME.get(self.workspace or "")
        order = (ws.right + ws.left_top + ws.left_bottom) if ws else tuple(self.panes)
        shown = [self.panes[n] for n in order if n in self.panes and self.docks[n].isVisible()]
        return next((p for p in shown if hasattr(p, having)), None)

    # ------------------------------------------------------------ session events

    def _document_opened(self, path: str, text: str) -> None:
        self.source_stack.setCurrentWidget(self.editor)
        add_recent(self.settings, path)
        self._fill_recent()
        self._update_title()

    def _compile_started(self, generation: int) -> None:
        name = os.path.basename(self.session.path or "")
        self.status_label.setText(f"compiling {name} for {self.session.target}…")
        self.progress.show()
        self.cancel_button.show()

    def _compile_finished(self, generation: int) -> None:
        if not self.session.compiling:
            self.progress.hide()
            self.cancel_button.hide()
            if self.session.result is None or generation != self.session.generation:
                self.status_label.setText("compile cancelled")

    def _result_changed(self, result: CompileResult) -> None:
        fatal = [d for d in result.diagnostics if d.fatal]
        # a C++ kernel's result names its compiler where a Triton result names Triton
        tool = backend_of(result.target).tool_label(result.triton_version)
        # a CuTe DSL program's compiler is the DSL's, not the Triton in the same environment
        extras = [k.metadata.extra or {} for k in result.kernels if k.metadata is not None]
        if extras and {e.get("compiler") for e in extras} == {"nvidia-cutlass-dsl"}:
            tool = f"nvidia-cutlass-dsl {extras[0].get('compiler_version', '')}".strip()
        library = sum(hidden_by_library_filter(k, self.session.display_filters) for k in result.kernels)
        if library:  # a C++ file's library functions, hidden
            shown = counted(len(result.kernels) - library, "function")
            summary = (
                f"{shown} of yours for {result.target.spec} ({tool}), {library} library functions hidden"
            )
        else:
            summary = f"{counted(len(result.kernels), 'kernel')} for {result.target.spec} ({tool})"
        flags = next((d for d in result.diagnostics if d.kind == "flags"), None)
        if flags is not None:  # a C++ kernel built with its build.toml's flags, not the tier's
            summary += f", {flags.message.split(':', 1)[0].removeprefix('compiled with ')}"
        summary += f" in {result.wall_time_s:.1f} s" + (", from cache" if result.from_cache else "")
        after = [k for k in result.kernels if k.after_placeholder is not None]
        if after:
            first = after[0].after_placeholder
            summary += (
                f"; {len(after)} captured after a data placeholder (* — {first.what} at line {first.line})"
            )
        if fatal:
            # what failed leads: at 1280 px the end of the line is cut, and "0 kernels in
            # 0.2 s" first read as a success (issue 54: a DSL's extra not installed)
            d = fatal[0]
            at = f" at line {d.line}" if d.line else ""
            what = f"not compiled{at}" if d.kind == "missing-extra" else f"{d.kind}{at}"
            summary = f"{what}: {d.message} — {summary}"
        elif result.stopped_midway:
            d = next(d for d in result.diagnostics if d.kind == "runtime")
            summary += f" — capture incomplete: the file stopped at line {d.line}: {d.message}"
        elif result.incomplete:
            summary += " — capture incomplete: launches kx could not show (see Kernels)"
        if self._edited_example():
            summary += (
                " — your edited copy of the example (File ▸ Examples ▸ Restore This Example as Shipped)"
            )
        self.status_label.setText(summary)
        self.result_shown.emit(result)

    def _show_backup_state(self, message: str) -> None:
        self.backup_label.setToolTip(message)
        self.backup_label.setVisible(bool(message))

    def _show_error(self, message: str) -> None:
        self.last_error = message
        self.status_label.setText(message)
        if self.headless:
            print(f"kx: {message}", file=sys.stderr)
        else:
            QMessageBox.warning(self, "kx", message)

    def _update_title(self, *_args) -> None:
        self.setWindowTitle(f"kx — {self.editor.title_for()}")

    # ------------------------------------------------------------ unsaved edits

    def ask_save_changes(self) -> str:
        """'save', 'discard' or 'cancel' for unsaved edits (tests replace this)."""
        if self.headless:
            return "cancel"
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {os.path.basename(self.session.path or '')}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel"
        )

    def _confirm_discard(self) -> bool:
        choice = self.ask_save_changes()
        if choice == "save":
            return self.save()
        if choice == "discard" and self.session.path:
            self.recovery.clear(self.session.path)
        return choice == "discard"

    def _same_as_on_disk(self, edit) -> bool:
        """An autosave whose text is the file's (the edit was undone, or saved elsewhere):
        nothing to recover, and it is removed."""
        try:
            with open(edit.path, encoding="utf-8", errors="replace") as f:
                same = f.read() == edit.text
        except OSError:
            return False
        if same:
            self.recovery.clear(edit.path)
        return same

    def offer_recovery(self, ask=None) -> bool:
        """Offer the newest autosave left by a session that died; True if restored.
        `ask(edit) -> bool` decides (default: a dialog)."""
        pending = [e for e in self.recovery.pending() if not self._same_as_on_disk(e)]
        if not pending:
            return False
        edit = pending[0]

        def dialog(e) -> bool:
            answer = QMessageBox.question(
                self,
                "Recover unsaved edits",
                f"kx closed with unsaved edits to {e.path}. Restore them?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            )
            return answer == QMessageBox.StandardButton.Yes

        if not (ask or dialog)(edit):
            self.recovery.clear(edit.path)
            return False
        if edit.no_file:
            # a record's or bundle's text, never saved: it comes back as it was, with no
            # file and nothing run (its name is the record's word, not a trusted place)
            self.session.open_unsaved(edit.path, edit.text, running=False, no_file=True)
            self.status_label.setText(
                f"recovered text of {os.path.basename(edit.path)} from a record: saved nowhere (Ctrl+S asks where)"
            )
        elif os.path.exists(edit.path):
            # the same trust question as opening the file: restoring must not run a file
            # from a folder the user never trusted (the autosave stays for a later yes)
            run = self._may_run(edit.path)
            if run is None or not self._open_trusted(edit.path, run):
                return False
        else:
            # the file is gone (moved, deleted): the text comes back as an unsaved buffer;
            # Save recreates it. The same trust question first: its text runs as the file
            # would (a live compile of the restored edit), so never unasked
            run = self._may_run(edit.path)
            if run is None:
                return False
            self.session.open_unsaved(edit.path, edit.text, running=run)
            self.status_label.setText(
                f"{edit.path} no longer exists: the recovered text is unsaved (Ctrl+S writes it)"
                + ("" if run else "; not run: its folder is not trusted")
            )
        self.editor.replace_text(edit.text)
        return True

    # ------------------------------------------------------------ Qt events

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_file(urls[0])
            event.acceptProposedAction()

    def closeEvent(self, event) -> None:  # noqa: N802
        if self.editor.dirty and not self._confirm_discard():
            event.ignore()
            return
        self.settings.setValue("geometry", self.saveGeometry())
        if self.workspace is not None:
            self._workspace_states[self.workspace] = self.saveState(STATE_FORMAT)
        for name, state in self._workspace_states.items():
            self.settings.setValue(f"workspace/{name}", state)
            self.settings.setValue(f"workspace/{name}/panes", ",".join(self.docks))
        self.settings.sync()
        if self.session.path:  # a clean close: nothing of this file is left to recover
            self.recovery.clear(self.session.path)
        for pane in self.panes.values():
            pane.cleanup()
        self.session.shutdown()
        super().closeEvent(event)
