"""The profile of the open file as the app holds it: one feature model beside the
Session (which holds the document, the compile and the selection).

The latest ProfileResult (kx_core.bench.profile), the build it sampled, and its hot
lines by kernel; `heat()` is what a pane draws in its gutter, and nothing while the
build on screen is another (the samples would land on other lines). Panes listen to
`profiles.changed` (a Pane's `listens` names it so)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from kx_core.records.build import Build


class Profiles(QObject):
    changed = Signal(object)  # ProfileResult | None

    def __init__(self, session) -> None:
        super().__init__(session)
        self.session = session
        self.result = None  # the latest ProfileResult of the open file
        self.build: Build | None = None  # the build it sampled
        self.hot_lines: dict[str, tuple] = {}  # kernel name -> (HotLines, KernelProfile)

    def set(self, result, build: Build | None = None) -> None:
        """A profile of the open file and the build it sampled (None: forget it)."""
        from kx_core.ir.hot_lines import attribute

        self.result = result
        self.build = build if result is not None else None
        # kx's samples are per PC; a Proton profile's per source line (attribute takes either)
        kernels = result.kernels if result else ()
        self.hot_lines = {k.kernel: (attribute(k), k) for k in kernels if k.by_pc or k.by_line}
        self.changed.emit(result)

    @property
    def note(self) -> str:
        """'' when the samples are of the build on screen; else what the panes say."""
        return self.session.held_note(self.build, "the hot lines are") if self.result is not None else ""

    def heat(self, kernel=None) -> tuple[dict, int]:
        """The profile's heat on the lines of a shown kernel (default: the selected one):
        {stage or "source": {line: LineHeat}}, and the kernel's total samples."""
        from kx_core.ir.hot_lines import heat_for

        s = self.session
        kernel = kernel if kernel is not None else s.kernel
        found = self.hot_lines.get(getattr(kernel, "name", None))
        if kernel is None or found is None or self.note:
            return {}, 0  # nothing profiled, or samples of other lines (another build)
        hot, profiled = found
        smap = s.source_map if kernel is s.kernel else None
        return heat_for(hot, kernel.stages, smap, profiled.stages.get("sass", "")), hot.total
