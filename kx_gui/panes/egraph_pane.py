"""E-graph pane: equality saturation step by step.

Run a term with kx's engine or egglog, or open an `.egg` program (egglog). The last
iteration is laid out once by Graphviz's dot, one dashed box per e-class; the slider
steps through the iterations as subsets of that picture, so nothing moves: e-nodes that
are new in an iteration are outlined green, classes merged in it boxed orange, the
e-nodes of the cheapest program (AST size or op cost) filled yellow, and the ops matching
the search box outlined blue. Beside it: classes and e-nodes per iteration, and each
rule's matches and time. A graph too large to draw whole says what it left out.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
)

from kx_core.base.data import data_path
from kx_core.luminal import egraph as l2
from kx_core.luminal.egraph_layout import (
    COSTS,
    EGGLOG_COST,
    GraphLayout,
    LayoutError,
    StepMarks,
    all_step_marks,
    forward_map,
    layout,
)
from kx_core.luminal.egraph_run import run as run_egraph
from kx_gui.jobs import Job
from kx_gui.panes.base import Pane
from kx_gui.widgets.integer_axis import IntegerAxis
from kx_gui.widgets.tables import row_table

EXAMPLES = str(data_path("egraph"))
NEW, MERGED, CHOSEN, FOUND = QColor("#2e7d32"), QColor("#ef6c00"), QColor("#fff59d"), QColor("#1565c0")


class GraphView(QGraphicsView):
    """Pan with the mouse, zoom with the wheel; `fit` shows the whole graph. A fitted view
    stays fitted as it is shown and resized, until the user zooms: a graph drawn while
    its dock was hidden (or small) was fitted to a viewport it never had."""

    def __init__(self, scene) -> None:
        super().__init__(scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.fitted = False

    def fit(self) -> None:
        """The whole drawing in view (a margin around it), and kept so on resizes."""
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect.adjusted(-8, -8, 8, 8), Qt.AspectRatioMode.KeepAspectRatio)
        self.fitted = True

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt's name
        factor = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
        self.scale(factor, factor)
        self.fitted = False  # the user's zoom: kept

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.fitted:
            self.fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.fitted:
            self.fit()


class EgraphPane(Pane):
    title = "E-graph"
    shows_build = False
    name = "egraph"
    seconds = 10.0  # the longest a saturation may run before the child is stopped

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(0, 0, 0, 0)
        layout_.addLayout(self._input_bar())
        layout_.addLayout(self._view_bar())
        self.info = QLabel()
        self.info.setWordWrap(True)
        layout_.addWidget(self.info)
        layout_.addWidget(self._graph_and_growth(), 1)

        self.snapshots: list[l2.Snapshot] = []
        self.layout: GraphLayout | None = None
        self.final = lambda c: c
        self.marks: tuple[StepMarks, ...] = ()  # per iteration, for the cost shown
        self.node_items: dict[tuple, tuple[QGraphicsPathItem, QGraphicsSimpleTextItem]] = {}
        self.edge_items: list[tuple[tuple, QGraphicsPathItem]] = []
        self.box_items: list[QGraphicsRectItem] = []
        self.outputs: list[str] = []
        self.visible: set[tuple] = set()
        self.chosen: set[tuple] = set()
        self.run_button.clicked.connect(self.saturate)
        self.fit_button.clicked.connect(self.fit_to_view)
        self.source.returnPressed.connect(self.saturate)
        self.open_button.clicked.connect(self._open)
        self.slider.valueChanged.connect(self.show_step)
        self.cost.currentIndexChanged.connect(lambda *_: self._recost())
        self.search.textChanged.connect(lambda *_: self.show_step(self.slider.value()))
        self.inline.toggled.connect(lambda *_: self._relayout())
        self.scene.selectionChanged.connect(self._on_selection)
        self.selected = None

    def _input_bar(self) -> QHBoxLayout:
        """The term (or .egg file), rule set and engine, and Saturate."""
        self.source = QLineEdit("(+ (* x y) (* x z))")
        self.source.setPlaceholderText("a term like (+ (* x y) (* x z)), or the path of an .egg program")
        self.rules = QComboBox()
        self.rules.addItems(["algebra", "comm_assoc"])
        self.engine = QComboBox()
        self.engine.addItems(["kx", "egglog"])
        self.run_button = QPushButton("Saturate")
        self.open_button = QPushButton("Open .egg…")
        bar = QHBoxLayout()
        for w in (self.source, self.rules, self.engine, self.run_button, self.open_button):
            bar.addWidget(w)
        return bar

    def _view_bar(self) -> QHBoxLayout:
        """Which iteration is drawn, how, and what is extracted."""
        self.inline = QCheckBox("inline leaves")
        self.cost = QComboBox()
        self.cost.addItems(list(COSTS))
        self.search = QLineEdit()
        self.search.setPlaceholderText("find op")
        self.search.setMaximumWidth(120)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setEnabled(False)
        self.slider.setMinimumWidth(160)
        self.step_label = QLabel()
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip(
            "the whole e-graph in view (View ▸ Fit the E-graph to the View, Ctrl+0); the wheel "
            "zooms, a drag pans, hovering an e-node names its class"
        )
        bar = QHBoxLayout()
        for w in (
            QLabel("iteration"),
            self.slider,
            self.step_label,
            self.inline,
            QLabel("extract by"),
            self.cost,
            self.search,
            self.fit_button,
        ):
            bar.addWidget(w)
        return bar

    def _graph_and_growth(self) -> QSplitter:
        """The e-graph drawing; beside it the growth per iteration and the rule profile."""
        self.scene = QGraphicsScene(self)
        self.view = GraphView(self.scene)
        # both axes count (iterations; e-nodes and e-classes): whole-number ticks
        self.growth = pg.PlotWidget(
            background="w", axisItems={"bottom": IntegerAxis("bottom"), "left": IntegerAxis("left")}
        )
        self.growth.setLabel("bottom", "iteration")
        self.growth.addLegend(offset=(5, 5))
        self.profile = row_table(("rule", "matches", "ms"), 0)
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.growth)
        side.addWidget(self.profile)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(side)
        split.setSizes([650, 350])
        return split

    # ------------------------------------------------------------ running

    def _open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open an egglog program", EXAMPLES, "egglog (*.egg)")
        if path:
            self.source.setText(path)
            self.saturate()

    def saturate(self) -> Job:
        """Run the source to saturation (or its budgets), keeping every iteration: the
        run (in kx's e-graph service child, under hard limits) and the graph's layout on
        a job (kx_gui.jobs), the drawing on the window's thread. The Job is true once
        drawn; false with the reason shown (the last good run stays on screen)."""
        text = self.source.text().strip()
        is_program = text.endswith(".egg")
        try:
            if is_program:
                with open(text, encoding="utf-8") as f:
                    source = f.read()
            else:
                source = text
        except (OSError, UnicodeDecodeError) as e:
            self.info.setText(f"cannot run it: {e}")
            return Job.finished_now("run", False)
        seconds, rules, inline = self.seconds, self.rules.currentText(), self.inline.isChecked()
        engine = "egglog" if is_program else self.engine.currentText()
        self.info.setText("saturating…")

        cost = self.cost.currentText()

        def compute():
            # a schedule that never saturates costs seconds of the child, not the window
            result = run_egraph(source, is_program, seconds=seconds, rules=rules, engine=engine)
            final = forward_map(result.snapshots)
            try:
                drawn = (
                    layout(result.snapshots[-1], final, inline_leaves=inline) if result.snapshots else None
                )
            except LayoutError as e:
                drawn = e
            has_own = bool(result.snapshots and result.snapshots[-1].op_costs)
            marks = all_step_marks(result.snapshots, final, cost if cost in COSTS or has_own else "op cost")
            return result, final, drawn, marks

        return self.jobs.submit("run", compute, lambda v: self._show_run(*v), self._failed)

    def _recost(self) -> Job:
        """Another cost: every iteration's extraction again, on a job (kx_gui.jobs)."""
        if not self.snapshots:
            return Job.finished_now("run", False)
        snaps, final, cost = self.snapshots, self.final, self.cost.currentText()

        def show(marks: tuple[StepMarks, ...]) -> bool:
            self.marks = marks
            self.show_step(self.slider.value())
            return True

        return self.jobs.submit("cost", lambda: all_step_marks(snaps, final, cost), show, self._failed)

    def _failed(self, error: BaseException) -> bool:
        known = isinstance(error, (OSError, UnicodeDecodeError, ValueError))
        self.info.setText(f"cannot run it: {error}" if known else f"{type(error).__name__}: {error}")
        return False

    def _show_run(self, result, final, drawn, marks) -> bool:
        snaps, report, engine = result.snapshots, result.report, result.engine
        self.outputs = result.outputs
        self.snapshots = snaps
        self.final = final
        self.marks = marks
        # egglog runs can be extracted with the program's own :cost annotations too
        self.cost.blockSignals(True)
        current = self.cost.currentText()
        self.cost.clear()
        self.cost.addItems(list(COSTS) + ([EGGLOG_COST] if snaps and snaps[-1].op_costs else []))
        self.cost.setCurrentText(current if self.cost.findText(current) >= 0 else "op cost")
        self.cost.blockSignals(False)
        self.engine_used = engine
        self.report = report
        self._plot_growth()
        if not snaps:
            return False
        if isinstance(drawn, LayoutError):
            self.info.setText(str(drawn))
            return False
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(snaps) - 1)
        self.slider.setValue(len(snaps) - 1)
        self.slider.setEnabled(len(snaps) > 1)
        self.slider.blockSignals(False)
        self._draw_layout(drawn)
        return True

    def _relayout(self) -> Job:
        """Lay the last run out again (the inline-leaves box), on a job."""
        if not self.snapshots:
            return Job.finished_now("run", False)
        snap, final, inline = self.snapshots[-1], self.final, self.inline.isChecked()

        def failed(error: BaseException) -> bool:
            self.info.setText(str(error))
            return False

        return self.jobs.submit(
            "run", lambda: layout(snap, final, inline_leaves=inline), self._draw_layout, failed
        )

    def _draw_layout(self, drawn: GraphLayout) -> bool:
        self.layout = drawn
        self._build_scene()
        self.show_step(self.slider.value() if self.slider.isEnabled() else len(self.snapshots) - 1)
        # the whole graph first, however small (issue 54: a 400-node graph opened at 60%
        # on its first root, a corner with no way back to the whole); the wheel zooms in
        self.fit_to_view()
        return True

    def fit_to_view(self) -> None:
        """The whole e-graph in view (the Fit button, View ▸ Fit the E-graph to the View)."""
        self.view.fit()

    # ------------------------------------------------------------ drawing

    def _build_scene(self) -> None:
        self.scene.clear()
        self.node_items.clear()
        self.edge_items.clear()
        self.box_items.clear()
        font = QFont()
        font.setPointSize(8)
        edge_pen = QPen(QColor("#78909c"), 0.8)
        for e in self.layout.edges:
            if len(e.points) < 4:
                continue
            path = QPainterPath(QPointF(*e.points[0]))
            pts = e.points[1:]
            for i in range(0, len(pts) - 2, 3):
                path.cubicTo(QPointF(*pts[i]), QPointF(*pts[i + 1]), QPointF(*pts[i + 2]))
            item = self.scene.addPath(path, edge_pen)
            item.setZValue(0)
            self.edge_items.append((e.src, item))
            if e.head:  # the arrowhead, on the class box the edge points into
                arrow = self.scene.addPolygon(
                    QPolygonF([QPointF(*p) for p in e.head]), edge_pen, QBrush(edge_pen.color())
                )
                arrow.setZValue(0)
                self.edge_items.append((e.src, arrow))
        for n in self.layout.nodes:
            rect = QRectF(n.x - n.w / 2, n.y - n.h / 2, n.w, n.h)
            shape = QPainterPath()
            shape.addRoundedRect(rect, 4, 4)
            box = self.scene.addPath(shape, QPen(QColor("#455a64"), 1), QBrush(QColor("white")))
            box.setZValue(2)
            box.setToolTip(f"class c{n.cid}: {n.label}")
            box.setFlag(QGraphicsPathItem.GraphicsItemFlag.ItemIsSelectable, True)
            text = self.scene.addSimpleText(n.label, font)
            text.setPos(n.x - text.boundingRect().width() / 2, n.y - text.boundingRect().height() / 2)
            text.setZValue(3)
            self.node_items[n.key] = (box, text)

    def _plot_growth(self) -> None:
        self.growth.clear()
        xs = [s.iteration for s in self.snapshots]
        self.growth.plot(
            xs,
            [s.num_classes for s in self.snapshots],
            pen="#1e88e5",
            symbol="o",
            symbolSize=5,
            name="classes",
        )
        self.growth.plot(
            xs, [s.num_nodes for s in self.snapshots], pen="#e53935", symbol="t", symbolSize=5, name="e-nodes"
        )

    def show_step(self, k: int) -> None:
        """Show iteration k: its e-nodes, what is new, what merged, the extraction (marks
        computed with the run, kx_core.luminal.egraph_layout.StepMarks: only colours here)."""
        if not self.snapshots or self.layout is None or len(self.marks) != len(self.snapshots):
            return
        k = max(0, min(k, len(self.snapshots) - 1))
        snap, marks = self.snapshots[k], self.marks[k]
        keys = marks.shown
        self.chosen = set(marks.chosen)
        found = self.search.text().strip()
        self.visible = set()
        for key, (box, text) in self.node_items.items():
            shown = key in keys
            box.setVisible(shown)
            text.setVisible(shown)
            if not shown:
                continue
            self.visible.add(key)
            op = str(key[1][0])
            if found and found in op:
                pen = QPen(FOUND, 2.5)
            elif key in marks.new:
                pen = QPen(NEW, 2.5)
            else:
                pen = QPen(QColor("#455a64"), 1)
            box.setPen(pen)
            box.setBrush(QBrush(CHOSEN if key in self.chosen else QColor("white")))
        for src, item in self.edge_items:
            item.setVisible(src in self.visible)
        self._draw_boxes(marks)
        self._fill_profile(snap)
        drawn = sum(1 for key in keys if key in self.node_items)
        self.step_label.setText(
            f"{k}/{len(self.snapshots) - 1}: {snap.num_classes} classes, {snap.num_nodes} e-nodes, "
            f"+{len(snap.new_nodes)} new, {len(snap.merged)} merged"
        )
        stop = self.snapshots[-1].stop or "iteration limit"
        hidden = self.layout.hidden
        extracted = "; ".join(self.outputs)
        self.info.setText(
            f"{self.engine_used}: {stop} after {len(self.snapshots) - 1} iteration(s). Drawn here: {drawn} e-node(s)."
            + (f" {hidden}." if hidden else "")
            + (f" {self.layout.packed}." if self.layout.packed else "")
            + " Green: new in this iteration; orange box: merged in it; yellow: the cheapest program"
            + f" ({self.cost.currentText()})."
            + (f" egglog: {extracted}" if extracted else "")
        )

    def _on_selection(self) -> None:
        """A clicked e-node: its class, its op and the classes it uses."""
        items = self.scene.selectedItems()
        for key, (box, _text) in self.node_items.items():
            if box in items:
                cid, enode = key
                kids = ", ".join(f"c{k}" for k in enode[1:]) or "none (a leaf)"
                self.selected = key
                self.info.setText(
                    f"selected: e-node {enode[0]} in class c{cid}; its children: {kids}. "
                    + self.info.text().split("selected:")[0].strip()
                )
                return

    def _draw_boxes(self, marks: StepMarks) -> None:
        """A dashed box around each class of iteration k (around the e-nodes it has then)."""
        for item in self.box_items:
            self.scene.removeItem(item)
        self.box_items.clear()
        by_class: dict[int, list[QRectF]] = {}
        for c, keys in marks.classes.items():
            for key in keys:
                entry = self.node_items.get(key)
                if entry:
                    by_class.setdefault(c, []).append(entry[0].boundingRect())
        for c, rects in by_class.items():
            r = rects[0]
            for other in rects[1:]:
                r = r.united(other)
            r = r.adjusted(-6, -6, 6, 6)
            merged = self.final(c) in marks.merged
            pen = QPen(MERGED if merged else QColor("#b0bec5"), 2 if merged else 1, Qt.PenStyle.DashLine)
            item = self.scene.addRect(r, pen)
            item.setZValue(1)
            item.setToolTip(
                f"class c{c}: {len(marks.classes[c])} e-node(s)"
                + (" (merged in this iteration)" if merged else "")
            )
            self.box_items.append(item)

    def _fill_profile(self, snap: l2.Snapshot) -> None:
        rules = sorted(snap.matches.items(), key=lambda kv: -kv[1])
        self.profile.setRowCount(len(rules))
        for r, (name, count) in enumerate(rules):
            self.profile.setItem(r, 0, QTableWidgetItem(name))
            self.profile.setItem(r, 1, QTableWidgetItem(str(count)))
            self.profile.setItem(r, 2, QTableWidgetItem(f"{snap.rule_times.get(name, 0.0) * 1e3:.2f}"))
        self.profile.resizeColumnsToContents()
