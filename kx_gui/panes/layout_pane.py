"""Layout pane: which lane, warp and register owns every element of a layout, as a
heatmap (pyqtgraph), for every distributed layout kind (through Triton's linear layouts).

Clicking a TTGIR line with a tensor type opens its layout at that tensor's shape. Hover
an element for all its owners; pick a warp or a lane to isolate it; export a PNG."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolTip,
    QVBoxLayout,
)

from kx_core.ir.anatomy import layout_alias_texts
from kx_core.layout.linear import LayoutError, Ownership, conversion_class, linear_bases, ownership
from kx_core.layout.shared import bank_access, is_shared, placement
from kx_gui.jobs import Job
from kx_gui.panes.base import Pane
from kx_gui.widgets.colors import distinct_colors

COLOR_BY = ("lane", "warp", "register", "thread")


def _derivation(aliases: dict[str, str], attr: str, shape: list[int], elem_bytes: int) -> str:
    """Why the coalesce pass gave this load its vector width, term by term."""
    from kx_core.ir.anatomy import parse_layout
    from kx_core.layout.blocked import explain_load_layout, parse_blocked

    text = aliases.get(attr, attr)
    layout = parse_layout(text)
    if not layout or layout["kind"] != "blocked":
        return ""
    terms = explain_load_layout(parse_blocked(text), shape, elem_bytes * 8)
    parts = [
        f"{k} {v}" + (" ◀" if k in terms["limited by"] else "")
        for k, v in terms.items()
        if k not in ("chosen", "limited by")
    ]
    why = "" if terms["limited by"] else " (above every term: not the coalesce pass's choice)"
    return f"\nsizePerThread along the contiguous dim = {terms['chosen']}{why}: min of " + ", ".join(parts)


def _default_shape(layout: dict, typed: str) -> list[int]:
    """A shape for a layout no compiled tensor carries: the one typed in the shape field
    when its rank fits, else 64 per dimension."""
    rank = {
        "blocked": len(layout.get("sizePerThread", [])),
        "swizzled_shared": len(layout.get("order", [])),
        "slice": len(layout.get("parent", {}).get("sizePerThread", [0, 0])) - 1,
        "linear": len((layout.get("register") or layout.get("lane") or [[0, 0]])[0]),
    }.get(layout["kind"], 2)
    try:
        shape = [int(x) for x in typed.lower().split("x")]
    except ValueError:
        shape = []
    return shape if len(shape) == rank else [64] * max(rank, 1)


def _source_caption(found, shape: list[int], where: str) -> str:
    """What the drawing is of: the source call, and the compile's tensors it came from."""
    call = found.call
    head = f"{where}, line {call.line}: {call.text}"
    at = "x".join(map(str, shape))
    if found.shapes and found.note:  # read from the compile at one operation (a helper's layout)
        return f"{head}\n= {found.alias} in {found.kernel}'s TTGIR, drawn at {at} ({found.note})"
    if found.shapes:
        others = ", ".join("x".join(map(str, s)) for s in found.shapes[1:4])
        return (
            f"{head}\n= {found.alias} in {found.kernel}'s TTGIR, drawn at {at} (the largest tensor that "
            f"carries it" + (f"; also {others}" if others else "") + ")"
        )
    return f"{head}\n{found.note} (drawn at {at})"


EMPTY_TEXT = (
    "No layout yet.\nClick a tensor, load or convert_layout line of TTGIR in the Stages pane,\n"
    "a layout written in a Gluon source (gl.BlockedLayout(...)),\n"
    "or type a layout (#ttg.blocked<{...}> or an alias) and a shape above and press Enter."
)


def wrap_width(n: int) -> int:
    """Elements per row when a 1-D layout is drawn: a power of two near sqrt(n), so 1024
    elements draw as 32 x 32 rather than a one-pixel line."""
    width = 1
    while width * width < n:
        width *= 2
    return min(width, n) if n else 1


def as_grid(values: np.ndarray, width: int, fill) -> np.ndarray:
    """A 1-D array as rows of `width`, the last row padded with `fill`."""
    rows = -(-values.size // width)
    out = np.full(rows * width, fill, dtype=values.dtype)
    out[: values.size] = values
    return out.reshape(rows, width)


class LayoutPane(Pane):
    title = "Layout"
    name = "layout"
    listens = {
        "view_requested": "show_view",
        "kernel_changed": "_kernel_changed",
        "document_opened": "_document_opened",
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.layout_field = QLineEdit()
        self.layout_field.setPlaceholderText("#ttg.blocked<{...}> or an alias of the selected kernel's TTGIR")
        self.shape_field = QLineEdit("64x64")
        self.shape_field.setMaximumWidth(90)
        self.color_by = QComboBox()
        self.color_by.addItems(COLOR_BY)
        self.warp_pick = QSpinBox()
        self.lane_pick = QSpinBox()
        for spin, label in ((self.warp_pick, "warp"), (self.lane_pick, "lane")):
            spin.setRange(-1, 255)
            spin.setValue(-1)
            spin.setSpecialValueText(f"all {label}s")
        self.export_button = QPushButton("Export PNG…")
        bar = QHBoxLayout()
        for w in (
            self.layout_field,
            QLabel("shape"),
            self.shape_field,
            QLabel("colour by"),
            self.color_by,
            self.warp_pick,
            self.lane_pick,
            self.export_button,
        ):
            bar.addWidget(w)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.legend = QLabel()  # the colour of each lane, warp, ... (HTML swatches)
        self.legend.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setAspectLocked(True)
        self.plot.invertY(True)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self.image.hoverEvent = self._hover
        self.empty = pg.TextItem(EMPTY_TEXT, color="#616161", anchor=(0.5, 0.5))
        self.plot.addItem(self.empty)
        self._show_empty(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.info)
        layout.addWidget(self.legend)
        layout.addWidget(self.plot, 1)
        self.ownership: Ownership | None = None
        self.layout_field.returnPressed.connect(self.refresh)
        self.shape_field.returnPressed.connect(self.refresh)
        for w in (self.color_by, self.warp_pick, self.lane_pick):
            (w.currentIndexChanged if isinstance(w, QComboBox) else w.valueChanged).connect(
                lambda *_: self._paint()
            )
        self.export_button.clicked.connect(self._export)
        self.shared_offsets: np.ndarray | None = None
        self.shared_bits = 16
        self._access_mask = None
        self.conversion: tuple[Ownership, Ownership] | None = None
        # the kernel record whose TTGIR the view on screen was drawn from (a clicked line,
        # an alias): another kernel, config, file or target selected clears it
        self.drawn_for: tuple | None = None

    def _kernel_key(self) -> tuple | None:
        k = self.session.kernel
        return (self.session.build, k.display_name, k.specialization) if k is not None else None

    def _document_opened(self) -> None:
        """Another file: the layout typed or clicked was of the last one's TTGIR (an alias
        such as #blocked1 names another layout there), so the field empties."""
        self.layout_field.clear()

    def _kernel_changed(self, _kernel, _source_map) -> None:
        if self.drawn_for is not None and self.drawn_for != self._kernel_key():
            self.drawn_for = None
            self.jobs.drop("view")
            self.ownership = self.shared_offsets = self.conversion = None
            self._access_mask = None
            self._show_empty(True)
            self.info.setText(
                "the layout shown was of another kernel, config or build: click a TTGIR line of this one"
            )

    def _show_empty(self, empty: bool) -> None:
        """No layout yet: say how to get one, with no axes to read."""
        self.empty.setVisible(empty)
        for side in ("left", "bottom"):
            self.plot.getPlotItem().showAxis(side, not empty)
        if empty:
            self.image.clear()
            self.legend.setText("")
            self.plot.getPlotItem().setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)
            self.empty.setPos(0, 0)

    def _set_axes(self, shape: tuple[int, ...], width: int) -> None:
        plot = self.plot.getPlotItem()
        if len(shape) == 1:
            plot.setLabel("bottom", f"element index mod {width}")
            plot.setLabel("left", f"element index ÷ {width}")
        else:
            plot.setLabel("bottom", f"dim 1 (of {shape[1]})")
            plot.setLabel("left", f"dim 0 (of {shape[0]})")

    def _set_legend(self, palette: np.ndarray, count: int, what: str) -> None:
        """Swatches for up to 64 colours (lanes, warps, banks); beyond that, a hint."""
        if count > 64:
            self.legend.setText(f"{count} {what}s: hover an element for its owners")
            return
        swatches = " ".join(
            f'<span style="background-color:#{r:02x}{g:02x}{b:02x}">&nbsp;&nbsp;&nbsp;</span>&nbsp;{i}'
            for i, (r, g, b) in enumerate(palette[:count].tolist())
        )
        self.legend.setText(f"<small>{what}: {swatches}</small>")

    # ------------------------------------------------------------ data

    def _aliases(self) -> dict[str, str]:
        kernel = self.session.kernel
        text = kernel.stages.get("ttgir", "") if kernel is not None else ""
        return layout_alias_texts(text)

    # Every view computes its layouts on a job (kx_gui.jobs: Triton's linear layouts run in
    # the layout service child, the first call starts it) and draws on the window's thread.
    # Each method returns the Job; it is true once drawn, false with a message shown.

    def show_conversion(self, src: str, dst: str, shape: list[int]) -> Job:
        """A convert_layout: the source layout, the destination, and per element whether it
        stays in its thread (green), moves to another lane of its warp (amber) or to
        another warp (red), side by side."""
        aliases = self._aliases()

        def compute():
            a = ownership(linear_bases(src, shape, aliases))
            b = ownership(linear_bases(dst, shape, aliases))
            return a, b, conversion_class(a, b)

        return self.jobs.submit(
            "view", compute, lambda v: self._draw_conversion(src, dst, shape, *v), self._failed
        )

    def _failed(self, error: BaseException) -> bool:
        """A layout kx cannot read says why; anything else (the layout child crashed inside
        Triton, say) says what it was."""
        known = isinstance(error, (LayoutError, KeyError, ValueError))
        self.info.setText(str(error) if known else f"{type(error).__name__}: {error}")
        return False

    def _draw_conversion(self, src: str, dst: str, shape: list[int], a, b, cost: str) -> bool:
        self.conversion = (a, b)
        self.ownership = a
        self.shared_offsets = None
        self._access_mask = None
        self.layout_field.setText(src)
        self.shape_field.setText("x".join(map(str, shape)))
        same_warp = a.first_warp == b.first_warp
        same_thread = same_warp & (a.first_lane == b.first_lane)
        self.moves = np.where(same_thread, 0, np.where(same_warp, 1, 2))
        self.info.setText(
            f"convert_layout {src} -> {dst} at {'x'.join(map(str, shape))}: {cost.replace('_', ' ')}\n"
            f"left: source by lane | middle: destination by lane | right: each element stays in its thread "
            f"(green: {int((self.moves == 0).sum())}), changes lane ({int((self.moves == 1).sum())}) "
            f"or changes warp (red: {int((self.moves == 2).sum())})"
        )
        palette = distinct_colors(max(int(a.first_lane.max()), int(b.first_lane.max())) + 1)
        moves_rgb = np.array([(102, 187, 106), (255, 179, 0), (229, 57, 53)], dtype=np.uint8)[self.moves]
        panels = [palette[a.first_lane], palette[b.first_lane], moves_rgb]
        if a.first_lane.ndim == 1:  # wrapped as a 1-D layout is (wrap_width)
            width = wrap_width(a.first_lane.size)
            panels = [np.stack([as_grid(p[:, c], width, 255) for c in range(3)], axis=-1) for p in panels]
        gap = np.full((panels[0].shape[0], 2, 3), 255, dtype=np.uint8)
        image = np.concatenate([panels[0], gap, panels[1], gap, panels[2]], axis=1)
        self._show_empty(False)
        self._set_legend(palette, len(palette), "lane")
        self.image.setImage(np.transpose(image, (1, 0, 2)), levels=(0, 255))
        self.plot.autoRange()
        return True

    def show_access(self, attr: str, shape: list[int], elem_bytes: int) -> Job:
        """A load/store: its layout, with warp 0's first access marked and its coalescing
        (bytes, 32-byte sectors, efficiency) for a row-major tensor of that element size."""
        from kx_core.layout.linear import first_access

        aliases = self._aliases()

        def compute():
            bases = linear_bases(attr, shape, aliases)
            own = ownership(bases)
            return bases, own, first_access(own, elem_bytes), _derivation(aliases, attr, shape, elem_bytes)

        def draw(value) -> bool:
            bases, own, acc, why = value
            self._draw_layout(attr, shape, bases, own)
            self.access = acc
            touched = own.coords[0, :, : acc.vector, :].reshape(-1, len(shape))
            mark = np.zeros(int(np.prod(shape)), dtype=bool)
            mark[np.ravel_multi_index(tuple(touched.T), tuple(shape))] = True
            self._access_mask = mark.reshape(self.values().shape)
            self.info.setText(
                self.info.text()
                + f"\nwarp 0's first access ({elem_bytes}-byte elements, row-major): {acc.vector} per lane, "
                f"{acc.bytes_requested} bytes in {acc.sectors} sectors: {acc.efficiency:.0%} efficient (marked)"
                + why
            )
            self._paint()
            return True

        return self.jobs.submit("view", compute, draw, self._failed)

    def show_banks(
        self, reg: str, shared: str, shape: list[int], bits: int, alloc: list[int] | None = None
    ) -> Job:
        """A local_load/local_store: the shared layout's elements coloured by bank, the
        first wavefront of warp 0 marked, and its bank conflicts (as ld.shared/st.shared;
        the ldmatrix Triton uses for dot operands is not modelled). A view of a larger
        allocation (a K-slice) is placed inside the allocation."""
        aliases = self._aliases()
        alloc = list(alloc or shape)

        def compute():
            off = placement(shared, alloc, aliases)[tuple(slice(0, n) for n in shape)]
            return off, bank_access(ownership(linear_bases(reg, shape, aliases)), off, bits)

        def draw(value) -> bool:
            off, acc = value
            self.shared_bits = bits
            self._draw_shared(shared, shape, off, aliases)
            mark = np.zeros(off.size, dtype=bool)
            firsts = np.asarray(acc.offsets)[:, None] + np.arange(acc.vector)[None, :]
            mark[np.isin(off.ravel(), firsts.ravel())] = True
            self._access_mask = mark.reshape(self.values().shape)
            self.access = acc
            self.info.setText(
                self.info.text()
                + f"\nwarp 0 through {reg} ({bits}-bit): {acc.vector} per lane, {acc.lanes_per_wavefront} lanes "
                f"per wavefront (marked), {acc.conflicts} bank conflict{'s' if acc.conflicts != 1 else ''} per "
                f"wavefront; banks by lane: {' '.join(map(str, acc.banks))}"
            )
            self._paint()
            return True

        return self.jobs.submit("view", compute, draw, self._failed)

    def show_view(self, kind: str, args: tuple) -> Job:
        """The view an IR line asked for (Session.view_requested): a layout, a
        conversion, a load's access or a shared buffer's banks."""
        self.drawn_for = self._kernel_key()
        show = {
            "layout": self.show_layout,
            "conversion": self.show_conversion,
            "access": self.show_access,
            "bank": self.show_banks,
            "source": self.show_source_layout,
            "source_refused": self.show_source_refused,
        }[kind]
        return show(*args)

    def show_source_layout(
        self, text: str, line: int, col: int | None, constexprs: dict, ttgirs: list, where: str
    ) -> Job:
        """A layout written in a Gluon source (`gl.BlockedLayout(...)` at line, col):
        evaluated with Triton's own classes in the layout service, drawn at the shape of the
        tensors of the compiled TTGIR that carry it (kx_core.layout.source_layouts)."""
        from kx_core.layout.source_layouts import SourceLayoutError, source_layout

        def compute():
            found = source_layout(text, line, col, constexprs, ttgirs)
            shape = list(found.shape) or _default_shape(found.layout, self.shape_field.text())
            if found.shared:
                return found, shape, placement(found.attr, shape, {})
            bases = linear_bases(found.attr, shape, {})
            return found, shape, (bases, ownership(bases))

        def draw(value) -> bool:
            found, shape, drawn = value
            if found.shared:
                self.shared_bits = int(found.layout.get("elementBitWidth", self.shared_bits))
                self._draw_shared(found.attr, shape, drawn, {})
            else:
                self._draw_layout(found.attr, shape, *drawn)
            self.info.setText(_source_caption(found, shape, where) + "\n" + self.info.text())
            return True

        def failed(error: BaseException) -> bool:
            self._show_empty(True)
            self.ownership = self.shared_offsets = None
            if isinstance(error, SourceLayoutError):
                self.info.setText(f"{where}, line {line}: {error}")
                return False
            return self._failed(error)

        self.drawn_for = self._kernel_key()
        return self.jobs.submit("view", compute, draw, failed)

    def show_source_refused(self, where: str, line: int) -> Job:
        self.info.setText(
            f"{where}, line {line}: a layout in a file shown without running is not evaluated "
            "(its expression is the file's code): File ▸ Trust This Folder, then click it again"
        )
        return Job.finished_now("view", False)

    def show_layout(self, attr: str, shape: list[int]) -> Job:
        self.layout_field.setText(attr)
        self.shape_field.setText("x".join(map(str, shape)))
        return self.refresh()

    def refresh(self) -> Job:
        """Compute the ownership of the layout in the fields (a job); false, with a
        message, if it cannot be."""
        try:
            shape = [int(x) for x in self.shape_field.text().lower().split("x")]
        except ValueError:
            self.info.setText(f"shape {self.shape_field.text()!r}: expected sizes like 64x64")
            return Job.finished_now("view", False)
        attr, aliases = self.layout_field.text(), self._aliases()
        if attr.strip().lstrip("#") in aliases:  # an alias names this kernel's layout
            self.drawn_for = self._kernel_key()

        def compute():
            if is_shared(attr, aliases):
                return "shared", placement(attr, shape, aliases)
            bases = linear_bases(attr, shape, aliases)
            return "distributed", (bases, ownership(bases))

        def draw(value) -> bool:
            kind, found = value
            if kind == "shared":
                self._draw_shared(attr, shape, found, aliases)
            else:
                self._draw_layout(attr, shape, *found)
            return True

        def failed(error: BaseException) -> bool:
            self.shared_offsets = self.ownership = None
            self._show_empty(True)
            return self._failed(error)

        return self.jobs.submit("view", compute, draw, failed)

    def _draw_layout(self, attr: str, shape: list[int], bases, own: Ownership) -> None:
        self.conversion = None
        self._access_mask = None
        self.shared_offsets = None
        self.layout_field.setText(attr)
        self.shape_field.setText("x".join(map(str, shape)))
        self.ownership = own
        nw, nl, nr = own.coords.shape[:3]
        dup = int(own.count.max())
        self.info.setText(
            f"{bases.layout}\n{nw} warps × {nl} lanes × {nr} registers per thread"
            + (f"; broadcast: up to {dup} owners per element" if dup > 1 else "")
        )
        self._paint()

    def _draw_shared(self, attr: str, shape: list[int], offsets: np.ndarray, aliases: dict[str, str]) -> None:
        self.conversion = None
        self._access_mask = None
        self.layout_field.setText(attr)
        self.shape_field.setText("x".join(map(str, shape)))
        self.shared_offsets = offsets
        self.ownership = None
        self.info.setText(
            f"{aliases.get(attr, attr)}\n"
            f"shared memory, {self.shared_bits}-bit elements: coloured by the 4-byte bank each element is in"
        )
        self._paint()

    def banks(self) -> np.ndarray:
        return (self.shared_offsets * self.shared_bits // 32) % 32

    def values(self) -> np.ndarray:
        """The number each element is coloured by (its lowest owner's lane, warp, ...;
        its bank for a shared layout)."""
        if self.shared_offsets is not None:
            return self.banks()
        own = self.ownership
        by = self.color_by.currentText()
        lanes = own.coords.shape[1]
        return {
            "lane": own.first_lane,
            "warp": own.first_warp,
            "register": own.first_register,
            "thread": own.first_warp * lanes + own.first_lane,
        }[by]

    def _paint(self) -> None:
        own = self.ownership
        if own is None and self.shared_offsets is None:
            return
        # a shared layout is coloured by bank; lanes, warps and registers do not apply
        for w in (self.color_by, self.warp_pick, self.lane_pick):
            w.setEnabled(own is not None)
        values = self.values()
        width = values.shape[-1] if values.ndim == 2 else wrap_width(values.size)
        grid = values if values.ndim == 2 else as_grid(values, width, 0)
        palette = distinct_colors(int(values.max()) + 1)
        rgb = palette[grid]
        what = "bank" if self.shared_offsets is not None else self.color_by.currentText()
        self._set_legend(palette, int(values.max()) + 1, what)
        self._set_axes(values.shape, width)
        self._show_empty(False)
        mask = np.ones(grid.shape, dtype=bool)
        warp, lane = self.warp_pick.value(), self.lane_pick.value()
        if own is not None and (warp >= 0 or lane >= 0):
            holds = np.ones(own.coords.shape[:3], dtype=bool)
            if warp >= 0:
                holds &= np.arange(own.coords.shape[0])[:, None, None] == warp
            if lane >= 0:
                holds &= np.arange(own.coords.shape[1])[None, :, None] == lane
            mask = np.zeros(int(np.prod(own.shape)), dtype=bool)
            picked = own.coords[holds]
            if picked.size:
                mask[np.ravel_multi_index(tuple(picked.T), own.shape)] = True
            mask = mask.reshape(values.shape) if values.ndim == 2 else as_grid(mask, width, False)
            rgb = np.where(mask[..., None], rgb, np.uint8(235))
        access = getattr(self, "_access_mask", None)
        if access is not None and access.ndim == 1:
            access = as_grid(access, width, False)
        if access is not None and access.shape == grid.shape:
            # warp 0's first access stands out; everything else is washed out
            rgb = np.where(access[..., None], rgb, (rgb // 4 + 180).astype(np.uint8))
        if values.ndim == 1:  # the padding after the last element is blank
            rgb = np.where(as_grid(np.ones(values.size, bool), width, False)[..., None], rgb, np.uint8(255))
        # ImageItem's first axis is x: columns
        self.image.setImage(np.transpose(rgb, (1, 0, 2)), levels=(0, 255))
        self.plot.autoRange()

    # ------------------------------------------------------------ interaction

    def element_at(self, x: float, y: float) -> tuple[int, ...] | None:
        shape = self.ownership.shape if self.ownership is not None else None
        if shape is None and self.shared_offsets is not None:
            shape = self.shared_offsets.shape
        if shape is None:
            return None
        col, row = int(x), int(y)
        if len(shape) == 1:  # drawn wrapped, wrap_width elements a row
            width = wrap_width(shape[0])
            index = row * width + col
            return (index,) if 0 <= col < width and 0 <= row and index < shape[0] else None
        if 0 <= row < shape[0] and 0 <= col < shape[1]:
            return (row, col)
        return None

    def describe(self, coord: tuple[int, ...]) -> str:
        if self.shared_offsets is not None:
            off = int(self.shared_offsets[coord])
            return f"element {coord}: shared offset {off}, bank {int(self.banks()[coord])}"
        owners = self.ownership.owners_of(coord)
        listed = ", ".join(f"w{w} l{ln} r{r}" for w, ln, r in owners[:8])
        more = f" and {len(owners) - 8} more" if len(owners) > 8 else ""
        return f"element {coord}: {listed}{more}"

    def _hover(self, event) -> None:
        if event.isExit():
            QToolTip.hideText()
            return
        pos = event.pos()
        coord = self.element_at(pos.x(), pos.y())
        if coord is not None:
            QToolTip.showText(event.screenPos().toPoint(), self.describe(coord))

    def _export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export layout", "layout.png", "PNG (*.png)")
        if path:
            self.plot.grab().save(path)
