"""pyqtgraph's first plot, paid in small steps while the user reads.

The first PlotWidget an app builds costs 50-100 ms on the UI thread (its view, its plot
item with four axes, the first paint of axis text), more than the 50 ms a stall may last;
later ones cost a third of that. After the background import of the lazy panes' modules
(pane_registry.prefetch_pane_modules), warm_up_plots builds one throw-away plot in three
steps, each on its own turn of the event loop, so the first pane with a chart opens
without the first-time costs."""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer

_STEP_GAP_MS = 60


def warm_up_plots(retries: int = 40) -> None:
    """Start the three steps once pyqtgraph is imported (polled: the import runs in a
    background thread); give up quietly after `retries` polls."""
    if "pyqtgraph" not in sys.modules or "pyqtgraph.widgets.PlotWidget" not in sys.modules:
        if retries > 0:
            QTimer.singleShot(250, lambda: warm_up_plots(retries - 1))
        return
    import pyqtgraph as pg

    held: dict[str, object] = {}

    def view() -> None:
        held["view"] = pg.GraphicsView()
        QTimer.singleShot(_STEP_GAP_MS, item)

    def item() -> None:
        held["item"] = pg.PlotItem()
        QTimer.singleShot(_STEP_GAP_MS, paint)

    def paint() -> None:
        v, p = held["view"], held["item"]
        v.setCentralItem(p)
        v.resize(160, 120)
        v.grab()  # axis text and the scene painted once, offscreen
        v.deleteLater()
        held.clear()

    QTimer.singleShot(0, view)
