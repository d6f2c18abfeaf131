"""E-graph speed against references measured in the same run.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_egraph.py

1. kx's in-house saturation of the six-term comm/assoc case (608 e-nodes; target
   <= 0.5 s), against egglog (Rust) saturating the same term in the same run.
2. Layout and first draw of a 2,000-node snapshot (the seven-term case, 1,939 e-nodes)
   in the E-graph pane (target <= 1.5 s; the pane lays out what fits and counts the
   rest), against dot laying out the whole graph, measured once.
3. Stepping between snapshots in the pane (target <= 200 ms each), against a repaint
   of the view.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kx_core.luminal import egraph as l2  # noqa: E402
from kx_core.luminal.egglog_backend import EgglogRun, program_for  # noqa: E402
from kx_core.luminal.egraph_layout import dot_binary, to_dot  # noqa: E402


def chain(n):
    t = "x0"
    for i in range(1, n):
        t = ("+", t, f"x{i}")
    return t


def timed(fn, n=5):
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return statistics.median(out)


def saturation() -> None:
    def ours():
        g = l2.EGraph()
        g.add(chain(6))
        assert g.run(l2.COMM_ASSOC, iter_limit=30, node_limit=10**6)["nodes"] == 608

    def egglog():
        EgglogRun(program_for([chain(6)], l2.COMM_ASSOC)).run(30, 10**6)

    a, b = timed(ours), timed(egglog)
    print(
        f"1. six-term comm/assoc saturation: kx {a * 1e3:.0f} ms (target 500), egglog {b * 1e3:.0f} ms: ratio {a / b:.1f}x"
    )


def pane() -> None:
    from PySide6.QtWidgets import QApplication

    from kx_gui.panes.egraph_pane import EgraphPane
    from kx_gui.session import Session

    app = QApplication.instance() or QApplication([])
    pane = EgraphPane(Session())
    pane.resize(1200, 800)
    pane.show()
    pane.source.setText("(+ (+ (+ (+ (+ (+ x0 x1) x2) x3) x4) x5) x6)")
    pane.rules.setCurrentText("comm_assoc")
    start = time.perf_counter()
    job = pane.saturate()  # the run and the layout on a job's thread (kx_gui.jobs), drawn here
    while not job.done:
        app.processEvents()
    saturate_and_draw = time.perf_counter() - start
    g = l2.EGraph()
    g.add(chain(7))
    start = time.perf_counter()
    g.run(l2.COMM_ASSOC, iter_limit=40, node_limit=10**6)
    saturate_only = time.perf_counter() - start
    pane.view.viewport().repaint()
    app.processEvents()
    draw = saturate_and_draw - saturate_only
    snap = pane.snapshots[-1]
    dot, *_ = to_dot(snap, max_nodes=10**6)
    start = time.perf_counter()
    subprocess.run([dot_binary(), "-Tjson"], input=dot, capture_output=True, text=True)
    whole = time.perf_counter() - start
    print(
        f"2. layout and first draw of a {snap.num_nodes}-node snapshot: {draw:.2f} s (target 1.5; "
        f"{pane.layout.hidden}); dot on the whole graph: {whole:.1f} s"
    )
    steps = []
    for k in list(range(len(pane.snapshots))) * 2:
        start = time.perf_counter()
        pane.slider.setValue(k)
        pane.view.viewport().repaint()
        app.processEvents()
        steps.append(time.perf_counter() - start)
    start = time.perf_counter()
    pane.view.viewport().repaint()
    app.processEvents()
    repaint = time.perf_counter() - start
    print(
        f"3. stepping between snapshots: median {statistics.median(steps) * 1e3:.0f} ms, worst "
        f"{max(steps) * 1e3:.0f} ms (target 200); a repaint alone {repaint * 1e3:.0f} ms"
    )


if __name__ == "__main__":
    saturation()
    pane()
