"""Roofline pane: every kernel and autotune config of the open file on one log-log chart
against a GPU's roofs (one compute roof per precision, the DRAM diagonal, the ridge of
the kernels' precision marked). Hollow points are the model's prediction; filled points
are measurements when there are any. Datasheet or measured ceilings; hover a point for
its name, config, FLOP/s, bytes/s and percent of roof."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolTip, QVBoxLayout

from kx_core.model.gpu import GPU, SPECS, local_gpu
from kx_core.model.kernel import KernelModel, bandwidth_text, gpu_for, model_kernel
from kx_core.model.matrix import modelled, models
from kx_core.model.roofline import roofs
from kx_core.records.backends import backend_of
from kx_core.records.specialization_words import telling_apart
from kx_gui.panes.base import Pane
from kx_gui.panes.roofline_labels import far, nearest_on, place
from kx_gui.widgets.colors import distinct_colors

PRECISION_PENS = {
    "fp32": "#8e24aa",
    "tf32": "#3949ab",
    "bf16": "#00897b",
    "fp16": "#43a047",
    "fp8": "#f4511e",
}


CPU_TEXT = (
    "The roofline places GPU kernels against a GPU's roofs.\nThis is a C++ build for the CPU: "
    "Bench times it,\nand Summary counts its vector instructions."
)
EMPTY_TEXT = (
    "No kernel to place yet.\nOpen a kernel file: every kernel and autotune config it launches\n"
    "appears here against the GPU's roofs (hollow: the model; filled: measured by Bench)."
)


class RooflinePane(Pane):
    title = "Roofline"
    name = "roofline"
    listens = {
        "result_changed": "schedule",
        "kernel_changed": "_mark_selected",
        "measurements_changed": "schedule",
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.gpu_pick = QComboBox()
        self.gpu_pick.addItem("the target's GPU", None)
        local = local_gpu()
        if local is not None:
            self.gpu_pick.addItem(f"local: {local.name}", local)
        for g in SPECS.values():
            self.gpu_pick.addItem(g.name, g)
        self.measured_roofs = QCheckBox("measured ceilings")
        self.measured_roofs.setToolTip(
            "roofs from kx's measurements on this GPU (cached), else the datasheet"
        )
        bar = QHBoxLayout()
        # the user's own FLOP and byte counts, when they know better than the TTIR estimate
        self.flops_override = QLineEdit()
        self.bytes_override = QLineEdit()
        for field, what in ((self.flops_override, "FLOPs"), (self.bytes_override, "bytes")):
            field.setPlaceholderText(f"{what}: estimated")
            field.setMaximumWidth(130)
            field.setToolTip(
                f"{what} of every kernel on the chart (e.g. 2.7e8); empty: kx's estimate from the TTIR"
            )
            field.editingFinished.connect(self.render)
        for w in (
            QLabel("GPU"),
            self.gpu_pick,
            self.measured_roofs,
            self.flops_override,
            self.bytes_override,
        ):
            bar.addWidget(w)
        bar.addStretch(1)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        # everything is drawn in log10 coordinates; the axes only label them as powers of
        # ten (a bare ScatterPlotItem ignores PlotItem.setLogMode, so none is used)
        for axis in ("bottom", "left"):
            self.plot.getAxis(axis).setLogMode(True)
            self.plot.getAxis(axis).enableAutoSIPrefix(False)
        # the bytes the points are placed by: what the programs' loads and stores request
        # (the model's, no L2 reuse), not DRAM traffic measured (issue 31)
        self.plot.setLabel(
            "bottom", "arithmetic intensity (FLOP / byte requested by loads and stores, no L2 reuse)"
        )
        self.plot.setLabel("left", "FLOP/s")
        self.plot.addLegend(offset=(10, 10))
        # tip=None: pyqtgraph's own hover tip ("x: 1.76 y: 13.7 data=0", log10 coordinates
        # and an index) showed instead of _hovered's figures with a real mouse
        self.predicted = pg.ScatterPlotItem(
            size=12, hoverable=True, pen=pg.mkPen(width=2), brush=None, tip=None
        )
        self.measured = pg.ScatterPlotItem(size=12, hoverable=True, symbol="o", tip=None)
        for item in (self.predicted, self.measured):
            item.sigHovered.connect(self._hovered)
            item.sigClicked.connect(self._clicked)
        # Qt's own tooltip event, sent when the pointer rests: answered here with the point's
        # tip (the scene's answer, no item tooltip, hid ours about a second after the mouse
        # stopped, and a pointer resting on a point before any move got no tip at all)
        self.plot.viewport().installEventFilter(self)
        # a ring around the point of the kernel selected (here or in the Kernels pane)
        self.selected_ring = pg.ScatterPlotItem(size=24, pen=pg.mkPen("#212121", width=2), brush=None)
        self.point_labels: list[pg.TextItem] = []
        self.label_points: list[list[tuple[float, float]]] = []  # each label's points (log10)
        self.ridge_labels: list[tuple[pg.TextItem, tuple[float, float]]] = []
        self.roof_segments: list[tuple[float, float, float, float]] = []  # log10 x0 y0 x1 y1
        self.floor_segments: list[tuple[float, float, float, float]] = []
        self.leaders = None
        self._placing = False
        # labels go in pixels: placed again whenever the view's size or range changes
        view = self.plot.getPlotItem().getViewBox()
        view.sigResized.connect(self.place_labels)
        view.sigRangeChanged.connect(self.place_labels)
        self.kernel_rows: list[int] = []  # each model's row in the result's kernels
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.info)
        layout.addWidget(self.plot, 1)
        self.models: list[KernelModel] = []
        self.gpu: GPU | None = None
        self.gpu_pick.currentIndexChanged.connect(lambda *_: self.render())
        self.measured_roofs.toggled.connect(lambda *_: self.render())

    @property
    def measured_times(self) -> dict[str, float]:
        """Measured seconds per kernel display name (filled points), when measured on the
        build on screen (measured_note says why not)."""
        return self.session.measured_on_screen()

    @property
    def measured_note(self) -> str:
        return self.session.measured_note

    def render(self) -> None:
        result = self.session.result
        compiled = [k for k in (result.kernels if result else []) if modelled(k)]
        # launched kernels of a language whose IR the model does not read (TileLang)
        unmodelled = [
            k
            for k in (result.kernels if result else [])
            if k.status == "compiled" and k.launch and not modelled(k)
        ]
        self.plot.clear()
        self.plot.addItem(self.predicted)
        self.plot.addItem(self.measured)
        self.plot.addItem(self.selected_ring)
        self.point_labels = []
        self.label_points = []
        self.ridge_labels = []
        self.roof_segments = []
        self.floor_segments = []
        self.leaders = None  # the lines from points to their label, where not beside it
        all_kernels = list(result.kernels) if result else []
        self.kernel_rows = [next(i for i, k in enumerate(all_kernels) if k is c) for c in compiled]
        for side in ("left", "bottom"):
            self.plot.getPlotItem().showAxis(side, bool(compiled))
        if not compiled:
            self.models = []
            self.predicted.setData([])
            self.measured.setData([])
            cpu = result is not None and not backend_of(result.target).gpu
            self.info.setText(
                f"a C++ build for {result.target.spec}: the roofline places GPU kernels (Bench times this one)"
                if cpu
                else (
                    f"{len(unmodelled)} kernel(s) not placed: kx's work model reads Triton's TTIR, which a "
                    f"{_compiler(unmodelled[0])} kernel does not have"
                    if unmodelled
                    else "no compiled, launched kernel to place"
                )
            )
            # an empty chart says what would be on it, not bare axes
            text = (
                CPU_TEXT
                if cpu
                else (
                    f"Not placed: kx's work model counts FLOPs and bytes in Triton's TTIR,\n"
                    f"which a {_compiler(unmodelled[0])} kernel does not have."
                    if unmodelled
                    else EMPTY_TEXT
                )
            )
            empty = pg.TextItem(text, color="#616161", anchor=(0.5, 0.5))
            self.plot.addItem(empty)
            self.plot.getPlotItem().setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)
            return
        self.gpu = self.gpu_pick.currentData() or gpu_for(compiled[0])
        self.measured_roofs.setEnabled(bool(self.gpu.measured))
        use_measured = self.measured_roofs.isChecked() and bool(self.gpu.measured)
        flops, nbytes = self._override(self.flops_override), self._override(self.bytes_override)
        if flops is None and nbytes is None:
            self.models = models(compiled, self.gpu, self.measured_times)
        else:
            self.models = [
                model_kernel(k, self.gpu, flops, nbytes, self.measured_times.get(k.display_name))
                for k in compiled
            ]
        self._draw_roofs(use_measured)
        self._draw_points()
        precisions = sorted({m.work.precision for m in self.models})
        self.info.setText(
            f"{self.gpu.name} ({'measured ceilings' if use_measured else 'datasheet'}): "
            f"{len(self.models)} kernel/config point(s), hollow = model prediction, filled = achieved "
            "(kx's timing). "
            + (
                f"Not drawn: {self.measured_note} (Bench again). "
                if self.measured_note
                else self.achieved_note()
            )
            + "; ".join(
                f"{p}: roof {roofs(self.gpu, p, use_measured)[0] / 1e12:.0f} TFLOP/s, ridge "
                f"{roofs(self.gpu, p, use_measured)[0] / roofs(self.gpu, p, use_measured)[1]:.0f} FLOP/B"
                for p in precisions
            )
        )

    def achieved_note(self) -> str:
        """How many points have an achieved (measured) twin, and how to get the rest."""
        achieved = sum(1 for m in self.models if m.measured_s)
        if achieved == len(self.models):
            return ""
        if achieved:
            return (
                f"{achieved} of {len(self.models)} achieved: Bench with 'all autotune configs' "
                "times the rest. "
            )
        if local_gpu() is None:
            return (
                "No achieved points: this machine has no GPU (Bench on a GPU places them; "
                "`kx roofline FILE --timed` there prints them). "
            )
        return "No achieved points yet: Bench (with 'all autotune configs') places them. "

    def _override(self, field) -> float | None:
        text = field.text().strip()
        if not text:
            return None
        try:
            value = float(text)
        except ValueError:
            field.setText("")
            self.info.setText(f"{text!r} is not a number")
            return None
        return value if value > 0 else None

    def _draw_roofs(self, use_measured: bool) -> None:
        gpu = self.gpu
        bw = roofs(gpu, "fp32", use_measured)[1]
        xs = [m.roofline.intensity for m in self.models if np.isfinite(m.roofline.intensity)]
        x_lo = min([0.05] + [x / 4 for x in xs])
        peaks = {p: roofs(gpu, p, use_measured)[0] for p, _ in gpu.peaks}
        x_hi = max([4 * max(peaks.values()) / bw] + [x * 4 for x in xs])
        top = max(peaks.values())
        lg = np.log10
        self.plot.plot(lg([x_lo, top / bw]), lg([x_lo * bw, top]), pen=pg.mkPen("#555", width=2), name="DRAM")
        self.roof_segments.append((lg(x_lo), lg(x_lo * bw), lg(top / bw), lg(top)))
        for p, peak in peaks.items():
            pen = pg.mkPen(PRECISION_PENS.get(p, "#777"), width=2)
            self.plot.plot(lg([peak / bw, x_hi]), lg([peak, peak]), pen=pen, name=p)
            self.roof_segments.append((lg(peak / bw), lg(peak), lg(x_hi), lg(peak)))
        used = {m.work.precision for m in self.models}
        for p in used:
            ridge = peaks.get(p, gpu.peak(p)) / bw
            # right of the ridge, under its roof where it fits (place_labels: it ran off
            # the plot's right edge, and left of it into the legend)
            label = pg.TextItem(f"ridge {p}: {ridge:.0f} FLOP/B", color="#333", anchor=(0, 0))
            at = (float(np.log10(ridge)), float(np.log10(peaks.get(p, gpu.peak(p)))))
            label.setPos(*at)
            self.plot.addItem(label)
            self.ridge_labels.append((label, at))

    def _draw_points(self) -> None:
        colors = distinct_colors(max(1, len(self.models)))
        pred, meas = [], []
        for i, m in enumerate(self.models):
            color = tuple(int(c) for c in colors[i])
            x = np.log10(max(m.roofline.intensity, 1e-6))
            pred.append(
                {
                    "pos": (x, np.log10(max(m.roofline.flops / m.predicted_s, 1.0))),
                    "data": i,
                    "pen": pg.mkPen(color, width=2),
                    "brush": None,
                }
            )
            if m.measured_s:
                meas.append(
                    {
                        "pos": (x, np.log10(max(m.roofline.flops / m.measured_s, 1.0))),
                        "data": i,
                        "brush": pg.mkBrush(color),
                        "pen": None,
                    }
                )
        self.predicted.setData(pred)
        self.measured.setData(meas)
        self._draw_launch_floors()
        self._label_points(pred)
        self._mark_selected()
        self.plot.autoRange()
        self.place_labels()

    def _draw_launch_floors(self) -> None:
        """Each point's launch floor: no launch is faster than the GPU's launch time, so a
        kernel of F FLOP reaches at most F / t_launch, a dashed tick at its intensity (the
        floor the CLI names; a point on it is launch-bound)."""
        xs, ys = [], []
        for m in self.models:
            if not m.launch_floor_s or not np.isfinite(m.roofline.intensity):
                continue
            x = np.log10(max(m.roofline.intensity, 1e-6))
            y = np.log10(max(m.roofline.flops / m.launch_floor_s, 1.0))
            xs += [x - 0.2, x + 0.2]
            ys += [y, y]
            self.floor_segments.append((x - 0.2, y, x + 0.2, y))
        if xs:
            pen = pg.mkPen("#8d6e63", width=2, style=Qt.PenStyle.DashLine)
            self.plot.plot(xs, ys, pen=pen, connect="pairs", name="launch floor (FLOP / launch time)")

    def _label_points(self, pred: list[dict]) -> None:
        """Each point's short name beside it. Points closer than a label's height (configs
        the model puts on or near the same spot: 64x128 and 128x64 tiles often, or a point
        right of another at its height, where their labels would overlap) share one
        label listing them all, right of the cluster, with a thin leader from each point to
        it, so no name hides another and each name says which point is its. Two records
        of one name (two specializations) are told apart as the Kernels table does."""
        result = self.session.result
        apart = telling_apart(result.kernels)
        clusters: list[dict] = []  # {"x": rightmost x, "points": [(x, y)], "names": [...]}
        for p in sorted(pred, key=lambda p: p["pos"]):
            x, y = p["pos"]
            row = self.kernel_rows[p["data"]]
            kernel = result.kernels[row]
            name = kernel.config.short_label if kernel.config else kernel.name
            if row in apart:
                name = f"{name} ({apart[row]})"
            name = f'<span style="color:{p["pen"].color().name()}">{html.escape(name)}</span>'
            # a point under a label already placed (at its height, up to ~1.2 decades to the
            # right: a name's length) joins it; two labels there stacked over each other
            near = next(
                (c for c in clusters if -0.25 < x - c["x"] < 1.2 and abs(y - c["points"][0][1]) < 0.15), None
            )
            if near is None:
                clusters.append({"x": x, "points": [(x, y)], "names": [name]})
            else:
                near["x"] = max(near["x"], x)
                near["points"].append((x, y))
                if name not in near["names"]:
                    near["names"].append(name)
        for c in clusters:
            at = (c["x"] + 0.08, sum(y for _, y in c["points"]) / len(c["points"]))
            item = pg.TextItem(anchor=(0, 0))  # its top left: place_labels moves it
            item.setHtml("<br>".join(c["names"]))
            item.setPos(*at)
            self.plot.addItem(item)
            self.point_labels.append(item)
            self.label_points.append(c["points"])
        self.leaders = self.plot.plot([], [], pen=pg.mkPen("#9e9e9e", width=1), connect="pairs")

    def place_labels(self, *_) -> None:
        """Each label (the ridges' first, then the points') moved, in pixels, to the first
        place beside its point inside the view box that crosses no roof, no label placed
        before it and not the legend (roofline_labels.place); a leader from each point of
        a shared label, or of a label pushed away from its point."""
        if self._placing or not (self.point_labels or self.ridge_labels):
            return
        view = self.plot.getPlotItem().getViewBox()
        bounds = view.sceneBoundingRect().adjusted(2, 2, -2, -2)
        if bounds.width() < 20 or bounds.height() < 20:
            return
        self._placing = True
        try:
            scene = lambda x, y: view.mapViewToScene(QPointF(x, y))  # noqa: E731
            roofs = [(scene(x0, y0), scene(x1, y1)) for x0, y0, x1, y1 in self.roof_segments]
            legend = self.plot.getPlotItem().legend
            taken = [legend.sceneBoundingRect()] if legend is not None and legend.isVisible() else []
            dots = []
            for item in (self.predicted, self.measured):
                for s in item.data:
                    c = scene(s["x"], s["y"])
                    dots.append(QRectF(c.x() - 6, c.y() - 6, 12, 12))
            jobs = [(label, [at], True) for label, at in self.ridge_labels]
            jobs += [(label, pts, False) for label, pts in zip(self.point_labels, self.label_points)]
            leaders_x, leaders_y = [], []
            for label, pts, ridge in jobs:
                size = label.textItem.boundingRect()
                centres = [scene(x, y) for x, y in pts]
                xs, ys = [c.x() for c in centres], [c.y() for c in centres]
                r = 1 if ridge else 7  # a point's marker radius, plus a little
                at = QRectF(min(xs) - r, min(ys) - r, max(xs) - min(xs) + 2 * r, max(ys) - min(ys) + 2 * r)
                own = [d for d in dots if at.intersects(d)]
                # its points' own launch-floor ticks: part of what it labels (the label
                # goes beside them), the others' only to be avoided
                floors = []
                for x0, y0, x1, y1 in self.floor_segments:
                    a, b = scene(x0, y0), scene(x1, y1)
                    if any(abs((x0 + x1) / 2 - x) < 1e-6 for x, _ in pts) and not ridge:
                        at = at.united(QRectF(a, b).normalized().adjusted(0, -2, 0, 2))
                    else:
                        floors.append((a, b))
                rect = place(
                    at,
                    size.width(),
                    size.height(),
                    bounds,
                    taken,
                    roofs,
                    [d for d in dots if d not in own],
                    floors,
                    ridge=ridge,
                    centres=[] if ridge else centres,
                )
                taken.append(rect)
                label.setPos(view.mapSceneToView(rect.topLeft()))
                if ridge:
                    continue
                if far(rect, centres):
                    for (x, y), c in zip(pts, centres):
                        end = view.mapSceneToView(nearest_on(rect, c))
                        leaders_x += [x, end.x()]
                        leaders_y += [y, end.y()]
            if self.leaders is not None:
                self.leaders.setData(leaders_x, leaders_y, connect="pairs")
        finally:
            self._placing = False

    def _clicked(self, item, points, event=None) -> None:
        """A click on a point selects its kernel, as the Kernels pane does."""
        if len(points):
            self.session.select_kernel(self.kernel_rows[points[0].data()])

    def _mark_selected(self) -> None:
        row = self.session.kernel_index
        spots = [p for p in self.predicted.data if self.kernel_rows and self.kernel_rows[p["data"]] == row]
        self.selected_ring.setData([{"pos": (s["x"], s["y"])} for s in spots])

    def describe(self, i: int, measured: bool) -> str:
        m = self.models[i]
        t = m.measured_s if measured else m.predicted_s
        flops_s = m.roofline.flops / t
        best = (
            f", best case {m.predicted_min_s * 1e6:.1f} us with perfect L2 reuse" if m.predicted_min_s else ""
        )
        return (
            f"{m.kernel} ({'measured' if measured else 'predicted'})\n"
            f"{m.roofline.flops / 1e9:.3f} GFLOP, {m.roofline.bytes / 1e6:.3f} MB requested"
            + (f" ({m.unique_bytes / 1e6:.3f} MB compulsory)" if m.unique_bytes else "")
            + f", {m.work.precision}\n{flops_s / 1e12:.2f} TFLOP/s, {bandwidth_text(m, t)}, "
            f"{m.roofline.bound}-bound without L2 reuse, {t * 1e6:.1f} us{best}\n"
            + percent_of_roofs(m, flops_s)
        )

    def _hovered(self, item, points, event) -> None:
        self.show_tip(self.plot.mapFromScene(event.scenePos()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.plot.viewport() and event.type() == QEvent.Type.ToolTip:
            self.show_tip(event.pos())
            return True  # the scene's tooltip handling would hide ours
        return super().eventFilter(watched, event)

    def point_at(self, pos: QPoint):
        """(model index, measured?, the point's rectangle in the viewport) of the point
        under a viewport position, a filled (measured) one first; None over none."""
        scene = self.plot.mapToScene(pos)
        for item in (self.measured, self.predicted):
            if not item.isVisible() or not len(item.data):
                continue
            spots = item.pointsAt(item.mapFromScene(scene))
            if len(spots):
                centre = self.plot.mapFromScene(item.mapToScene(spots[0].pos()))
                half = max(6, int(spots[0].size()) // 2 + 2)
                rect = QRect(centre.x() - half, centre.y() - half, 2 * half, 2 * half)
                return spots[0].data(), item is self.measured, rect
        return None

    def show_tip(self, pos: QPoint) -> bool:
        """The tip of the point under `pos` (viewport coordinates), kept while the pointer
        stays on the point (its rectangle), or none. True when one is shown."""
        found = self.point_at(pos)
        if found is None:
            QToolTip.hideText()
            return False
        i, measured, rect = found
        viewport = self.plot.viewport()
        # shown as long as the pointer stays on the point (the rectangle), not for a timeout
        QToolTip.showText(viewport.mapToGlobal(pos), self.describe(i, measured), viewport, rect, 600_000)
        return True


def _intensity(x: float) -> str:
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def percent_of_roofs(m: KernelModel, flops_s: float) -> str:
    """How close `flops_s` (FLOP/s) comes to the roof, at each intensity the model has,
    each named: at the bytes requested, where the point is drawn, and at each tensor
    moved once (compulsory traffic, perfect L2 reuse). A tip that gave only the second
    said "9% of the roof" beside a point drawn at a third of that intensity."""
    drawn = m.roofline
    text = (
        f"{100 * flops_s / drawn.attainable:.0f}% of the roof at {_intensity(drawn.intensity)} FLOP/B "
        "(bytes requested, where the point is drawn)"
    )
    once = m.roofline_unique
    if once is not None and once.intensity != drawn.intensity:
        # with re-reads that hit L2, the first can pass 100%: the second is the bound
        text += (
            f"; {100 * flops_s / once.attainable:.0f}% at {_intensity(once.intensity)} FLOP/B "
            "(each tensor once)"
        )
    return text


def _compiler(kernel) -> str:
    """The compiler a non-Triton kernel came from ('tilelang'), as its record says."""
    extra = kernel.metadata.extra if kernel.metadata else {}
    return str(extra.get("compiler") or "non-Triton")
