"""Layout ownership speed against a reference measured in the same run.

    python benchmarks/bench_layout.py

Ownership of a 256x256 tensor in a blocked, an MMA and a dot-operand layout through
Triton's linear layouts (target <= 20 ms each), against the drill's pure-Python blocked
model (drill T2's owners()) on the same blocked layout.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kx_core.layout import blocked as t2  # noqa: E402
from kx_core.layout.linear import linear_bases, ownership  # noqa: E402

MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
LAYOUTS = {
    "blocked": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "nvidia_mma v2": MMA,
    "dot_op(mma)": "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>",
}


def median_ms(fn, n=7) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    shape = [256, 256]
    print("# bench_layout  256x256")
    for name, attr in LAYOUTS.items():
        ms = median_ms(lambda a=attr: ownership(linear_bases(a, shape, {"#mma": MMA})))
        print(f"{name:14} ownership (Triton linear layout + numpy): {ms:6.1f} ms   (target <= 20 ms)")
    model = t2.parse_blocked(LAYOUTS["blocked"])
    ref = median_ms(lambda: t2.owners(model, shape), n=3)
    fast = median_ms(lambda: ownership(linear_bases(LAYOUTS["blocked"], shape)))
    print(
        f"reference: the drill's Python blocked model, same layout: {ref:.0f} ms (linear is {ref / fast:.0f}x faster)"
    )
    heatmap(shape)


def heatmap(shape) -> None:
    """Render time of the Layout pane's heatmap (offscreen), against an empty repaint."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from kx_gui.panes.layout_pane import LayoutPane
    from kx_gui.session import Session

    app = QApplication.instance() or QApplication([])  # noqa: F841 - keeps Qt alive
    pane = LayoutPane(Session())
    pane.resize(900, 800)
    pane.show()
    QApplication.processEvents()
    empty = median_ms(lambda: pane.plot.viewport().repaint())
    pane.layout_field.setText(MMA)
    pane.shape_field.setText("x".join(map(str, shape)))

    def render():
        job = pane.refresh()  # computed on a job's thread (kx_gui.jobs), drawn here
        while not job.done:
            QApplication.processEvents()
        pane.plot.viewport().repaint()

    ms = median_ms(render)
    print(
        f"heatmap of {shape[0]}x{shape[1]} (ownership + colours + paint): {ms:.1f} ms   (target <= 100 ms); "
        f"reference: repaint of the empty plot {empty:.1f} ms"
    )


if __name__ == "__main__":
    main()
