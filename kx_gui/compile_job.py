"""Runs `kx_core.compile.iter_compile` off the UI thread and reports through signals
(kx_gui.polled_job: the thread, the queue and the UI thread's timer). The generator
yields at least every 0.25 s, so cancel() takes effect within that: the thread closes
the generator, which kills the worker."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from kx_core.base.words import counted
from kx_core.compile import CompilePartial, CompileProgress, CompileRequest, CompileResult, iter_compile
from kx_core.compile.artifacts.derived import underived, with_derived
from kx_core.ir.sourcemap import source_map_of
from kx_gui.polled_job import PolledJob


class CompileJob(PolledJob):
    """One compile of one file."""

    finished_result = Signal(int, object)  # generation, (CompileResult, [SourceMap per kernel])
    # generation, (the kernels compiled so far as a CompileResult, [SourceMap]): shown while
    # the other configs compile; the finished result replaces it
    partial_result = Signal(int, object)
    # generation, (the same result with its derived stages, SASS and ELF, [SourceMap]): made
    # after the text stages are on screen, so disassembling never delays them
    derived_result = Signal(int, object)

    def __init__(
        self, request: CompileRequest, generation: int, parent: QObject | None = None, use_cache: bool = True
    ) -> None:
        super().__init__(generation, "compile", parent)
        self.request = request
        self.use_cache = use_cache

    # ------------------------------------------------------------ compile thread

    def _work(self, put) -> None:
        gen = iter_compile(self.request, use_cache=self.use_cache)
        # id(kernel) -> (kernel, its SourceMap): a partial's kernels are the same objects
        # in the next partial and the result, so each kernel's stages are parsed once
        maps_made: dict[int, tuple] = {}

        def maps_of(result: CompileResult) -> list:
            maps = []
            for k in result.kernels:
                made = maps_made.get(id(k))
                if made is None or made[0] is not k:
                    made = maps_made[id(k)] = (k, source_map_of(k, result.file))
                maps.append(made[1])
            return maps

        for item in gen:
            if self.cancelled.is_set():
                gen.close()
                put(("failed", "cancelled"))
                return
            if isinstance(item, CompileProgress):
                # the seconds are the window's (kx_gui.progress_clock): they tick between
                # reports, where the worker's stood still for a minute-long step
                done = f" ({counted(item.kernels_done, 'kernel')} so far)" if item.kernels_done else ""
                put(("progress", item.message + done))
            elif isinstance(item, CompilePartial):
                maps = maps_of(item.result)
                if not self.cancelled.is_set():
                    put(("partial_result", (item.result, maps)))
            elif isinstance(item, CompileResult):
                # source maps parse every stage of every kernel: done here, so the
                # UI thread only looks them up when a kernel is selected
                maps = maps_of(item)
                if self.cancelled.is_set():
                    return
                put(("finished_result", (item, maps)))
                if underived(item):
                    result = with_derived(item, stop=self.cancelled.is_set)
                    if result is None:
                        return
                    maps = []
                    for k in result.kernels:
                        if self.cancelled.is_set():
                            return  # another build is wanted: its compile has the cores
                        maps.append(source_map_of(k, result.file))
                    put(("derived_result", (result, maps)))
