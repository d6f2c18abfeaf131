"""The window's size and place: restored at its first show (a headless one keeps its
default), centred on the screen when nothing is saved, never under kx's minimum nor past
the screen's free area, saved when it closes."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QTimer
from PySide6.QtWidgets import QApplication

MIN_WIDTH, MIN_HEIGHT = 1280, 800


def install(window) -> WindowSize:
    return WindowSize(window)


class WindowSize:
    def __init__(self, window) -> None:
        self.window = window

    def first_shown(self) -> None:
        """The saved geometry and workspace, once the window has its size (dock sizes only
        take then)."""
        window = self.window
        # a headless window (screenshots, tests) keeps the default size: the offscreen
        # platform's small virtual screen bends a restored geometry (1280x884 saved came
        # back as 836x2270)
        geometry = None if window.headless else window.settings.value("geometry")
        restored = isinstance(geometry, QByteArray) and window.restoreGeometry(geometry)
        if window.width() < MIN_WIDTH or window.height() < MIN_HEIGHT:
            window.resize(max(window.width(), MIN_WIDTH), max(window.height(), MIN_HEIGHT))
        saved, wanted = str(window.settings.value("workspace", "explore")), window.size()
        window.features.workspaces.restore(saved)
        # docks moved one by one grow the window while the layout settles (1280x808
        # from 1280x800): the size asked for, once it has, and never past the screen
        QTimer.singleShot(0, lambda: self._settle_size(wanted, restored))

    def _settle_size(self, wanted, restored: bool) -> None:
        if self.window.size() != wanted:
            self.window.resize(wanted)
        if not self.window.headless:
            self.fit_screen()
            if not restored:
                self.centre()

    def centre(self) -> None:
        """The window in the middle of its screen's free area: a first start, with no
        place saved, opened in the screen's top-left corner (issue 54). A window larger
        than the screen stays at its top-left."""
        window = self.window
        screen = window.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        free, frame = screen.availableGeometry(), window.frameGeometry()
        window.move(
            free.left() + max(0, (free.width() - frame.width()) // 2),
            free.top() + max(0, (free.height() - frame.height()) // 2),
        )

    def fit_screen(self) -> None:
        """Never larger than the screen's free area (a 1280x800 laptop screen): the
        window's default and saved sizes are shrunk to it."""
        window = self.window
        screen = window.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        free = screen.availableGeometry()
        frame = window.frameGeometry().size() - window.size()  # the title bar and borders
        width = min(window.width(), free.width() - frame.width())
        height = min(window.height(), free.height() - frame.height())
        if (width, height) != (window.width(), window.height()):
            window.resize(width, height)
            window.move(max(free.left(), window.x()), max(free.top(), window.y()))

    def save(self) -> None:
        self.window.settings.setValue("geometry", self.window.saveGeometry())
