"""Stage pane: one tab per Stage of the selected kernel, highlighted, linked.

Tabs come from `stages_for(kernel.target)`. A tab's text is loaded when it is first
shown for a kernel (a 50,000-line PTX costs nothing until looked at). Clicking a line
links it to its source line and to its counterparts in the other stages; the view lands
on the main instruction of the linked lines (kx_core.ir.main_instruction), and the bar
above steps through the linked blocks. The session's display filters hide locations,
debug info and SASS's line comments (kx_core.ir.display_filters); the gutter keeps the
full text's line numbers, and links are made on the full text.
"""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTabWidget, QVBoxLayout

from kx_core.ir.display_filters import FilteredText, filter_stage
from kx_core.ir.instruction_help import help_for_line
from kx_core.ir.lexers import lexer_for_syntax
from kx_core.ir.main_instruction import blocks, main_line
from kx_core.records.backends import ALL_STAGES, CUDA, Stage, stages_for
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView, ask_and_go_to_line
from kx_gui.widgets.elided_label import ElidedLabel
from kx_gui.widgets.find_bar import FindBar
from kx_gui.widgets.heat import view_heat
from kx_gui.widgets.token_styles import band_color

# the gutter mark of an instruction whose operation kx followed to another line than
# the stage's debug info names (kx_core.ir.op_follow)
FOLLOWED_MARK = QColor("#ef6c00")


# a target switch from one backend's machine code lands on the other's
_ISA_FOR = {"sass": "amdgcn", "ptx": "amdgcn", "amdgcn": "sass"}


class StagePane(Pane):
    title = "Stages"
    name = "stages"
    listens = {
        "document_opened": "_document_opened",
        "kernel_changed": "show_kernel",
        "link_changed": "show_links",
        "display_filters_changed": "_filters_changed",
        "profiles.changed": "_profile_changed",
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.find_bar = FindBar(self.current_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._block_bar())
        layout.addWidget(self.tabs)
        layout.addWidget(self.find_bar)
        self.descriptors: list[Stage] = []
        self.views: dict[str, CodeView] = {}
        self.filtered: dict[str, FilteredText] = {}  # each loaded stage's shown text
        self.full_lines: dict[str, list[str]] = {}  # and its full text's lines (for links)
        self._loaded: dict[str, int] = {}
        self._kernel_serial = 0
        self._links: dict[str, tuple[int, ...]] = {}
        self._source_line: int | None = None  # the source line the links are of
        # the stage the user last chose (a click on a tab, --stage): a target switch that
        # picks another tab on its own (SASS -> AMDGCN) leaves it, so switching back lands
        # on it again (it landed on PTX, the tab at AMDGCN's index)
        self._chosen: str | None = None
        self._document_path: str | None = None  # the file whose stages these are
        self.tabs.currentChanged.connect(self._tab_chosen)
        # make the CUDA tabs now, at start-up, rather than while the first result arrives
        self._build_tabs(tuple(d for d in CUDA.stages if not d.optional))

    def _block_bar(self) -> QHBoxLayout:
        """Previous / next linked block of the current stage, and where the view is."""
        self.prev_button = QPushButton("◀ Previous linked")
        self.next_button = QPushButton("Next linked ▶")
        self.prev_button.setToolTip(
            "the previous block of lines linked to the selected source line (Shift+F8)"
        )
        self.next_button.setToolTip("the next block of lines linked to the selected source line (F8)")
        self.prev_button.setShortcut("Shift+F8")
        self.next_button.setShortcut("F8")
        # a long note is cut with "…", never widens the window; the whole of it on hover
        self.block_label = ElidedLabel("click a source or stage line to link it")
        for button in (self.prev_button, self.next_button):
            button.setEnabled(False)  # nothing linked yet (they were enabled with no file open)
        self.prev_button.clicked.connect(lambda: self.step_block(-1))
        self.next_button.clicked.connect(lambda: self.step_block(1))
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)
        bar.addWidget(self.block_label, 1)
        return bar

    def current_stage(self) -> str | None:
        i = self.tabs.currentIndex()
        return self.descriptors[i].name if 0 <= i < len(self.descriptors) else None

    def current_view(self) -> CodeView | None:
        stage = self.current_stage()
        return self.views.get(stage) if stage else None

    def select_stage(self, name: str) -> bool:
        for i, d in enumerate(self.descriptors):
            if name.lower() in (d.name, d.display_name.lower(), d.extension):
                self.tabs.setCurrentIndex(i)
                if not self.tabs.signalsBlocked():
                    self._chosen = d.name
                return True
        return False

    def _build_tabs(self, descriptors: tuple[Stage, ...]) -> None:
        if [d.name for d in descriptors] == [d.name for d in self.descriptors]:
            return
        current, index = self.current_stage(), self.tabs.currentIndex()
        # no currentChanged while the tabs are replaced: clear() walks the current index
        # down through the old tabs, and each step loaded an old view and marked the new
        # one of that name loaded (TTIR, TTGIR and LLVM IR stayed empty after a switch
        # to hip:gfx942 made from the SASS tab)
        self.tabs.blockSignals(True)
        try:
            self.tabs.clear()
            self.views.clear()
            self._loaded.clear()
            self.descriptors = list(descriptors)
            for d in descriptors:
                view = CodeView()
                view.line_clicked.connect(lambda line, s=d.name: self._line_clicked(s, line))
                self.views[d.name] = view
                self.tabs.addTab(view, d.display_name)
            # the stage chosen, else the same stage, else the machine code for machine
            # code (SASS <-> AMDGCN), else the one as deep in the pipeline
            names = [d.name for d in descriptors]
            for want in (self._chosen, current, _ISA_FOR.get(self._chosen), _ISA_FOR.get(current)):
                if want in names:
                    self.tabs.setCurrentIndex(names.index(want))
                    break
            else:
                if index >= 0:
                    self.tabs.setCurrentIndex(min(index, len(descriptors) - 1))
        finally:
            self.tabs.blockSignals(False)

    def _line_clicked(self, stage: str, shown_line: int) -> None:
        f = self.filtered.get(stage)
        self.session.select_ir_line(stage, f.original_line(shown_line) if f else shown_line)

    def _filters_changed(self) -> None:
        """Reload the shown stage with the new filters (the others when next shown)."""
        self._kernel_serial += 1
        self._loaded.clear()
        self._tab_shown(self.tabs.currentIndex())

    def show_kernel(self, kernel, source_map) -> None:
        self._kernel_serial += 1
        self._loaded.clear()
        self._links = {}
        self._update_block_label()
        if kernel is None:
            for view in self.views.values():
                view.set_content("")
            return
        # an optional stage (Gluon IR) is a tab only for a kernel that has it; a CuTe DSL
        # program or a TileLang kernel never passes through Triton's TTIR, TTGIR or LLVM
        # IR: only its own tabs (SASS and ELF, made from its cubin, among them)
        own_only = "cute" in kernel.stages or "tilelang" in kernel.stages
        self._build_tabs(
            tuple(
                d
                for d in stages_for(kernel.target)
                if d.name in kernel.stages
                or (d.derived_from and d.derived_from in kernel.binaries)
                or not (d.optional or own_only)
            )
        )
        # a kernel that starts below TTIR (Gluon, Helion, CuTe DSL) opens on its own first
        # stage when TTIR is the tab: an empty TTIR was what a Gluon file first showed
        first = next((d.name for d in self.descriptors if d.optional and d.name in kernel.stages), None)
        if first and self.current_stage() == "ttir" and "ttir" not in kernel.stages:
            self.tabs.blockSignals(True)
            self.tabs.setCurrentIndex([d.name for d in self.descriptors].index(first))
            self.tabs.blockSignals(False)
        self._tab_shown(self.tabs.currentIndex())

    def _tab_chosen(self, index: int) -> None:
        """A tab change the user (or --stage) made: _build_tabs blocks its own."""
        if 0 <= index < len(self.descriptors):
            self._chosen = self.descriptors[index].name
        self._tab_shown(index)

    def _tab_shown(self, index: int) -> None:
        self.find_bar.forget()
        if not 0 <= index < len(self.descriptors):
            return
        d = self.descriptors[index]
        if self._loaded.get(d.name) == self._kernel_serial:
            self._update_block_label()
            return
        self._loaded[d.name] = self._kernel_serial
        kernel, source_map = self.session.kernel, self.session.source_map
        view = self.views[d.name]
        if kernel is None:
            view.set_content("")
            return
        text = kernel.stages.get(d.name)
        if text is None:
            why = f"{kernel.display_name}: {kernel.status}" + (
                f": {kernel.message}" if kernel.message else ""
            )
            if d.derived_from and d.derived_from not in kernel.binaries and kernel.status == "compiled":
                why = f"{kernel.display_name}: no {d.derived_from} to make it from (the record holds none)"
            if d.name == "ttir" and "gluon" in kernel.stages:
                why = (
                    f"{kernel.display_name} is a Gluon kernel: its frontend writes TritonGPU IR with the "
                    "source's layouts (the Gluon IR tab), lowered from there (TTGIR)"
                )
            view.set_content(f"// no {d.display_name}: {why}\n")
            return
        f = filter_stage(text, d.syntax, self.session.display_filters, kernel.demangled)
        self.filtered[d.name] = f
        self.full_lines[d.name] = text.split("\n")  # split once, not on every click
        view.set_content(f.text, lexer_for_syntax(d.syntax), f.originals)
        shown_lines = f.text.split("\n")
        view.hover_help = (
            (
                lambda line, syntax=d.syntax, lines=shown_lines: (
                    help_for_line(syntax, lines[line - 1]) if 0 < line <= len(lines) else None
                )
            )
            if d.syntax in ("ptx", "sass")
            else None
        )
        if source_map is not None:

            def band(line: int, stage=d.name, sm=source_map, f=f):
                sources = sm.source_lines(stage, f.original_line(line))
                return band_color(sources[0]) if sources else None

            view.set_bands(band)
            view.set_gutter_marks(
                {
                    (f.shown_line(n) if f else n): (FOLLOWED_MARK, followed.words(d.display_name))
                    for n, followed in source_map.followed.get(d.name, {}).items()
                }
            )
        self._apply_links(d.name)
        self._apply_heat(d.name)
        self._update_block_label()

    def _apply_heat(self, stage: str) -> None:
        """The profile's hot lines of this stage, as gutter bars (none without a profile)."""
        heat, total = self.session.profiles.heat()
        f = self.filtered.get(stage)
        self.views[stage].set_heat(view_heat(heat.get(stage, {}), total, f.shown_line if f else None))

    def _profile_changed(self, _result) -> None:
        for stage in self.views:
            if self._loaded.get(stage) == self._kernel_serial:
                self._apply_heat(stage)

    def show_links(self, source_line, links: dict) -> None:
        self._links = dict(links)
        self._source_line = source_line
        for stage in self.views:
            if self._loaded.get(stage) == self._kernel_serial:
                self._apply_links(stage)
        self._update_block_label()

    def shown_links(self, stage: str) -> tuple[int, ...]:
        """The linked lines of `stage`, as the view numbers them (after the filters)."""
        f = self.filtered.get(stage)
        lines = self._links.get(stage, ())
        return f.shown_lines(lines) if f else tuple(lines)

    def main_link(self, stage: str) -> int | None:
        """The shown line of the main instruction among `stage`'s links."""
        lines = self._links.get(stage, ())
        main = main_line(ALL_STAGES[stage].syntax, lines, self.full_lines.get(stage, [])) if lines else None
        f = self.filtered.get(stage)
        return f.shown_line(main) if f and main else main

    def disputes(self, stage: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(followed here, claimed here): the linked lines of `stage` (full-text numbers)
        whose operation kx followed to the selected source line from another line the
        debug info names, and those the debug info names here whose operation is another
        line's."""
        sm, here = self.session.source_map, self._source_line
        followed = sm.followed.get(stage, {}) if sm is not None and here is not None else {}
        rows = [(n, followed[n]) for n in self._links.get(stage, ()) if n in followed]
        return (
            tuple(n for n, f in rows if f.line == here),
            tuple(n for n, f in rows if f.line != here and f.claimed == here),
        )

    def _apply_links(self, stage: str) -> None:
        view = self.views[stage]
        lines = self.shown_links(stage)
        f = self.filtered.get(stage)
        claimed = self.disputes(stage)[1]
        view.set_emphasis(lines, f.shown_lines(claimed) if f else claimed)
        main = self.main_link(stage)
        origin = self.session.link_origin
        if origin is not None and origin[0] == stage:
            return  # the user clicked a line here: it stays where it is, in view
        if main is not None and main not in view.visible_lines():
            view.scroll_to_line(main)

    def step_block(self, step: int) -> int | None:
        """Scroll the current stage to the next (1) or previous (-1) linked block; returns
        its first line (shown numbering), or None when there are no links."""
        stage, view = self.current_stage(), self.current_view()
        runs = blocks(self.shown_links(stage)) if stage else ()
        if not runs or view is None:
            return None
        middle = view.visible_lines()
        here = (middle.start + middle.stop) // 2
        starts = [a for a, _ in runs]
        after = [a for a in starts if a > here] if step > 0 else [a for a in starts if a < here - 1]
        target = (after[0] if step > 0 else after[-1]) if after else (starts[0] if step > 0 else starts[-1])
        view.scroll_to_line(target)
        self._update_block_label(starts.index(target) + 1)
        return target

    def _update_block_label(self, at: int | None = None) -> None:
        stage = self.current_stage()
        runs = blocks(self.shown_links(stage)) if stage else ()
        enabled = len(runs) > 0
        self.prev_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)
        if not runs:
            self.block_label.setText("click a source or stage line to link it")
            return
        lines = sum(b - a + 1 for a, b in runs)
        where = f"block {at} of {len(runs)}" if at else f"{len(runs)} block{'s' * (len(runs) > 1)}"
        text = f"{lines} linked line{'s' * (lines > 1)} in {where}" + self._dispute_note(stage)
        self.block_label.setText(text)

    def _dispute_note(self, stage: str) -> str:
        """Where the debug info and the followed operations disagree: both, said."""
        sm = self.session.source_map
        followed_map = sm.followed.get(stage, {}) if sm is not None else {}
        origin = self.session.link_origin
        if origin is not None and origin[0] == stage and origin[1] in followed_map:
            return " · " + followed_map[origin[1]].words(ALL_STAGES[stage].display_name)
        here, claimed = self.disputes(stage)
        notes = []
        if here:
            named = sorted({followed_map[n].claimed for n in here} - {0})
            # claimed 0: a line the file does not have (op_follow.Followed)
            nowhere = any(followed_map[n].claimed == 0 for n in here)
            parts = [f"line{'s' * (len(named) > 1)} " + ", ".join(map(str, named))] if named else []
            parts += ["no line of this file"] if nowhere else []
            notes.append(f"{len(here)} followed here from what the debug info names: " + " and ".join(parts))
        if claimed:
            owners = sorted({followed_map[n].line for n in claimed})
            notes.append(
                f"{len(claimed)} hatched: line{'s' * (len(owners) > 1)} "
                + ", ".join(map(str, owners))
                + "'s operation, which the debug info names here"
            )
        return "".join(" · " + n for n in notes)

    def _document_opened(self, path: str, _text: str) -> None:
        if path != self._document_path:
            self.find_bar.reset()  # another file: the last one's search goes with it
        self._document_path = path

    def ask_line(self) -> None:
        """Ctrl+G: ask for a line of the stage shown, go there and link it, as a click does."""
        view = self.current_view()
        if view is None:
            return
        line = ask_and_go_to_line(self, view)
        name = next((n for n, v in self.views.items() if v is view), None)
        if line is not None and name is not None:
            self._line_clicked(name, line)
