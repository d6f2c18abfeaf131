"""Stage pane: one tab per StageDescriptor of the selected kernel, highlighted, linked.

Tabs come from `stages_for(kernel.target)`. A tab's text is loaded when it is first
shown for a kernel (a 50,000-line PTX costs nothing until looked at). Clicking a line
links it to its source line and to its counterparts in the other stages.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QVBoxLayout

from kx_core.compile.stages import CUDA_STAGES, StageDescriptor, stages_for
from kx_core.ir.lexers import lexer_for_syntax
from kx_gui.panes.base import Pane
from kx_gui.widgets.code_view import CodeView, ask_and_go_to_line
from kx_gui.widgets.find_bar import FindBar
from kx_gui.widgets.token_styles import band_color


class StagePane(Pane):
    title = "Stages"
    name = "stages"
    listens = {"kernel_changed": "show_kernel", "link_changed": "show_links"}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.find_bar = FindBar(self.current_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        layout.addWidget(self.find_bar)
        self.descriptors: list[StageDescriptor] = []
        self.views: dict[str, CodeView] = {}
        self._loaded: dict[str, int] = {}
        self._kernel_serial = 0
        self._links: dict[str, tuple[int, ...]] = {}
        self.tabs.currentChanged.connect(self._tab_shown)
        # make the CUDA tabs now, at start-up, rather than while the first result arrives
        self._build_tabs(CUDA_STAGES)

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
                return True
        return False

    def _build_tabs(self, descriptors: tuple[StageDescriptor, ...]) -> None:
        if [d.name for d in descriptors] == [d.name for d in self.descriptors]:
            return
        current = self.current_stage()
        self.tabs.clear()
        self.views.clear()
        self.descriptors = list(descriptors)
        for d in descriptors:
            view = CodeView()
            view.line_clicked.connect(lambda line, s=d.name: self.session.select_ir_line(s, line))
            self.views[d.name] = view
            self.tabs.addTab(view, d.display_name)
        if current:
            self.select_stage(current)

    def show_kernel(self, kernel, source_map) -> None:
        self._kernel_serial += 1
        self._loaded.clear()
        self._links = {}
        if kernel is None:
            for view in self.views.values():
                view.set_content("")
            return
        self._build_tabs(stages_for(kernel.target))
        self._tab_shown(self.tabs.currentIndex())

    def _tab_shown(self, index: int) -> None:
        if not 0 <= index < len(self.descriptors):
            return
        d = self.descriptors[index]
        if self._loaded.get(d.name) == self._kernel_serial:
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
            view.set_content(f"// no {d.display_name}: {why}\n")
            return
        view.set_content(text, lexer_for_syntax(d.syntax))
        if source_map is not None:

            def band(line: int, stage=d.name, sm=source_map):
                sources = sm.source_lines(stage, line)
                return band_color(sources[0]) if sources else None

            view.set_bands(band)
        self._apply_links(d.name)

    def show_links(self, source_line, links: dict) -> None:
        self._links = dict(links)
        for stage in self.views:
            if self._loaded.get(stage) == self._kernel_serial:
                self._apply_links(stage)

    def _apply_links(self, stage: str) -> None:
        view = self.views[stage]
        lines = self._links.get(stage, ())
        view.set_emphasis(lines)
        if lines and not any(line in view.visible_lines() for line in lines):
            view.scroll_to_line(lines[0])

    def ask_line(self) -> None:
        view = self.current_view()
        if view is not None:
            ask_and_go_to_line(self, view)
