"""Diff pane: any stage of any kernel/config of the file against any other, side by
side: TTIR vs TTGIR of one kernel, one stage across two autotune configs, one stage
across two targets or two Pythons (the right side can come from a compile for another
target or by another interpreter, run in the background like any other), or what the
last edit changed (the previous compile of the file, kept up to date after each save):
then the previous compile is the left side, A, and this compile the right, B, and Ctrl+D
pairs the config the edit changed (compare/rebuild.py), not the first one.

Above the text diff, the two sides compared as `kx compare` does (kx_core.compare): what
was asked differently, each resource and instruction count as a delta with its reason
(measured from the artifacts, or the model's, named), the stages that differ, and the
first pass where the two pipelines diverge, with that pass's diff a click away."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kx_core.compare.deltas import stages_differing_as_shown
from kx_core.compare.rebuild import edited_pair, pair_rebuild
from kx_core.compare.report import PairComparison, compare_pair, summary_lines
from kx_core.ir.display_filters import filter_stage
from kx_core.ir.lexers import lexer_for_syntax
from kx_core.model.kernel import gpu_for
from kx_core.records.backends import ALL_STAGES
from kx_core.records.target import KNOWN_TARGETS
from kx_gui.compile_job import CompileJob
from kx_gui.panes.base import Pane
from kx_gui.widgets.diff_view import DiffView
from kx_gui.widgets.elided_label import ElidedLabel
from kx_gui.widgets.shrink import shrinkable
from kx_gui.widgets.tables import row_table

FIGURE_COLUMNS = ("figure", "A (left)", "B (right)", "delta", "why")

THIS_COMPILE = "this compile"
PREVIOUS_COMPILE = "the previous compile"  # of the same file: what the last edit changed
ANOTHER_PYTHON = "another Python…"


class DiffPane(Pane):
    title = "Diff"
    name = "diff"
    listens = {
        "result_changed": "set_result",
        "stages_derived": "_stages_derived",
        "display_filters_changed": "refresh",
        "document_opened": "_document_opened",
    }

    other_compiled = Signal(object)  # the CompileResult for the other target

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.left_kernel, self.left_stage = shrinkable(QComboBox(), 26), QComboBox()
        self.right_kernel, self.right_stage = shrinkable(QComboBox(), 26), QComboBox()
        self.right_target = shrinkable(QComboBox(), 10)
        self.right_target.addItem(THIS_COMPILE)
        self.right_target.addItem(PREVIOUS_COMPILE)
        self.right_target.addItems(list(KNOWN_TARGETS))
        self.right_target.addItem(ANOTHER_PYTHON)
        self.right_target.setToolTip(
            "what this compile is compared with: itself, the compile before the last edit (then "
            "on the left, A, with this compile on the right, B), a compile for another target, "
            "or one by another Python (on the right, B)"
        )
        self.right_python: str | None = None
        self.other_result = None
        self._left_is_previous = False  # the left pickers hold the previous compile's kernels
        # the stage shown was chosen by Ctrl+D (the first that differs), not by the user:
        # a rebuild looked at this way moves to its first differing stage too
        self._stage_sought = False
        self._job: CompileJob | None = None
        self._generation = 0
        self.ignore_numbering = QCheckBox("ignore renumbering")
        self.ignore_numbering.setChecked(True)
        # a row per side, so the pane's minimum width stays small (issue 18, defect 3)
        left, right = QHBoxLayout(), QHBoxLayout()
        self.left_label, self.right_label = QLabel(), QLabel()
        for row, widgets in (
            (left, (self.left_label, self.left_kernel, self.left_stage, self.ignore_numbering)),
            (right, (self.right_label, self.right_target, self.right_kernel, self.right_stage)),
        ):
            for w in widgets:
                row.addWidget(w)
            row.addStretch(1)
        self.diff = DiffView()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self._compare_box())
        split.addWidget(self.diff)
        split.setSizes([300, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(left)
        layout.addLayout(right)
        layout.addWidget(split, 1)
        for box in (self.left_kernel, self.right_kernel):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        for box in (self.left_stage, self.right_stage):
            box.currentIndexChanged.connect(lambda _i, box=box: self._stage_picked(box))
        self.ignore_numbering.toggled.connect(lambda _b: self.refresh())
        self.right_target.currentIndexChanged.connect(lambda _i: self._target_changed())
        self._filling = False
        self._document_path = session.path  # the file the comparison mode was chosen for
        self._name_sides()

    def _document_opened(self, path: str) -> None:
        if path != self._document_path:
            self.reset()  # another file: the last one's comparison goes with it
        self._document_path = path

    def reset(self) -> None:
        """Another file: the comparison chosen for the last one (the previous compile,
        another target or Python) and its capture state go too, as Find's term does
        (FindBar.reset): they carried over, and the next file compared with "the previous
        compile" it had none of, or recompiled itself for the last file's target. The
        result that follows fills both sides from this compile."""
        self._generation += 1  # another build of the last file still compiling: dropped
        self.right_target.blockSignals(True)
        self.right_target.setCurrentText(THIS_COMPILE)
        self.right_target.blockSignals(False)
        self.other_result = None
        self._left_is_previous = self._stage_sought = False
        self._name_sides()
        self._sides, self.comparison = (None, None), None
        self.explain.setText("pick two kernels: the left is A, the right is B")
        self.pass_button.setEnabled(False)
        self.capture_button.setText("Capture both sides' passes")
        self.capture_note.setText("")

    def _previous_mode(self) -> bool:
        """Comparing with the compile before the last edit (Ctrl+D)."""
        return self.right_target.currentText() == PREVIOUS_COMPILE

    def _other_build(self) -> bool:
        """The right side is another build of this file (the previous compile, another
        target, another Python), not this compile's own records."""
        return self.right_target.currentText() != THIS_COMPILE

    def _name_sides(self) -> None:
        """Each row says which side it picks, A (left) or B (right), and of which build."""
        target = self.right_target.currentText()
        left, right = {
            THIS_COMPILE: ("A · left ", "B · right"),
            PREVIOUS_COMPILE: ("A · previous compile", "B · this compile vs"),
            ANOTHER_PYTHON: ("A · this compile", "B · compiled by"),
        }.get(target, ("A · this compile", "B · compiled for"))
        self.left_label.setText(left)
        self.right_label.setText(right)

    def _stage_picked(self, box: QComboBox) -> None:
        """Two builds are compared stage for stage: a stage picked on one side is picked
        on the other too (issue 54: A's TTIR was diffed against another target's TTGIR).
        Within this compile the sides stay free (TTIR beside TTGIR is its default)."""
        if not self._filling:
            self._stage_sought = False  # the user's stage: kept
        if not self._filling and self._other_build():
            other = self.right_stage if box is self.left_stage else self.left_stage
            if box.currentText() and other.findText(box.currentText()) >= 0:
                self._filling = True
                other.setCurrentText(box.currentText())
                self._filling = False
        self.refresh()

    def _builds(self):
        """(left build, right build). With 'the previous compile' the old build is the left
        side, A, and this compile the right, B (both None before there is an old one);
        else this compile is on the left and the other build, or this one, on the right."""
        result = self.session.result
        if self._previous_mode():
            return (self.other_result, result) if self.other_result is not None else (None, None)
        return result, self.other_result or result

    def _compare_box(self) -> QWidget:
        """The explained comparison of the two sides' kernels (kx compare's page)."""
        self.explain = QLabel("pick two kernels: the left is A, the right is B")
        self.explain.setWordWrap(True)
        self.explain.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explain.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.figures = row_table(FIGURE_COLUMNS, stretch=4)
        self.pass_button = QPushButton("Show the first divergent pass")
        self.pass_button.setToolTip("that pass's output on each side, in the diff below")
        self.pass_button.setEnabled(False)
        self.pass_button.clicked.connect(self.show_divergence)
        self.capture_button = QPushButton("Capture both sides' passes")
        self.capture_button.setToolTip(
            "recompile each side's kernel with its passes captured (Pipeline), then find the "
            "first pass where the two pipelines' IR diverge"
        )
        self.capture_button.clicked.connect(self.capture_both)
        # why the capture button is disabled, when it is: one line, cut with "…" to the
        # width there is (the whole reason on hover); wrapped in a narrow dock it grew the
        # window past a 1280x800 screen
        self.capture_note = ElidedLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.pass_button)
        bar.addWidget(self.capture_button)
        bar.addWidget(self.capture_note, 1)
        # the explanation and every figure as two tabs: one above the other, at 1280x800
        # the table was squeezed to a row and a half
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.explain)
        self.compare_tabs = QTabWidget()
        self.compare_tabs.setDocumentMode(True)
        self.compare_tabs.addTab(scroll, "Explained")
        self.compare_tabs.addTab(self.figures, "Every figure")
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addWidget(self.compare_tabs, 1)
        lay.addLayout(bar)
        self.comparison: PairComparison | None = None
        self._sides: tuple = (None, None)
        self.listen(self.session.pass_captures.captured, lambda *_: self._recompare())
        return box

    def _compare_sides(self, a, b) -> None:
        """Compare kernel records a (left, A) and b (right, B) on a job: the stage diffs of
        a big kernel are tens of milliseconds, not for the window's thread."""
        self._sides, self.comparison = (a, b), None  # the one shown was of other sides
        self.explain.setText(f"comparing {a.short_name} with {b.short_name}…")

        def compute():
            return compare_pair(a, b, _gpu_of(a), _gpu_of(b))

        self.jobs.submit("compare", compute, lambda pair, sides=(a, b): self._show_comparison(pair, sides))

    def _show_comparison(self, pair: PairComparison, sides) -> None:
        if not _same(sides, self._sides):
            return  # another pair was picked meanwhile
        self.comparison = pair
        a, b = sides
        if a is b:
            # one record on both sides (the default: what its TTIR became in TTGIR): no
            # build difference to explain, and "every stage is the same" above a diff of
            # two stages read as a contradiction
            self.explain.setText(
                f"{a.short_name} on both sides: the diff below is of its own stages. To compare "
                "builds, pick another config on the right, or 'the previous compile' (Ctrl+D), "
                "another target or another Python."
            )
        else:
            builds = ("previous compile", "this compile") if self._previous_mode() else ("left", "right")
            head = (
                f"A ({builds[0]}) {a.short_name} → B ({builds[1]}) {b.short_name}"
                if a.display_name != b.display_name
                else f"A ({builds[0]}) → B ({builds[1]}): {a.short_name}"
            )
            self.explain.setText(head + "\n" + "\n".join("• " + line for line in summary_lines(pair)))
        rows = [*pair.resources, *pair.instructions]
        self.figures.setRowCount(len(rows))
        for r, d in enumerate(rows):
            change = d.change
            cells = (
                d.name + (f" ({d.model})" if d.kind == "model" else ""),
                "-" if d.a is None else str(d.a),
                "-" if d.b is None else str(d.b),
                f"{change:+g}" if change else ("changed" if d.changed else ""),
                d.why,
            )
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if d.changed:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                item.setToolTip(d.text())
                self.figures.setItem(r, c, item)
        self.figures.resizeColumnsToContents()
        self.pass_button.setEnabled(pair.divergence is not None)
        self.pass_button.setToolTip(
            pair.divergence.text()
            if pair.divergence
            else f"nothing to show: {pair.divergence_note or 'no divergent pass'}"
        )
        self._show_capture_state(a, b)

    def _show_capture_state(self, a, b) -> None:
        """The capture button, enabled or not, and why not in its tooltip and beside it:
        a first user found it disabled without a word."""
        why = self._why_not_capturable(a, b)
        self.capture_button.setEnabled(not why)
        self.capture_button.setToolTip(
            why
            or "recompile each side's kernel with its passes captured (Pipeline), then find the "
            "first pass where the two pipelines' IR diverge"
        )
        self.capture_note.setText(why)

    def _why_not_capturable(self, a, b) -> str:
        """'' when the two sides' passes can be captured now, else why not."""
        if a is None or b is None:
            if self._previous_mode():
                return "nothing to capture: no earlier compile of this file yet"
            return "nothing compared yet: pick two kernels"
        if a.passes and b.passes:
            return "both sides' passes are captured already: the first divergent pass is above"
        if not self._capturable(a, b):
            if not self._previous_mode():
                return (
                    "the other build's passes cannot be captured here: only this compile's kernels "
                    "are recompiled with their passes (Pipeline)"
                )
            return (
                "the previous compile's passes cannot be captured: its text is gone (only "
                "this compile's kernels can be recompiled)"
            )
        return ""

    def _capturable(self, a, b) -> bool:
        """Both records are of the build on screen (a previous compile's cannot be
        recompiled as it was: its text is gone)."""
        kernels = self.session.result.kernels if self.session.result else ()
        return all(any(k is x for k in kernels) for x in (a, b))

    def capture_both(self) -> int:
        a, b = self._sides
        if a is None or not self._capturable(a, b):
            return 0
        started = sum(self.session.capture_passes(k) for k in {id(a): a, id(b): b}.values() if not k.passes)
        if started:
            # a capture takes seconds per side: said on the button, which waits for it
            self.capture_button.setEnabled(False)
            self.capture_button.setText(f"capturing the passes of {started} kernel(s)…")
            self.capture_button.setToolTip("waiting for the capture: the comparison is redone when it ends")
            self.capture_note.setText("")
        return started

    def _recompare(self) -> None:
        """Passes joined a kernel record: compare the same two records again, now with them."""
        self.capture_button.setText("Capture both sides' passes")
        a, b = self._sides
        result = self.session.result
        if a is None or result is None:
            return
        fresh = {k.display_name: k for k in result.kernels}
        # a previous compile's record stays as it is: this compile's of the same name is
        # another record (the passes joined this compile's)
        old = self.other_result.kernels if self.other_result is not None else ()
        a, b = (x if any(x is k for k in old) else fresh.get(x.display_name, x) for x in (a, b))
        if not _same((a, b), self._sides):
            self._compare_sides(a, b)
        else:
            self._show_capture_state(a, b)

    def show_divergence(self) -> bool:
        """The first divergent pass's output on each side, in the diff below."""
        pair = self.comparison
        if pair is None or pair.divergence is None:
            return False
        d = pair.divergence
        front = d.index_a is None  # the inputs already differ: the front end's TTIR
        self.diff.show_texts(
            d.after_a,
            d.after_b,
            "A · the pipelines' input (TTIR)" if front else f"A · after {d.name} (#{d.index_a})",
            "B · the pipelines' input (TTIR)" if front else f"B · after {d.name} (#{d.index_b})",
            lexer_for_syntax("mlir"),
            self.ignore_numbering.isChecked(),
        )
        return True

    def _target_changed(self, ask: bool = True) -> None:
        target = self.right_target.currentText()
        was_previous = self._left_is_previous
        self.other_result = None
        self._name_sides()
        if was_previous and target != PREVIOUS_COMPILE:
            # the left side was the previous compile's: this compile's again
            self._fill_kernels(self.left_kernel, self.left_stage, self.session.result)
            self._left_is_previous = False
        if target == THIS_COMPILE or not self.session.path:
            self._fill_right(self.session.result)
            self.refresh()
            return
        if target == PREVIOUS_COMPILE:
            self._show_previous(self.session.kernel_index)
            return
        if target == ANOTHER_PYTHON:
            if ask or not self.right_python:
                path, _ = QFileDialog.getOpenFileName(
                    self, "Python interpreter for the right side", self.right_python or ""
                )
                if not path:
                    self.right_target.setCurrentText(THIS_COMPILE)
                    return
                self.right_python = path
            request = self.session.request(python=self.right_python)
            what = self.right_python
        else:
            request = self.session.request(target=target, gpu=None)
            what = target
        self.diff.clear(f"compiling with {what}…")
        self._generation += 1
        self._job = CompileJob(request, self._generation, self)
        self._job.finished_result.connect(self._other_compiled)
        # its SASS and ELF come just after: without them the page counted B's SASS as 0
        self._job.derived_result.connect(self._other_compiled)
        self._job.failed.connect(lambda _g, m: self.diff.clear(f"compile with {what} failed: {m}"))
        self._job.start()

    def _other_compiled(self, generation: int, payload) -> None:
        if generation != self._generation:
            return
        self.other_result = payload[0]
        self._fill_right(self.other_result)
        self.refresh()
        self.other_compiled.emit(self.other_result)

    def _show_previous(self, selected: int) -> None:
        """The previous compile on the left (A), this one on the right (B): the record of
        this compile the edit changed, or `selected` (an index into this compile's
        kernels), beside its predecessor, the same stage on both sides."""
        self.other_result = self.session.previous_result
        result = self.session.result
        if self.other_result is None or result is None:
            self._no_previous()
            return
        stage = self.left_stage.currentText() or self.right_stage.currentText()
        self._fill_kernels(self.left_kernel, self.left_stage, self.other_result)
        self._fill_kernels(self.right_kernel, self.right_stage, result)
        self._left_is_previous = True
        pair = edited_pair(pair_rebuild(self.other_result.kernels, result.kernels), max(0, selected))
        self._filling = True
        if pair is not None:
            self.left_kernel.setCurrentIndex(pair.before)
            self.right_kernel.setCurrentIndex(pair.after)
        for box in (self.left_stage, self.right_stage):
            if stage and box.findText(stage) >= 0:
                box.setCurrentText(stage)
        self.right_stage.setCurrentText(self.left_stage.currentText())  # the same stage
        self._filling = False
        self.refresh()

    def _no_previous(self) -> None:
        """'The previous compile' chosen before there is one: said plainly, nothing compared."""
        # how an edit compiles here: as it is typed (unsaved, the editor's text), or when
        # saved; the hint said "save it" while every keystroke compiled
        edit = (
            "edit the file (each edit compiles as you type, saved or not)"
            if self.session.compiles_as_typed
            else "edit the file and save it (Ctrl+S; File ▸ Recompile as You Type is off)"
        )
        message = (
            f"No earlier compile of this file yet, so nothing to compare with: {edit}; then "
            "Ctrl+D shows the compile before the edit (A, left) beside this one (B, right)."
        )
        self._sides, self.comparison = (None, None), None
        self._filling = True
        self.left_kernel.clear()  # no previous compile's kernels to pick from
        self._filling = False
        self._left_is_previous = True  # so leaving 'the previous compile' refills it
        self.diff.clear(message)
        self.explain.setText(message)
        self.figures.setRowCount(0)
        self.pass_button.setEnabled(False)
        self.pass_button.setToolTip("nothing compared yet: no earlier compile")
        self._show_capture_state(None, None)

    def _fill_right(self, result) -> None:
        self._fill_kernels(self.right_kernel, self.right_stage, result)
        stage = self.left_stage.currentText()
        if self._other_build() and stage and self.right_stage.findText(stage) >= 0:
            self._filling = True
            self.right_stage.setCurrentText(stage)  # another build: the same stage as A's
            self._filling = False

    def _fill_kernels(self, kernel_box, stage_box, result) -> None:
        """One side's pickers from a build: its kernels, its stages (the stage kept)."""
        if result is None:
            return
        self._filling = True
        current = stage_box.currentText()
        kernel = kernel_box.currentIndex()
        _add_kernels(kernel_box, result.kernels)
        if 0 <= kernel < kernel_box.count():
            kernel_box.setCurrentIndex(kernel)
        stage_box.clear()
        stage_box.addItems(_stages_of(result))
        if current:
            stage_box.setCurrentText(current)
        self._filling = False

    def compare_target(self, target: str) -> None:
        """Compare with a compile for `target` (compiled in the background)."""
        self.right_target.setCurrentText(target)

    def compare_python(self, python: str) -> None:
        """Compare with a compile of the same file by another interpreter."""
        self.right_python = python
        self.right_target.blockSignals(True)
        self.right_target.setCurrentText(ANOTHER_PYTHON)
        self.right_target.blockSignals(False)
        self._target_changed(ask=False)

    def compare_previous(self) -> None:
        """Compare with the compile before the last edit (and keep comparing after each):
        the config the edit changed, else the one selected in Kernels, beside its
        predecessor (compare/rebuild.py's edited_pair)."""
        if self.right_target.currentText() == PREVIOUS_COMPILE:
            self._show_previous(self.session.kernel_index)  # already chosen: no index change
        else:
            self.right_target.setCurrentText(PREVIOUS_COMPILE)
        self._seek_differing_stage()

    def _seek_differing_stage(self) -> None:
        """Show the first stage that differs between the two sides, where the stage shown
        is identical (issue 54: Ctrl+D opened on an "identical" TTIR while the page named
        the stages that differ); a stage that differs stays. Decided on a job: each
        stage's shown text is filtered and diffed."""
        left, right = self._builds()
        lk, rk = self.left_kernel.currentIndex(), self.right_kernel.currentIndex()
        if (
            left is None
            or right is None
            or not (0 <= lk < len(left.kernels) and 0 <= rk < len(right.kernels))
        ):
            return
        a, b = left.kernels[lk], right.kernels[rk]
        stages = [self.left_stage.itemText(i) for i in range(self.left_stage.count())]
        filters, ignore = self.session.display_filters, self.ignore_numbering.isChecked()

        def show(differing: list[str]) -> bool:
            shown = self.left_stage.currentText()
            if not self._previous_mode() or not _same((a, b), self._sides) or not differing:
                return False
            if shown not in differing:
                self._filling = True
                for box in (self.left_stage, self.right_stage):
                    box.setCurrentText(differing[0])
                self._filling = False
                self.refresh()
            self._stage_sought = True
            return True

        self.jobs.submit("seek", lambda: stages_differing_as_shown(a, b, stages, filters, ignore), show)

    def set_result(self, result) -> None:
        if result is None:  # nothing on screen: no sides to compare
            self._filling = True
            for box in (self.left_kernel, self.right_kernel, self.left_stage, self.right_stage):
                box.clear()
            self._filling = False
            self.other_result = None
            self.diff.show_texts("", "", "", "", None, False)
            self._sides, self.comparison = (None, None), None
            self.explain.setText("nothing compiled to compare")
            self.figures.setRowCount(0)
            self.pass_button.setEnabled(False)
            return
        if self._previous_mode():
            # after each save: what that edit changed, the config looked at kept by name
            chosen = self.right_kernel.currentText()
            names = [k.short_name for k in result.kernels]
            self._show_previous(names.index(chosen) if chosen in names else self.session.kernel_index)
            if self._stage_sought:  # a stage Ctrl+D chose: this edit's first differing one
                self._seek_differing_stage()
            self.schedule()
            return
        if self.right_target.currentText() != THIS_COMPILE:
            self._target_changed(ask=False)  # the file changed: recompile the other side too
        # the sides chosen survive a rebuild of the same file (an edit reset both to the
        # first config): kept by their names and stages where the new result has them
        chosen = [box.currentText() for box in (self.left_kernel, self.right_kernel)]
        chosen_stages = [box.currentText() for box in (self.left_stage, self.right_stage)]
        self._filling = True
        stages = _stages_of(result)
        for box in (self.left_kernel, self.right_kernel):
            _add_kernels(box, result.kernels)
        for box in (self.left_stage, self.right_stage):
            box.clear()
            box.addItems(stages)
        # default: what the first kernel's TTIR became in TTGIR
        if "ttgir" in stages:
            self.right_stage.setCurrentText("ttgir")
        if any(chosen):
            for box, text in zip((self.left_kernel, self.right_kernel), chosen):
                if text and box.findText(text) >= 0:
                    box.setCurrentText(text)
            for box, text in zip((self.left_stage, self.right_stage), chosen_stages):
                if text in stages:
                    box.setCurrentText(text)
        self._filling = False
        self.schedule()

    def _stages_derived(self, result) -> None:
        """SASS and ELF come after the text stages (issue 51): the sides showing this
        compile offer them once made (the first-hour run found no SASS to pick while the
        explanation named its differing lines). The stages chosen stay."""
        if result is None or result is not self.session.result:
            return
        stages = _stages_of(result)
        boxes = [self.left_stage]
        if self.right_target.currentText() == THIS_COMPILE:
            boxes.append(self.right_stage)
        self._filling = True
        try:
            for box in boxes:
                shown = [box.itemText(i) for i in range(box.count())]
                for stage in stages:
                    if stage not in shown:
                        box.addItem(stage)
        finally:
            self._filling = False

    def render(self) -> None:
        self.refresh()

    def compare(self, left_kernel: int, left_stage: str, right_kernel: int, right_stage: str) -> None:
        self._filling = True
        self.left_kernel.setCurrentIndex(left_kernel)
        self.right_kernel.setCurrentIndex(right_kernel)
        self.left_stage.setCurrentText(left_stage)
        self.right_stage.setCurrentText(right_stage)
        self._filling = False
        self.refresh()

    def refresh(self) -> None:
        left_result, right_result = self._builds()
        if self._filling or left_result is None or not left_result.kernels:
            return
        lk, rk = self.left_kernel.currentIndex(), self.right_kernel.currentIndex()
        ls, rs = self.left_stage.currentText(), self.right_stage.currentText()
        if lk < 0 or rk < 0 or not ls or not rs:
            return
        if lk >= len(left_result.kernels) or rk >= len(right_result.kernels):
            return
        left, right = left_result.kernels[lk], right_result.kernels[rk]
        syntax = ALL_STAGES[ls].syntax if ls == rs else None
        # the stage views' display filters (locations, SASS line comments, directives)
        # apply here too: a SASS diff counted every '//## File' line and buried the change
        filters = self.session.display_filters
        sides = [
            (
                filter_stage(left.stages.get(ls, ""), ALL_STAGES[ls].syntax, filters, left.demangled).text,
                _header(left, ls, left_result),
            ),
            (
                filter_stage(right.stages.get(rs, ""), ALL_STAGES[rs].syntax, filters, right.demangled).text,
                _header(right, rs, right_result),
            ),
        ]
        if self._previous_mode():
            # before an edit and after it: the old build on the left (A), each side named
            sides = [
                (sides[0][0], "A · previous compile · " + sides[0][1]),
                (sides[1][0], "B · this compile · " + sides[1][1]),
            ]
        (left_text, left_head), (right_text, right_head) = sides
        if not _same((left, right), self._sides):
            self._compare_sides(left, right)
        self.diff.show_texts(
            left_text,
            right_text,
            left_head,
            right_head,
            lexer_for_syntax(syntax) if syntax else None,
            self.ignore_numbering.isChecked(),
        )


def _header(kernel, stage: str, result) -> str:
    """One side's header: the kernel, the stage and the build it is of (the content hash
    of the file it was compiled from, the target, the Triton version)."""
    content = f" · @{result.build.content[:8]}" if result.build else ""
    return f"{kernel.short_name} · {stage}{content} · {result.target.spec} · triton {result.triton_version}"


def _stages_of(result) -> list[str]:
    """The stages any kernel of `result` has, in the stages' order."""
    return [s for s in ALL_STAGES if any(s in k.stages for k in result.kernels)]


def _add_kernels(box, kernels) -> None:
    """A kernel picker: short names, each with its full name as the tooltip."""
    box.clear()
    for i, k in enumerate(kernels):
        box.addItem(k.short_name)
        box.setItemData(i, k.display_name, Qt.ItemDataRole.ToolTipRole)


def _gpu_of(kernel):
    try:
        return gpu_for(kernel)
    except (KeyError, ValueError):
        return None


def _same(x: tuple, y: tuple) -> bool:
    """The same two records (by identity: a record's equality compares every stage's text)."""
    return len(x) == len(y) and all(p is q for p, q in zip(x, y))
