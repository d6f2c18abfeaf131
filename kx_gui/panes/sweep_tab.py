"""The Autotune pane's Sweep tab: `kx sweep` over the shapes the user types, run as a
process (its compile and measuring workers below it), with its progress, a Stop button
(the process and its workers are killed; what was measured is lost, the file is not
touched), a heat map of time per shape x config (each shape's times over its best: 1 is
the winner; blank where a config was not measured), and per shape the winner, the
model's pick, its regret and rank accuracy."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QProcess
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from kx_core.records.target import default_spec
from kx_core.sweep.calls import WrapperCall
from kx_core.sweep.result import SweepResult
from kx_core.sweep.space import SpaceError, parse_shape, shape_label
from kx_gui.widgets.tables import fill_rows, row_table

# Example progress line (stderr, \r between updates): "        compile [####....] 1/4 M=512,N=8192"
_PROGRESS_RE = re.compile(r"^\s*(\S+) \[[#.]+\] (\d+)/(\d+)\s?(.*?)\s*$")
RESULT_COLUMNS = ("shape", "winner", "model's pick", "regret", "Spearman", "winner in top 3", "measured on")


def short(label: str) -> str:
    """'BLOCK_M=128,BLOCK_N=64,w4,s3' -> '128,64,w4,s3': the heat map's column titles."""
    return ",".join(p.split("=", 1)[-1] for p in label.split(","))


# what the tab says before any sweep of the file on screen
_INVITE = "Sweep the selected kernel over shapes: every config compiled and ranked, the top measured."


class SweepTab(QWidget):
    def __init__(self, pane, parent=None) -> None:
        super().__init__(parent)
        self.pane = pane
        self.process: QProcess | None = None
        self.result: SweepResult | None = None
        self.file: str | None = None  # the file the shown (or running) sweep is of
        self._stderr = ""
        self.shapes = QLineEdit("M=4096,N=4096,K=4096; M=1024,N=1024,K=1024")
        self.shapes.setToolTip(
            "shapes separated by ';': the entry function's NAME=INT,..., the kernel's key (M=2048,N=1024,"
            "K=4096) or a wrapper's tensors (a=2048x4096,b=4096x1024); empty: the file's own launches"
        )
        self.entry = QLineEdit()
        self.entry.setPlaceholderText("entry (the one that fits)")
        self.entry.setToolTip(
            "the file's function called with each shape's names as keywords (def run(M, N, K)); "
            "empty: the one function whose parameters the shape's names are"
        )
        self.entry.setMaximumWidth(170)
        self.measure = QComboBox()
        for text, mode in (
            ("top and uncertain", "top-k"),
            ("every config", "all"),
            ("none (model only)", "none"),
        ):
            self.measure.addItem(text, mode)
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 64)
        self.top_k.setValue(4)
        self.run_button = QPushButton("Sweep")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setMinimumWidth(40)
        self.status = QLabel(_INVITE)
        self.status.setWordWrap(True)
        # two rows: one would make the pane's minimum width (and so the window) too wide
        bar, bar2 = QHBoxLayout(), QHBoxLayout()
        for w in (QLabel("shapes"), self.shapes, self.entry):
            bar.addWidget(w)
        for w in (
            QLabel("measure"),
            self.measure,
            QLabel("top k"),
            self.top_k,
            self.run_button,
            self.stop_button,
        ):
            bar2.addWidget(w)
        bar2.addWidget(self.progress, 1)
        self.heat_plot = pg.PlotWidget(background="w")
        self.heat_plot.setLabel("bottom", "config (numbered below)")
        self.heat = pg.ImageItem()
        self.heat.setColorMap(pg.colormap.get("viridis"))  # low (the best) is dark
        self.heat_plot.addItem(self.heat)
        self.heat_plot.invertY(True)  # the first shape on top, as in the table below
        self.heat_plot.getAxis("left").setWidth(170)  # room for 'M=4096,N=4096,K=4096'
        # config number -> its label (sixteen labels never fit an axis): a small scrolling
        # box, since a wrapped label squeezed by the splitter was drawn over itself
        self.config_key = QPlainTextEdit()
        self.config_key.setReadOnly(True)
        self.config_key.setMaximumHeight(48)
        self.config_key.setMinimumHeight(24)
        self.config_key.setStyleSheet("color: #555; font-size: 9pt")
        self.heat_plot.setMinimumSize(80, 60)
        # no axes until a sweep fills them: an empty plot showed -400..400 "(x0.001)" ticks
        # that meant nothing (first-user run)
        self._show_axes(False)
        # the legend rides on the config key's line: a row of its own grew the window
        self.legend = "color: time / the shape's best (darker is faster; blank: not measured)"
        self.heat_plot.setToolTip(self.legend)
        self.table = row_table(RESULT_COLUMNS, len(RESULT_COLUMNS) - 1)
        self.table.setMinimumHeight(40)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addLayout(bar2)
        layout.addWidget(self.status)
        split = QSplitter()
        split.setOrientation(pg.QtCore.Qt.Orientation.Vertical)
        top = QWidget()
        t_layout = QVBoxLayout(top)
        t_layout.setContentsMargins(0, 0, 0, 0)
        t_layout.addWidget(self.heat_plot, 1)
        t_layout.addWidget(self.config_key)
        split.addWidget(top)
        split.addWidget(self.table)
        layout.addWidget(split, 1)
        self.run_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.shapes.returnPressed.connect(self.start)

    # ------------------------------------------------------------ running

    def command(self) -> list[str] | None:
        """The `kx sweep` arguments for what the tab shows, or None (and why, in status)."""
        path, kernel = self.pane.session.path, self.pane.kernel_pick.currentText()
        if not path or not kernel:
            self.status.setText("Open a file with an autotuned kernel and choose it above first.")
            return None
        try:
            shapes = [parse_shape(s) for s in self.shapes.text().split(";") if s.strip()]
        except SpaceError as e:
            self.status.setText(f"Shapes: {e}")
            return None
        args = ["-m", "kx_core.cli", "sweep", path, "--kernel", kernel, "--json",
                "--measure", self.measure.currentData(), "--top-k", str(self.top_k.value()),
                # the window's target: cuda:90 without a GPU, never 'local' (which then fails)
                "--target", default_spec(self.pane.session.target)]  # fmt: skip
        if self.entry.text().strip():
            args += ["--entry", self.entry.text().strip()]
        gpu = self.pane.gpu_pick.currentData()
        if gpu is not None:
            args += ["--gpu", gpu.name]
        for s in shapes:  # none: the file's own launches of the kernel are the shapes
            args += ["--shape", shape_label(s)]
        return args

    def start(self) -> bool:
        if self.process is not None:
            return False
        args = self.command()
        if args is None:
            return False
        self._stderr = ""
        self.process = QProcess(self)
        self.process.readyReadStandardError.connect(self._progress)
        self.process.finished.connect(self._finished)
        self.file = self.pane.session.path
        self.process.start(sys.executable, args)
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.progress.setRange(0, 0)
        self.status.setText(f"Sweeping {self.pane.kernel_pick.currentText()} (the saved file)…")
        return True

    def stop(self) -> None:
        """Kill the sweep: its workers die with it (their lifeline)."""
        if self.process is not None:
            self.process.kill()
            self.status.setText("Stopped: nothing of this sweep is kept.")

    def _progress(self) -> None:
        chunk = bytes(self.process.readAllStandardError()).decode(errors="replace")
        self._stderr += chunk
        for line in reversed(re.split(r"[\r\n]", chunk)):
            if m := _PROGRESS_RE.match(line):
                step, done, of, what = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
                self.progress.setRange(0, max(1, of))
                self.progress.setValue(done)
                self.progress.setFormat(f"{step} {done}/{of}")
                self.status.setText(f"{step}: {what}" if what else step)
                break

    def _finished(self, code: int, _status) -> None:
        process, self.process = self.process, None
        out = bytes(process.readAllStandardOutput()).decode(errors="replace")
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if out.strip() else 0)
        # the last step's "compile 2/2" stayed on the bar after the sweep had ended
        self.progress.setFormat("done" if out.strip() else "no result")
        if not out.strip():
            # what the command said last (its own "kx sweep:" message, or any "kx:" line:
            # an error before the sweep began)
            errors = [ln for ln in self._stderr.splitlines() if ln.startswith(("kx sweep:", "kx:"))]
            if not self.status.text().startswith("Stopped"):
                self.status.setText(
                    errors[-1] if errors else f"The sweep ended (exit {code}) with no result."
                )
            return
        data = json.loads(out)
        self.show_result(SweepResult.from_json({k: v for k, v in data.items() if k != "summary"}))
        errors = [ln for ln in self._stderr.splitlines() if ln.startswith("kx sweep:")]
        if errors:
            self.status.setText(self.status.text() + "  " + " ".join(errors))

    def belongs_to(self, path: str) -> None:
        """Another file opened: the tab is that file's (issue 55, item 4). A sweep of the
        file before is stopped and what it showed is cleared, as every other pane clears;
        the same file opened again keeps its sweep."""
        if self.file is None or path == self.file:
            return
        before, self.file = Path(self.file).name, None
        if self.process is not None:
            process, self.process = self.process, None
            process.finished.disconnect(self._finished)
            process.finished.connect(process.deleteLater)  # killed without the window waiting
            process.kill()
            self.run_button.setEnabled(True)
            self.stop_button.setEnabled(False)
        self.result = None
        self.heat.clear()
        self._show_axes(False)
        self.config_key.clear()
        self.table.setRowCount(0)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.resetFormat()
        self.status.setText(f"{_INVITE} (The sweep of {before} was for the file open before.)")

    # ------------------------------------------------------------ showing

    def _show_axes(self, shown: bool) -> None:
        """The heat map's axes: none until a sweep fills them (an empty plot showed
        -400..400 "(x0.001)" ticks that meant nothing)."""
        for side in ("left", "bottom"):
            self.heat_plot.getPlotItem().showAxis(side, shown)

    def show_result(self, r: SweepResult) -> None:
        self.result = r
        self.file = self.file or self.pane.session.path  # what is shown is this file's
        self._show_axes(True)
        labels = list(dict.fromkeys(f.label for c in r.cases for f in c.configs))
        grid = np.full((len(labels), len(r.cases)), np.nan)
        for j, c in enumerate(r.cases):
            times = {f.label: f.measured_us for f in c.configs if f.measured_us}
            if not times:  # nothing measured: the model's times, over its best
                times = {f.label: f.rank_us for f in c.configs if f.rank_us}
            best = min(times.values(), default=None)
            for label, t in times.items():
                grid[labels.index(label), j] = t / best
        finite = grid[np.isfinite(grid)]
        self.heat.setImage(
            grid, levels=(1.0, float(finite.max()) if finite.size and finite.max() > 1 else 2.0)
        )
        self.heat_plot.getAxis("bottom").setTicks([[(i + 0.5, str(i)) for i in range(len(labels))]])
        self.heat_plot.getAxis("left").setTicks([[(j + 0.5, c.label) for j, c in enumerate(r.cases)]])
        self.config_key.setPlainText(
            self.legend + ". Configs: " + "   ".join(f"{i}: {short(x)}" for i, x in enumerate(labels))
        )
        rows = []
        for c in r.cases:
            rows.append([
                c.label, short(c.winner) if c.winner else "-", short(c.model_pick) if c.model_pick else "-",
                "-" if c.regret_model is None else f"{100 * c.regret_model:+.1f}%",
                "-" if c.spearman is None or math.isnan(c.spearman) else f"{c.spearman:.2f}",
                "-" if c.winner_in_top3 is None else ("yes" if c.winner_in_top3 else "no"),
                c.error or (c.measured_on or "not measured") + (" (simulated)" if c.simulated else ""),
            ])  # fmt: skip
        fill_rows(self.table, rows)
        for i, c in enumerate(r.cases):  # the wrapper call that gave the shape (kx_core.sweep.calls)
            if c.call and self.table.item(i, 0) is not None:
                self.table.item(i, 0).setToolTip(WrapperCall.from_json(c.call).label())
        s = r.summary()
        how = {"gpu": "measured", "simulated": "simulated", "none": "not measured (model only)"}[r.measured]
        text = f"{len(r.cases)} shape(s), {how}, {r.wall_s:.1f} s."
        if s["measured_cases"]:
            rho = "-" if s["mean_spearman"] is None else f"{s['mean_spearman']:.2f}"
            text += (
                f" Mean Spearman {rho}; the winner in the model's top 3 in {100 * s['winner_in_top3']:.0f}%."
            )
        if s["shipped"] or s["compiled_again"]:  # kx_core.sweep.binaries
            text += (
                f" {s['shipped']} timed config(s) were the compile side's binaries,"
                f" {s['compiled_again']} compiled again where measured."
            )
        text += "".join(f" {n[:1].upper()}{n[1:]}." for n in r.notes)
        self.status.setText(text)
