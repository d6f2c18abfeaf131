"""Autotune pane: the config matrix of one kernel (registers, spills, shared memory,
occupancy and limiter, K1's estimate, waves and tail, work, bound, predicted and measured
time), sortable; predicted-vs-measured scatter with Spearman's rho; CSV export; and
drill T3's pipeline (prune -> model top-k -> measure -> pick), model-only without a GPU;
and `kx sweep` over shapes (kx_gui.panes.sweep_tab)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kx_core.model import autotune as t3
from kx_core.model.gemm import parse_gemm_shape
from kx_core.model.gpu import SPECS
from kx_core.model.kernel import gpu_for
from kx_core.model.matrix import COLUMNS, HEADERS, ConfigRow, config_matrix, rho, to_csv
from kx_core.model.occupancy import curves, occupancy
from kx_core.records.backends import backend_of
from kx_core.records.results import short_label
from kx_gui.panes.base import Pane
from kx_gui.panes.sweep_tab import SweepTab
from kx_gui.widgets.lazy_page import LazyPage, LazyPages
from kx_gui.widgets.tables import row_table

# Each figure names its model (issue 31): the T3 drill's time counts every tile's re-read of
# A and B as DRAM traffic (no L2); the roofline's bound is kx's, from compulsory traffic.
T3_COLUMNS = (
    "BM",
    "BN",
    "BK",
    "num_warps",
    "num_stages",
    "T3 model, no L2 (µs)",
    "shared (B)",
    "tiled traffic (no L2)",
    "bound (roofline)",
    "picked",
)


def _picked_cell(row: dict, pick) -> str:
    """The T3 table's last column: the picked row and the rule that picked it among the
    rows it tied with, or 'tied' for another of those."""
    if row is pick.row:
        return "picked" if len(pick.tied) == 1 else f"picked: {pick.rule}"
    return "tied" if any(row is r for r in pick.tied) else ""


def _item(value) -> QTableWidgetItem:
    """A cell that sorts numbers as numbers."""
    item = QTableWidgetItem()
    if value is None:
        item.setText("-")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        item.setData(Qt.ItemDataRole.DisplayRole, round(value, 4) if isinstance(value, float) else value)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    else:
        item.setText(str(value))
    return item


CONFIG = COLUMNS.index("config")


def _config_item(label: str) -> QTableWidgetItem:
    """A config's cell: its compact name ('128x128x64 w8 s3', as the Kernels pane shows
    it), the full one on hover and kept for lookups (issue 54: at 1280 px the full names
    took the width of four columns)."""
    item = QTableWidgetItem(short_label(label))  # "(no config)" stays as it is
    item.setToolTip(label)
    item.setData(Qt.ItemDataRole.UserRole, label)
    return item


def _config_of(item: QTableWidgetItem | None) -> str | None:
    """The full config name of a config cell."""
    return item.data(Qt.ItemDataRole.UserRole) if item is not None else None


def _config_key(rows: list[ConfigRow]) -> str:
    """The config column's header tooltip: what the compact names' numbers are."""
    first = next((r.config for r in rows if r.config != "(no config)"), "")
    keys = [part.partition("=")[0] for part in first.split(",") if "=" in part]
    if not keys:
        return "each config's name: its full name on hover"
    return (
        f"each config as {'×'.join(keys)}, then w: num_warps, s: num_stages (r: maxnreg); "
        "its full name on hover"
    )


def staircase(xs: list, ys: list) -> tuple[list, list]:
    """Occupancy is a step function: a value sampled at x_i (registers, threads, shared
    memory rounded up to the allocation step) holds over (x_(i-1), x_i]. Joined point to
    point, the curves were slopes that no kernel can sit on."""
    if not xs:
        return [], []
    out_x, out_y = [xs[0]], [ys[0]]
    for i in range(1, len(xs)):
        out_x += [xs[i - 1], xs[i]]
        out_y += [ys[i], ys[i]]
    return out_x, out_y


class AutotunePane(LazyPages, Pane):
    title = "Autotune"
    name = "autotune"
    listens = {
        "result_changed": "schedule",
        "measurements_changed": "_fill",
        "kernel_changed": "_kernel_selected",
        "document_opened": "_document_opened",
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        # the occupancy calculator's three curves through the selected config: three plots,
        # built when the tab is first shown (lazy_page)
        self._lazy_pages = [LazyPage(self._build_occupancy)]
        self._curve_row: ConfigRow | None = None
        self.tabs = QTabWidget()
        self.tabs.addTab(self._configs_tab(), "Configs")
        self.tabs.addTab(self._lazy_pages[0], "Occupancy")
        self.tabs.addTab(self._t3_tab(), "T3 pipeline")
        self.sweep_tab = SweepTab(self)  # kx sweep: shapes x configs, measured where it matters
        self.tabs.addTab(self.sweep_tab, "Sweep")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._pick_bar())
        layout.addWidget(self.tabs, 1)
        self.rows: list[ConfigRow] = []
        self.t3_result: tuple | None = None
        self.t3_pick = None  # kx_core.model.autotune.Pick of the last run: the tie and its rule
        self.kernel_pick.currentIndexChanged.connect(lambda *_: self._fill())
        self.gpu_pick.currentIndexChanged.connect(lambda *_: self._fill())
        self.export_button.clicked.connect(self._export)
        self.t3_run.clicked.connect(self.run_t3)
        self.t3_shape.returnPressed.connect(self.run_t3)  # Enter runs it, as the button does
        self.table.itemSelectionChanged.connect(self._selected)

    def _document_opened(self, path: str, _text: str) -> None:
        self.sweep_tab.belongs_to(path)

    def _pick_bar(self) -> QHBoxLayout:
        """Which kernel, on which GPU; export."""
        self.kernel_pick = QComboBox()
        self.kernel_pick.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.gpu_pick = QComboBox()
        self.gpu_pick.addItem("the target's GPU", None)
        for g in SPECS.values():
            self.gpu_pick.addItem(g.name, g)
        self.export_button = QPushButton("Export CSV…")
        bar = QHBoxLayout()
        for w in (QLabel("kernel"), self.kernel_pick, QLabel("GPU"), self.gpu_pick, self.export_button):
            bar.addWidget(w)
        bar.addStretch(1)
        return bar

    def _configs_tab(self) -> QWidget:
        """The configs table; under it modeled against measured, with the rank correlation."""
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([HEADERS[c] for c in COLUMNS])
        self.table.setSortingEnabled(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.scatter_plot = pg.PlotWidget(background="w")
        self.scatter_plot.setLabel("bottom", "modeled, without the launch floor (us)")
        self.scatter_plot.setLabel("left", "measured (us)")
        self.scatter = pg.ScatterPlotItem(size=10, brush=pg.mkBrush("#1e88e5"))
        self.scatter_plot.addItem(self.scatter)
        self.rho_label = QLabel()
        self.rho_label.setWordWrap(True)
        configs = QWidget()
        c_layout = QVBoxLayout(configs)
        c_layout.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        right = QWidget()
        r_layout = QVBoxLayout(right)
        r_layout.setContentsMargins(0, 0, 0, 0)
        r_layout.addWidget(self.rho_label)
        r_layout.addWidget(self.scatter_plot, 1)
        split.addWidget(right)
        split.setSizes([600, 250])
        # the table, or a sentence where it would be empty: a C++ build's Configs tab was a
        # table of GPU columns without a row
        self.configs_message = QLabel()
        self.configs_message.setWordWrap(True)
        self.configs_message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.configs_message.setStyleSheet("color: #616161")
        self.configs_stack = QStackedWidget()
        self.configs_stack.addWidget(split)
        self.configs_stack.addWidget(self.configs_message)
        c_layout.addWidget(self.configs_stack)
        return configs

    def _t3_tab(self) -> QWidget:
        """Drill T3's pipeline for a GEMM shape."""
        self.t3_shape = QLineEdit("4096x4096x4096")
        self.t3_run = QPushButton("Run T3 (model-only)")
        self.t3_info = QLabel()
        self.t3_info.setWordWrap(True)
        self.t3_table = row_table(T3_COLUMNS, len(T3_COLUMNS) - 1)
        self.t3_table.resizeColumnsToContents()  # the titles whole before a first run too
        t3_page = QWidget()
        t_layout = QVBoxLayout(t3_page)
        t_bar = QHBoxLayout()
        self.t3_shape.setToolTip("M N K, or MxNxK; Enter runs the pipeline")
        for w in (QLabel("GEMM M N K"), self.t3_shape, self.t3_run):
            t_bar.addWidget(w)
        t_bar.addStretch(1)
        t_layout.addLayout(t_bar)
        t_layout.addWidget(self.t3_info)
        t_layout.addWidget(self.t3_table, 1)
        return t3_page

    def _build_occupancy(self, oo: QVBoxLayout) -> None:
        occ_page = QWidget()
        o_layout = QHBoxLayout(occ_page)
        self.curve_plots: dict[str, pg.PlotWidget] = {}
        for key, label in (
            ("threads", "threads per CTA"),
            ("regs", "registers per thread"),
            ("smem", "shared memory per CTA (B)"),
        ):
            plot = pg.PlotWidget(background="w")
            plot.setMinimumWidth(100)
            plot.setLabel("bottom", label)
            plot.setLabel("left", "occupancy")
            plot.setYRange(0, 1.05)
            o_layout.addWidget(plot)
            self.curve_plots[key] = plot
        self.curve_info = QLabel()
        self.curve_info.setWordWrap(True)  # unwrapped, its sentence widened the window to 1304
        oo.addWidget(self.curve_info)
        oo.addWidget(occ_page, 1)
        if self._curve_row is not None:
            self.show_curves(self._curve_row)

    @property
    def measured_times(self) -> dict[str, float]:
        """Measured seconds by kernel display name, when measured on the build on screen."""
        return self.session.measured_on_screen()

    @property
    def measured_note(self) -> str:
        return self.session.measured_note

    def render(self) -> None:
        result = self.session.result
        names = sorted({k.name for k in (result.kernels if result else []) if k.status == "compiled"})
        # kernels with several configs first: they are what this pane is for
        counts = {n: sum(1 for k in result.kernels if k.name == n) for n in names} if result else {}
        names.sort(key=lambda n: -counts[n])
        selected = self.session.kernel.name if self.session.kernel is not None else None
        current = selected if selected in names else self.kernel_pick.currentText()
        self.kernel_pick.blockSignals(True)
        self.kernel_pick.clear()
        self.kernel_pick.addItems(names)
        if current in names:
            self.kernel_pick.setCurrentText(current)
        self.kernel_pick.blockSignals(False)
        self._fill()

    def _gpu(self):
        result = self.session.result
        chosen = self.gpu_pick.currentData()
        if chosen is not None or not result:
            return chosen
        compiled = [k for k in result.kernels if k.status == "compiled"]
        return gpu_for(compiled[0]) if compiled else None

    def _fill(self) -> None:
        result = self.session.result
        name = self.kernel_pick.currentText()
        self.rows = (
            config_matrix(result.kernels, name, self._gpu(), self.measured_times) if result and name else []
        )
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, value in enumerate(row.cells()):
                self.table.setItem(r, c, _config_item(row.config) if c == CONFIG else _item(value))
        self.table.horizontalHeaderItem(CONFIG).setToolTip(_config_key(self.rows))
        self.table.setSortingEnabled(True)
        self.table.resizeColumnsToContents()
        message = self._empty_configs_text()
        self.configs_message.setText(message)
        self.configs_stack.setCurrentWidget(self.configs_message if message else self.configs_stack.widget(0))
        row = self._row_of_selected()
        if row is not None:
            self._select_row(row)
            self.show_curves(row)
        else:
            self._clear_curves()
        measured = [(r.modeled_us, r.measured_us) for r in self.rows if r.measured_us is not None]
        self.scatter.setData([p for p, _ in measured], [m for _, m in measured])
        self.scatter_plot.setVisible(bool(measured))
        value = rho(self.rows)
        if value is not None:
            text = f"Spearman's rho, modeled vs measured: {value:.2f} over {len(measured)} configs"
        elif measured:
            text = (
                f"{len(measured)} configs measured; rho is undefined: the model predicts the same time for "
                "every config or fewer than 3 are measured"
            )
        elif self.measured_note:
            text = f"not shown: {self.measured_note} (Bench again)"
        else:
            text = "no measured times yet: predicted vs measured appears once configs are timed on a GPU"
        self.rho_label.setText(text)

    def _empty_configs_text(self) -> str:
        """What the Configs tab says instead of an empty table ('' when it has rows)."""
        result = self.session.result
        if result is not None and not backend_of(result.target).gpu:
            return (
                f"A C++ build for {result.target.spec} has no autotune configs: this tab lists a "
                "Triton kernel's configs against a GPU (registers, shared memory, occupancy).\n"
                "For this build, Bench times it and Summary counts its vector instructions."
            )
        if self.rows:
            return ""
        if result is None:
            return "No kernel yet: open a kernel file; each autotune config it compiles is a row here."
        return "No compiled kernel to list: Problems says why the compile failed."

    def _row_of_selected(self) -> ConfigRow | None:
        """The row of the kernel record selected in Kernels (else the first row)."""
        k = self.session.kernel
        label = (k.config.label if k.config else "(no config)") if k is not None else None
        mine = [r for r in self.rows if k is not None and r.kernel == k.name and r.config == label]
        return mine[0] if mine else (self.rows[0] if self.rows else None)

    def _select_row(self, row: ConfigRow) -> None:
        for r in range(self.table.rowCount()):
            if _config_of(self.table.item(r, CONFIG)) == row.config:
                self.table.blockSignals(True)
                self.table.selectRow(r)
                self.table.blockSignals(False)
                return

    def _kernel_selected(self, kernel, _source_map) -> None:
        """A config selected in Kernels is the one this pane's Occupancy shows."""
        if kernel is None or not self.rows:
            return
        if not (self._shown and self.isVisible()):
            self._stale = True  # drawn when next shown
            return
        if kernel.name != self.kernel_pick.currentText() and self.kernel_pick.findText(kernel.name) >= 0:
            self.kernel_pick.setCurrentText(kernel.name)  # refills, through _fill
            return
        row = self._row_of_selected()
        if row is not None and row is not self._curve_row:
            self._select_row(row)
            self.show_curves(row)

    def _selected(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if rows:
            config = _config_of(self.table.item(rows[0].row(), CONFIG))
            self.show_curves(next(r for r in self.rows if r.config == config))

    def _clear_curves(self) -> None:
        """No config of this build to draw: the curves of another build must not stay (a
        C++ file opened after a Triton one kept the Triton kernel's curves)."""
        self._curve_row = None
        self.curves = {}
        if not self._lazy_pages[0].built:
            return
        for plot in self.curve_plots.values():
            plot.clear()
        result = self.session.result
        if result is not None and not backend_of(result.target).gpu:
            why = f"occupancy is a GPU figure: this build is for {result.target.spec}"
        elif result is None or not any(k.status == "compiled" for k in result.kernels):
            why = "no compiled GPU kernel in this build"
        else:
            why = "pick a kernel above"
        self.curve_info.setText(why)

    def show_curves(self, row: ConfigRow) -> bool:
        """Occupancy against threads, registers and shared memory through one config."""
        gpu = self._gpu()
        kernel = next(
            (
                k
                for k in self.session.result.kernels
                if k.name == row.kernel and (k.config.label if k.config else "(no config)") == row.config
            ),
            None,
        )
        self._curve_row = row
        if gpu is None or kernel is None or row.registers is None:
            if self._lazy_pages[0].built:
                self.curve_info.setText(
                    "no register count for this config: occupancy needs the compiled cubin"
                )
            return False
        threads = kernel.metadata.num_warps * gpu.warp_size
        point = {"threads": threads, "regs": row.registers, "smem": row.shared}
        self.curves = curves(gpu, threads, row.registers, row.shared)
        current = occupancy(gpu, threads, row.registers, row.shared)
        if not self._lazy_pages[0].built:
            return True  # drawn when the Occupancy tab is first shown
        for key, plot in self.curve_plots.items():
            plot.clear()
            xs, ys = staircase(*self.curves[key])
            plot.plot(xs, ys, pen=pg.mkPen("#1e88e5", width=2))
            plot.plot(
                [point[key]], [current.fraction], pen=None, symbol="o", symbolBrush="#e53935", symbolSize=10
            )
        self.curve_info.setText(
            f"{row.kernel}[{row.config}] on {gpu.name}: {threads} threads, {row.registers} registers, "
            f"{row.shared} B shared: {current.blocks} CTAs/SM, {current.fraction:.0%} occupancy, limited by {current.limiter}"
        )
        return True

    def run_t3(self) -> bool:
        try:
            M, N, K = parse_gemm_shape(self.t3_shape.text())
        except ValueError as e:
            self.t3_info.setText(str(e))
            return False
        gpu = self._gpu() or SPECS["h100"]
        best, rows, pruned = t3.autotune(gpu, M, N, K, lambda c: t3.perf_model(gpu, M, N, K, c), repeats=1)
        self.t3_result = (best, rows, pruned)
        # which configs tied and the rule that broke the tie (issue 54: all 8 at 495.796 µs
        # and one "picked", with no word of why that one)
        self.t3_pick = pick = t3.explain_pick(rows)
        floor_s, self.t3_bound = t3.floor_bound(gpu, M, N, K)
        self.t3_info.setText(
            f"{gpu.name}: {len(t3.config_space())} configs -> {pruned} pruned -> top {len(rows)} by the T3 model "
            f"-> picked BM={best['BM']} BN={best['BN']} BK={best['BK']} w{best['num_warps']} s{best['num_stages']}: "
            f"{pick.text()}. "
            "Model only, nothing timed: the T3 model counts every tile's re-read as DRAM traffic (no L2), so its "
            f"times are upper figures; the roofline (compulsory traffic) puts this GEMM at {floor_s * 1e6:.1f} µs, "
            f"{self.t3_bound}-bound."
        )
        self.t3_table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cfg = t3.TileConfig(row["BM"], row["BN"], row["BK"], row["num_warps"], row["num_stages"])
            cells = [row[k] for k in T3_COLUMNS[:5]] + [
                row["median"] * 1e6,
                row["smem"],
                t3.bound(gpu, M, N, K, cfg),
                self.t3_bound,
                _picked_cell(row, pick),
            ]
            for c, value in enumerate(cells):
                self.t3_table.setItem(r, c, _item(value))
        # the header's titles name their models: never cut (they were, at 1920x1080)
        self.t3_table.resizeColumnsToContents()
        return True

    def csv_text(self) -> str:
        return to_csv(self.rows) if self.rows else ""

    def _export(self) -> None:
        if not self.rows:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export config matrix", "configs.csv", "CSV (*.csv)")
        if path:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(self.csv_text())
