"""Luminal pane: the drills' views of a Luminal-style compile of y = relu(x @ w + b).

- Graph (L1): the primitive graph's semantics table, with what a naive executor would
  materialise (the [M, N, K] product of a matmul spelled as Mul + ReduceSum).
- Search (L3): the genetic search's best-so-far curve against the budget, the
  proxy-vs-measured scatter with Spearman's rho, and the finalists walk with each
  rejected candidate's reason.
- Slab (L4): the plan's buffers as rectangles (time along x, slab offset along y), fused
  or unfused, with the planned slab against one allocation per buffer; the phase
  breakdown of a run.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kx_core.luminal import arena as l4
from kx_core.luminal import graph as l1
from kx_core.luminal import search as l3
from kx_gui.panes.base import Pane
from kx_gui.widgets.colors import distinct_colors
from kx_gui.widgets.integer_axis import IntegerAxis
from kx_gui.widgets.lazy_page import LazyPage, LazyPages
from kx_gui.widgets.log_axis import LogAxis
from kx_gui.widgets.tables import row_table


class LuminalPane(LazyPages, Pane):
    title = "Luminal"
    shows_build = False
    name = "luminal"

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.tabs = QTabWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        # --- graph
        graph = QWidget()
        gl = QVBoxLayout(graph)
        bar = QHBoxLayout()
        self.dims = []
        for label, value in (("M", 64), ("K", 256), ("N", 64)):
            spin = QSpinBox()
            spin.setRange(1, 8192)
            spin.setValue(value)
            spin.valueChanged.connect(lambda *_: self.show_graph())
            bar.addWidget(QLabel(label))
            bar.addWidget(spin)
            self.dims.append(spin)
        bar.addStretch(1)
        gl.addLayout(bar)
        self.graph_info = QLabel()
        self.graph_info.setWordWrap(True)
        gl.addWidget(self.graph_info)
        self.graph_table = row_table(("id", "op", "inputs", "shape", "dtype", "what it means"), 5)
        gl.addWidget(self.graph_table, 1)
        self.tabs.addTab(graph, "Graph (L1)")
        # the search and slab tabs hold four plots: built when first shown (lazy_page)
        self._lazy_pages = [LazyPage(self._build_search), LazyPage(self._build_slab)]
        self.tabs.addTab(self._lazy_pages[0], "Search (L3)")
        self.tabs.addTab(self._lazy_pages[1], "Slab (L4)")
        self.show_graph()

    def _build_search(self, sl: QVBoxLayout) -> None:
        sbar = QHBoxLayout()
        self.budget = QSpinBox()
        self.budget.setRange(1, 24)
        self.budget.setValue(10)
        self.seed = QSpinBox()
        self.seed.setRange(0, 999)
        for w in (QLabel("budget"), self.budget, QLabel("seed"), self.seed):
            sbar.addWidget(w)
        sbar.addStretch(1)
        self.budget.valueChanged.connect(lambda *_: self.show_search())
        self.seed.valueChanged.connect(lambda *_: self.show_search())
        sl.addLayout(sbar)
        plots = QHBoxLayout()
        self.curve = pg.PlotWidget(
            background="w", title="best so far", axisItems={"bottom": IntegerAxis("bottom")}
        )
        self.curve.setLabel("bottom", "measurements")
        self.curve.setLabel("left", "ns")
        self.scatter = pg.PlotWidget(
            background="w",
            title="proxy vs measured (all 24 genomes)",
            axisItems={side: LogAxis(side) for side in ("bottom", "left")},  # labels that do not overlap
        )
        self.scatter.setLabel("bottom", "proxy cost")
        self.scatter.setLabel("left", "measured ns")
        self.scatter.setLogMode(True, True)  # the primitive loop is 20x the rest
        plots.addWidget(self.curve)
        plots.addWidget(self.scatter)
        sl.addLayout(plots, 2)
        self.search_info = QLabel()
        self.search_info.setWordWrap(True)
        sl.addWidget(self.search_info)
        self.finalists = row_table(("rank", "ns", "genome", "verdict"), 3)
        sl.addWidget(self.finalists, 1)
        self.show_search()

    def _build_slab(self, ll: QVBoxLayout) -> None:
        self.fused = QCheckBox("fused (one cuBLASLt call with the RELU_BIAS epilogue)")
        self.fused.setChecked(False)
        self.fused.toggled.connect(lambda *_: self.show_slab())
        ll.addWidget(self.fused)
        self.slab_info = QLabel()
        self.slab_info.setWordWrap(True)
        ll.addWidget(self.slab_info)
        self.slab_plot = pg.PlotWidget(background="w")
        self.slab_plot.setLabel("bottom", "DAG step")
        self.slab_plot.setLabel("left", "slab offset (KiB)")
        self.slab_plot.invertY(True)
        ll.addWidget(self.slab_plot, 2)
        self.phases = pg.PlotWidget(
            background="w", title="phases of drill L4's example run (s), not a measurement"
        )
        ll.addWidget(self.phases, 1)
        self.show_slab()

    # ------------------------------------------------------------ L1

    def show_graph(self) -> None:
        M, K, N = (s.value() for s in self.dims)
        g, *_ = l1.build_mlp(M, K, N)
        table = g.semantics_table()
        self.graph_table.setRowCount(len(table))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                self.graph_table.setItem(r, c, QTableWidgetItem(str(value)))
        self.graph_table.resizeColumnsToContents()
        self.graph_bytes = g.materialized_bytes()
        product = M * N * K * 4
        self.graph_info.setText(
            f"y = relu(x @ w + b) as {len(g.nodes)} primitive nodes ({', '.join(f'{k} {v}' for k, v in g.op_counts().items())}). "
            f"A naive executor materialises {self.graph_bytes / 1024:.0f} KiB, {product / 1024:.0f} KiB of it the "
            f"[M, N, K] = [{M}, {N}, {K}] product of the matmul: what fusing Mul into ReduceSum avoids."
        )

    # ------------------------------------------------------------ L3

    def show_search(self) -> None:
        space = l3.mlp_space()
        measure = l3.mlp_measure()
        self.search = l3.genetic_search(space, measure, budget=self.budget.value(), seed=self.seed.value())
        self.curve.clear()
        xs = list(range(1, len(self.search["curve"]) + 1))
        self.curve.plot(xs, self.search["curve"], pen=pg.mkPen("#1e88e5", width=2), symbol="o", symbolSize=6)
        optimum = min(measure(g) for g in l3.all_genomes(space))
        self.curve.addLine(y=optimum, pen=pg.mkPen("#43a047", style=Qt.PenStyle.DashLine))
        genomes = l3.all_genomes(space)
        proxy = [l3.mlp_proxy(g) for g in genomes]
        meas = [measure(g) for g in genomes]
        self.rho = l3.spearman(proxy, meas)
        self.scatter.clear()
        self.scatter.plot(proxy, meas, pen=None, symbol="o", symbolBrush="#e53935", symbolSize=7)
        ranked = self.search["ranked"]
        self.finalists.setRowCount(len(ranked))
        validate = l3.mlp_validate()
        try:
            rank, ns, genome, rejected = l3.select_finalist(ranked, validate)
            verdict = f"finalist: rank {rank} at {ns:.0f} ns after {len(rejected)} rejected"
        except RuntimeError as e:
            rank, verdict = None, str(e)
        for r, (ns, g) in enumerate(ranked):
            why = validate(g)
            cells = [str(r + 1), f"{ns:.0f}", ", ".join(f"{k}={v}" for k, v in g.items()),
                     "rejected: " + why if why else ("chosen" if rank == r + 1 else "valid")]  # fmt: skip
            for c, text in enumerate(cells):
                self.finalists.setItem(r, c, QTableWidgetItem(text))
        self.finalists.resizeColumnsToContents()
        self.search_info.setText(
            f"{self.search['measured']} of {l3.space_size(space)} genomes 'measured' on drill L3's model of a GPU (its mlp_measure, not a real run); best {self.search['curve'][-1]:.0f} ns "
            f"(optimum {optimum} ns, dashed). The FLOP proxy's Spearman rho against measurement: {self.rho:.2f}. {verdict}."
        )

    # ------------------------------------------------------------ L4

    def show_slab(self) -> None:
        dag, bufs, launches = l4.mlp_plan(fused=self.fused.isChecked())
        offsets = l4.plan_slab(dag, bufs, 64 << 20)
        order = l4.toposort(dag)
        step = {n: i for i, n in enumerate(order)}
        self.slab_plot.clear()
        colors = distinct_colors(len(bufs))
        self.slab_rects = []
        for i, b in enumerate(bufs):
            t0, t1 = min(step[u] for u in b.uses), max(step[u] for u in b.uses) + 1
            y0 = offsets[b.id] / 1024
            h = l4.aligned(b.bytes, 256) / 1024
            rect = pg.QtWidgets.QGraphicsRectItem(t0 + 0.05, y0, t1 - t0 - 0.1, h)
            rect.setBrush(pg.mkBrush(*colors[i], 160))
            rect.setPen(pg.mkPen("#37474f"))
            rect.setToolTip(f"{b.id}: {b.bytes} B at offset {offsets[b.id]}, used at {', '.join(b.uses)}")
            self.slab_plot.addItem(rect)
            label = pg.TextItem(b.id, color="#000", anchor=(0, 0))
            label.setPos(t0 + 0.1, y0)
            self.slab_plot.addItem(label)
            self.slab_rects.append((b.id, t0, t1, offsets[b.id], l4.aligned(b.bytes, 256)))
        self.slab_plot.getAxis("bottom").setTicks([[(i + 0.5, n) for i, n in enumerate(order)]])
        planned, naive = l4.slab_bytes(bufs, offsets), l4.naive_bytes(bufs)
        self.slab_info.setText(
            f"{len(launches)} launch(es): {', '.join(name for name, _, _ in launches)}. Slab {planned / 1024:.0f} KiB "
            f"planned against {naive / 1024:.0f} KiB with one allocation per buffer: buffers whose uses are "
            f"ordered share bytes (first fit, 256-byte alignment); overlaps checked: "
            f"{'none' if l4.check_no_overlap(dag, bufs, offsets) else 'FOUND'}."
        )
        # drill L4's example timeline (its test's figures): kx measures no Luminal run
        events = [("graph_compile", 0.4), ("search", 3.0), ("prepare", 0.1)] + [("execute", 0.0005)] * 2
        ph = l4.phase_breakdown(events)
        self.phases.clear()
        self.phases.addItem(
            pg.BarGraphItem(
                x=list(range(len(l4.PHASES))), height=[ph[p] for p in l4.PHASES], width=0.6, brush="#7e57c2"
            )
        )
        self.phases.getAxis("bottom").setTicks(
            [[(i, f"{p} {100 * ph['share'][p]:.1f}%") for i, p in enumerate(l4.PHASES)]]
        )
