"""Runs `kx_core.recorded.open_record.iter_open` off the UI thread: a record of a real run
(a Triton cache or dump folder, a tritonparse trace) read as CompileJob reads a compile.

The thread, its queue and the UI thread's timer are kx_gui.polled_job's. A trace
gives its first kernel before the index is done (`opened` with `complete` False), then
progress, then the whole index; the Session shows each as it comes.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from kx_core.compile.artifacts.derived import with_derived
from kx_core.ir.sourcemap import source_map_of
from kx_core.recorded.open_record import NotARecord, OpenedRecord, iter_open
from kx_core.recorded.trace_index import ScanProgress
from kx_gui.polled_job import PolledJob


def source_maps(opened: OpenedRecord, document: str) -> list:
    """Each kernel's links to `document` (the kernels' source file, not the record)."""
    return [source_map_of(k, document) for k in opened.result.kernels]


class RecordJob(PolledJob):
    """One opening of one record."""

    opened = Signal(int, object)  # generation, OpenedRecord (derived stages made)

    def __init__(
        self, path: str, generation: int, parent: QObject | None = None, trusted: bool = False
    ) -> None:
        super().__init__(generation, "record", parent)
        self.path = path
        self.trusted = trusted  # the user trusts the record's code (an Inductor module may run)

    def _work(self, put) -> None:
        try:
            for step in iter_open(self.path, self.trusted):
                if self.cancelled.is_set():
                    put(("failed", "cancelled"))
                    return
                if isinstance(step, ScanProgress):
                    share = step.done_bytes / step.total_bytes if step.total_bytes else 1.0
                    put(("progress", f"indexing the trace: {share:.0%}, {step.kernels:,} kernel(s)"))
                    continue
                if step.index is None:  # a folder: SASS (and ELF) from its cubins, as a compile's
                    put(("progress", "disassembling SASS…"))
                    step = replace(step, result=with_derived(step.result))
                put(("opened", step))
        except NotARecord as e:
            put(("failed", str(e)))
