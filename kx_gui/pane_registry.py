"""The one table of panes: name, dock title, the class (imported when first needed), the
dock area, whether it is built only when first shown, and (from the class) what it
listens to; and the workspaces that show them. The main window builds its docks, its
workspace bar and its View menu from it; a lazy pane (one that draws with pyqtgraph, or
runs its own engine) costs nothing until it is shown or something asks for it, so the
window opens at a Qt start-up's speed."""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass

from kx_core.cpu.targets import CPP_SOURCES


@dataclass(frozen=True)
class PaneSpec:
    name: str
    title: str
    factory: str  # "module:Class"
    area: str  # "left" or "right"
    lazy: bool = False
    # Session signals that build the pane when it is not built yet, then reach it as its
    # `listens` says (an IR line's layout view builds the Layout pane)
    answers: tuple[str, ...] = ()
    # what the window hands the pane's constructor besides the session (by attribute)
    needs: tuple[str, ...] = ()
    # file suffixes for which the pane comes first in its workspace (Bench, for C++)
    front_for: tuple[str, ...] = ()
    # View-menu commands the pane offers: (menu text, the pane's method, shortcut); the
    # window shows the pane and calls the method
    actions: tuple[tuple[str, str, str], ...] = ()

    def load(self) -> type:
        module, cls = self.factory.split(":")
        return getattr(importlib.import_module(module), cls)

    def listens(self) -> dict[str, str]:
        """The Session signals the pane listens to, and the method each calls (declared
        on the pane class as `listens`; its base class connects them)."""
        return dict(self.load().listens)


PANES: tuple[PaneSpec, ...] = (
    PaneSpec(
        "source", "Source", "kx_gui.panes.source_pane:SourcePane", "left", needs=("recovery", "headless")
    ),
    PaneSpec("stages", "Stages", "kx_gui.panes.stage_pane:StagePane", "right"),
    PaneSpec("kernels", "Kernels", "kx_gui.panes.kernels_pane:KernelsPane", "left"),
    PaneSpec("problems", "Problems", "kx_gui.panes.problems_pane:ProblemsPane", "left"),
    PaneSpec("launches", "Launches", "kx_gui.panes.launches_pane:LaunchesPane", "left", lazy=True),
    PaneSpec("output", "Output", "kx_gui.panes.output_pane:OutputPane", "left"),
    PaneSpec("pipeline", "Pipeline", "kx_gui.panes.pipeline_pane:PipelinePane", "right"),
    PaneSpec(
        "diff",
        "Diff",
        "kx_gui.panes.diff_pane:DiffPane",
        "right",
        actions=(("Diff with the Previous Compile", "compare_previous", "Ctrl+D"),),
    ),
    PaneSpec("concepts", "Concepts", "kx_gui.panes.concepts_pane:ConceptsPane", "right", lazy=True),
    PaneSpec("summary", "Summary", "kx_gui.panes.summary_pane:SummaryPane", "right"),
    PaneSpec(
        "layout",
        "Layout",
        "kx_gui.panes.layout_pane:LayoutPane",
        "right",
        lazy=True,
        answers=("view_requested",),
    ),
    PaneSpec("roofline", "Roofline", "kx_gui.panes.roofline_pane:RooflinePane", "right", lazy=True),
    PaneSpec("autotune", "Autotune", "kx_gui.panes.autotune_pane:AutotunePane", "right", lazy=True),
    PaneSpec(
        "bench", "Bench", "kx_gui.panes.bench_pane:BenchPane", "right", lazy=True, front_for=CPP_SOURCES
    ),
    PaneSpec(
        "egraph",
        "E-graph",
        "kx_gui.panes.egraph_pane:EgraphPane",
        "right",
        lazy=True,
        actions=(("Fit the E-graph to the View", "fit_to_view", "Ctrl+0"),),
    ),
    PaneSpec("luminal", "Luminal", "kx_gui.panes.luminal_pane:LuminalPane", "right", lazy=True),
    PaneSpec("playground", "Playground", "kx_gui.panes.playground_pane:PlaygroundPane", "right", lazy=True),
    PaneSpec(
        "kernelbench", "KernelBench", "kx_gui.panes.kernelbench_pane:KernelbenchPane", "right", lazy=True
    ),
)
BY_NAME = {spec.name: spec for spec in PANES}
# The pane that holds the open document: the window saves it, asks about its unsaved
# edits, titles itself after it, and shows the welcome page in its place until a file opens.
EDITOR = "source"


@dataclass(frozen=True)
class Workspace:
    """A set of panes for one task, and where they sit by default: `left_top` over
    `left_bottom` on the left (each group tabbed), `right` tabbed on the right. Every
    workspace shows the same session (file, kernel, selection); each remembers its own
    arrangement."""

    name: str
    title: str
    left_top: tuple[str, ...]
    left_bottom: tuple[str, ...]
    right: tuple[str, ...]
    tip: str

    @property
    def panes(self) -> tuple[str, ...]:
        return self.left_top + self.left_bottom + self.right


WORKSPACES: tuple[Workspace, ...] = (
    Workspace(
        "explore",
        "Explore",
        ("source",),
        ("kernels", "problems", "launches", "output"),
        ("stages", "pipeline", "diff", "concepts", "summary"),
        "the source, its stages down to SASS with linked lines, passes, diffs and concepts",
    ),
    Workspace(
        "layout",
        "Layout",
        ("stages", "source"),  # the source too: a Gluon file's layouts are written there
        ("kernels",),
        ("layout",),
        "which lane owns which element: click a layout, a load or a convert_layout in TTGIR, or a layout in a Gluon source",
    ),
    Workspace(
        "performance",
        "Performance",
        ("source",),
        ("kernels", "output"),
        ("roofline", "autotune", "bench"),
        "the roofline, the autotune configs ranked, and timing on the local GPU",
    ),
    Workspace(
        "labs",
        "Labs",
        (),
        (),
        ("playground", "egraph", "luminal", "kernelbench"),
        "the MLIR pass playground and lit, e-graphs, the Luminal drills and KernelBench",
    ),
)
WORKSPACE_BY_NAME = {w.name: w for w in WORKSPACES}


_prefetch_started = False


def prefetch_pane_modules() -> None:
    """Import every lazy pane's module in a background thread, once. An import holds the
    GIL only between bytecodes, so the UI thread keeps answering (measured: the worst
    gap while pyqtgraph imports this way is about 20 ms, against 230 ms on the UI thread).
    Only imports: widgets are built on the UI thread when a pane is first shown."""
    global _prefetch_started
    if _prefetch_started:
        return
    _prefetch_started = True

    def run() -> None:
        from kx_gui import gc_guard

        # what the imports make lives as long as the app: out of the collector's sight
        # at the end, and no collection scans it meanwhile (gc_guard.held)
        with gc_guard.held():
            for spec in PANES:
                if spec.lazy:
                    try:
                        importlib.import_module(spec.factory.split(":")[0])
                    except Exception:  # noqa: BLE001 - the pane reports it when it is built
                        pass

    threading.Thread(target=run, name="kx-prefetch-panes", daemon=True).start()
