"""The main window: it hosts. Dockable panes (pane_registry), the menus' places, the status
bar with progress and Cancel; what the menus offer is the features' (kx_gui.features: each
installs its own actions), and the window names none of the panes.

Layout, geometry, recent files and the last target persist in QSettings. Dropping a
file on the window opens it. With `headless=True` no dialog is ever shown (errors go
to stderr and to the Problems pane), for --screenshot and tests.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QWidget,
)

from kx_core.base.data import cpp_examples, examples
from kx_gui.features import files, install_all, targets, trust, workspaces
from kx_gui.features.menus import Menus
from kx_gui.features.window_size import MIN_HEIGHT, MIN_WIDTH
from kx_gui.pane_registry import (
    BY_NAME,
    EDITOR,
    PANES,
    WORKSPACE_BY_NAME,
    WORKSPACES,
    PaneSpec,
    prefetch_pane_modules,
)
from kx_gui.panes.base import Pane
from kx_gui.recovery import RecoveryStore
from kx_gui.session import Session
from kx_gui.settings import open_settings, recent_files
from kx_gui.widgets.elided_label import ElidedLabel
from kx_gui.widgets.plot_warmup import warm_up_plots
from kx_gui.widgets.welcome import WelcomePage

# the panes not shown at start are built one at a time, this long after the window shows
# and this far apart (each is one short stall: _prebuild_next_pane)
PREBUILD_AFTER_MS, PREBUILD_GAP_MS = 1500, 120

# The menus and, in each, the places the window and the features fill, in order ("-": a
# separator). A feature puts its actions in a place by name (kx_gui.features.menus).
MENUS = {
    "file": ("&File", "open without-running records examples save bundles repro trust compile - quit"),
    "view": ("&View", "docks - keys pane-actions workspaces filters"),
    "target": ("&Target", "targets - gpu worker"),
}


class MainWindow(QMainWindow):
    """Open a file, compile it in the background, browse its kernels' stages."""

    result_shown = Signal(object)  # CompileResult, once every pane has it

    def __init__(self, target: str | None = None, headless: bool = False, warm: bool | None = None) -> None:
        super().__init__()
        # the cyclic GC must not run in a worker thread (see gc_guard)
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
        workspaces.arrange(self, WORKSPACE_BY_NAME["explore"])
        self._build_status_bar()
        self._build_menus()
        self.features = install_all(self)
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
        Which are shown, and where, is the workspace's (features.workspaces)."""
        placeholder = QWidget()
        placeholder.setMaximumSize(0, 0)
        self.setCentralWidget(placeholder)
        self.panes: dict[str, Pane] = {}
        self.docks: dict[str, QDockWidget] = {}
        for spec in PANES:
            self._add_dock(spec)
        # the welcome page stands where the source goes until a file is open (its
        # requests are the features': examples, files)
        self.welcome = WelcomePage(
            recent_files(self.settings), examples() + cpp_examples(), targets.target_text(self.session.target)
        )
        self.source_stack = QStackedWidget()
        self.source_stack.addWidget(self.welcome)
        self.source_stack.addWidget(self.editor)
        self.docks[EDITOR].setWidget(self.source_stack)

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
        s.error.connect(self.show_error)
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
        self.status_label = ElidedLabel("Open a Triton kernel file (File ▸ Open, or drop it here)")
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

    def _build_menus(self) -> None:
        """The menus' places (MENUS) and the window's own entries: Quit and the docks."""
        self.menus = menus = Menus(self, MENUS)
        menus.add("file.quit", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        for dock in self.docks.values():
            menus.add_action("view.docks", dock.toggleViewAction())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._layout_done:
            self._layout_done = True
            self.features.window_size.first_shown()  # its saved size, then its workspace
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
        waiting = [name for name in self.docks if name not in self.panes and name in BY_NAME]
        if not waiting or self.session is None:
            return
        if BY_NAME[waiting[0]].factory.split(":")[0] in sys.modules:
            self.pane(waiting[0])
        # with the window as context: a window closed meanwhile is never called back
        QTimer.singleShot(PREBUILD_GAP_MS, self, self._prebuild_next_pane)

    # ------------------------------------------------------------ the docks

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

    def pane_action(self, name: str, method: str) -> None:
        """A command a pane offers in the View menu (PaneSpec.actions): show the pane, run it."""
        self.show_pane(name)
        getattr(self.pane(name), method)()

    @property
    def editor(self) -> Pane:
        """The pane holding the open document (pane_registry.EDITOR)."""
        return self.pane(EDITOR)

    # ------------------------------------------------------------ the features' front doors
    # (what app.py and many tests call; the rest is window.features.NAME's)

    def open_file(self, path: str, trusted: bool = False, trust_record: bool = False) -> bool:
        return self.features.files.open_file(path, trusted, trust_record)

    def recompile(self) -> None:
        self.features.files.recompile()

    def save(self) -> bool:
        return self.editor.save()

    def set_workspace(self, name: str) -> None:
        self.features.workspaces.set_workspace(name)

    @property
    def workspace(self) -> str | None:
        """The workspace on screen (None before the window is first shown)."""
        return self.features.workspaces.current

    def set_display_filter(self, field: str, on: bool) -> None:
        self.features.display_filters.set_display_filter(field, on)

    def offer_recovery(self, ask=None) -> bool:
        return self.features.recovery.offer_recovery(ask)

    # the questions the window asks (tests replace them)
    def ask_trust(self, folder: str) -> str:
        return trust.ask_trust(self, folder)

    def ask_save_changes(self) -> str:
        return files.ask_save_changes(self)

    # ------------------------------------------------------------ the status bar

    def _document_opened(self, path: str, text: str) -> None:
        self.source_stack.setCurrentWidget(self.editor)
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

    def _show_backup_state(self, message: str) -> None:
        self.backup_label.setToolTip(message)
        self.backup_label.setVisible(bool(message))

    def show_error(self, message: str) -> None:
        self.last_error = message
        self.status_label.setText(message)
        if self.headless:
            print(f"kx: {message}", file=sys.stderr)
        else:
            QMessageBox.warning(self, "kx", message)

    def _update_title(self, *_args) -> None:
        self.setWindowTitle(f"kx — {self.editor.title_for()}")

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
        if self.editor.dirty and not self.features.files.confirm_discard():
            event.ignore()
            return
        self.features.window_size.save()
        self.features.workspaces.save()
        self.settings.sync()
        if self.session.path:  # a clean close: nothing of this file is left to recover
            self.recovery.clear(self.session.path)
        for pane in self.panes.values():
            pane.cleanup()
        self.session.shutdown()
        super().closeEvent(event)
