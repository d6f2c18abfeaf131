"""`kx bench`: run a kernel file for real on the local GPU and time its launches.

The file runs as `__main__` in a worker process (`python -m kx_core.bench.run`), with
no capture driver: its tensors are real and its kernels launch. At the first launch of
each (kernel, specialization), kx times the same call with kx_core.bench.gpu (first
call apart, warm-up, CUDA events, L2 flush between calls), then puts every tensor
argument back as the real launch left it, so the file's own checks see what they would
have seen. For an autotuned kernel, `--configs all` times every config the same way
(compiled all at once on threads before Triton's autotuner runs, so its own pass and
kx's timing find them compiled). Results go to a JSON file.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable
from kx_core.bench.gpu import Timing, cool_down, time_gpu
from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.artifacts.kernel_record import config_of, jit_name
from kx_core.compile.capturing import launch_hooks
from kx_core.compile.capturing.jit_objects import base_jit
from kx_core.compile.capturing.launch_hooks import TritonRuns
from kx_core.records.results import Diagnostic

CONFIG_BUDGET_MS = 30.0  # per config when every autotune config is timed
CONFIG_WARMUP_MS = 5.0


@dataclass(frozen=True)
class LaunchTiming(Jsonable):
    kernel: str
    config: str | None  # an autotune config's label
    grid: tuple[int, int, int]
    timing: Timing
    chosen: bool = False  # the config Triton's autotuner picked (or the only one)
    launches: int = 1  # launches of this (kernel, specialization) in the file
    do_bench_ms: float | None = None  # triton.testing.do_bench on the same call (--do-bench)

    @property
    def display_name(self) -> str:
        return f"{self.kernel}[{self.config}]" if self.config else self.kernel


@dataclass(frozen=True)
class BenchResult(Jsonable):
    file: str
    device: str
    triton_version: str
    timings: tuple[LaunchTiming, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.fatal for d in self.diagnostics)

    def seconds_by_name(self) -> dict[str, float]:
        """Median seconds per kernel display name, for the model's measured points."""
        return {t.display_name: t.timing.median_ms * 1e-3 for t in self.timings}


class _Timer:
    def __init__(
        self,
        budget_ms: float,
        flush_l2: bool,
        cuda_graph: bool,
        kernel: str | None,
        all_configs: bool,
        do_bench: bool = False,
    ):
        self.budget_ms, self.flush_l2, self.cuda_graph = budget_ms, flush_l2, cuda_graph
        self.kernel, self.all_configs, self.do_bench = kernel, all_configs, do_bench
        self.reference_ms: float | None = None  # do_bench's figure for the last time()
        self.timings: list[LaunchTiming] = []
        self.seen: dict[tuple, int] = {}
        self.in_autotune = False

    def wanted(self, name: str) -> bool:
        return self.kernel is None or self.kernel == name

    def time(
        self, call, args: tuple, kwargs: dict, budget_ms: float | None = None, first_ms: float | None = None
    ) -> Timing:
        """Time call(); then restore every CUDA tensor argument to its state before.
        `first_ms` is the file's own first call, timed where it happened."""
        import torch

        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor) and a.is_cuda]
        saved = [t.detach().clone() for t in tensors]
        try:
            timing = time_gpu(
                call,
                budget_ms or self.budget_ms,
                warmup_ms=CONFIG_WARMUP_MS if budget_ms else 50.0,
                flush_l2=self.flush_l2,
                cuda_graph=self.cuda_graph,
                first_call=False,
            )
            if self.do_bench:  # the reference, on the same call in the same process
                from triton.testing import do_bench

                cool_down(timing)  # a long kernel's time depends on the GPU's heat

                # its median, as kx reports the median (do_bench's default is the mean,
                # which one slow launch in a hundred moves by a few percent at 10 us)
                rep = max(100, int(budget_ms or self.budget_ms))
                self.reference_ms = float(do_bench(call, warmup=25, rep=rep, return_mode="median"))
            return replace(timing, first_call_ms=first_ms)
        finally:
            # through .data: the copy must not bump autograd's version counter, or a
            # backward the file runs later fails ("modified by an inplace operation")
            with torch.no_grad():
                for t, s in zip(tensors, saved):
                    t.data.copy_(s)


def compile_configs(jit_fn, args: tuple, kwargs: dict, configs: list, jobs: int | None = None) -> float:
    """Compile every autotune config of a launch at once, on threads (Triton's compile
    spends most of its time outside the GIL: MLIR passes, LLVM, ptxas), before any is
    timed; returns the seconds it took. The launches that follow find them compiled."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    grid = kwargs.get("grid")
    rest = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
    start = time.perf_counter()

    def warm(cfg):
        jit_fn.warmup(*args, grid=grid, **{**rest, **cfg.all_kwargs()})

    with ThreadPoolExecutor(max_workers=jobs or min(len(configs), os.cpu_count() or 1)) as pool:
        list(pool.map(warm, configs))
    return time.perf_counter() - start


def _grid_of(jit_fn, grid, args: tuple, kwargs: dict) -> tuple[int, int, int]:
    from kx_core.compile.artifacts.kernel_record import bind_arguments

    if callable(grid):
        grid = grid(bind_arguments(jit_fn, args, kwargs))
    g = tuple(int(x) for x in grid) + (1, 1, 1)
    return g[:3]


def _first_call_start() -> float:
    """Before a launch that may be a kernel's first: the GPU drained, the clock read. Every
    launch of a timed kernel pays a synchronize here (kx bench serialises the file's
    launches; the figures it reports are timed apart)."""
    import time

    import torch

    torch.cuda.synchronize()
    return time.perf_counter()


def _first_call_ms(started: float | None) -> float | None:
    """Wall time from `started` to the GPU finishing the launch: compile, autotuning,
    lazy initialisation and the run itself (the first call, reported apart)."""
    if started is None:
        return None
    import time

    import torch

    torch.cuda.synchronize()
    return (time.perf_counter() - started) * 1e3


class _BenchHooks:
    """The launch handlers of `kx bench` (kx_core.compile.capturing.launch_hooks): each kernel's
    first launch in the file is timed apart, later ones counted."""

    def __init__(self, timer: _Timer):
        self.timer = timer

    def on_jit_run(self, runs: TritonRuns, fn, *args, grid, warmup, **kwargs):
        timer = self.timer
        name = jit_name(fn)
        timed = not warmup and not timer.in_autotune and timer.wanted(name)
        started = _first_call_start() if timed else None
        kernel = runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)
        if not timed or kernel is None:
            return kernel
        key = (name, getattr(kernel, "hash", None) or id(kernel))
        if key in timer.seen:
            i = timer.seen[key]
            timer.timings[i] = replace(timer.timings[i], launches=timer.timings[i].launches + 1)
            return kernel

        def call():
            runs.jit(fn, *args, grid=grid, warmup=False, **kwargs)

        timing = timer.time(call, args, kwargs, first_ms=_first_call_ms(started))
        timer.seen[key] = len(timer.timings)
        grid3 = _grid_of(fn, grid, args, kwargs)
        timer.timings.append(LaunchTiming(name, None, grid3, timing, True, do_bench_ms=timer.reference_ms))
        return kernel

    def on_autotune_run(self, runs: TritonRuns, tuner, *args, **kwargs):
        timer = self.timer
        base = base_jit(tuner)
        name = jit_name(base)
        key = (name, "autotune", tuple(str(a.shape) if hasattr(a, "shape") else a for a in args))
        first = key not in timer.seen and timer.wanted(name)
        if first and timer.all_configs and len(tuner.configs) > 1:
            compile_configs(base, args, kwargs, list(tuner.configs))
        timer.in_autotune = True
        started = _first_call_start() if first else None
        try:
            result = runs.autotune(tuner, *args, **kwargs)
        finally:
            timer.in_autotune = False
        first_ms = _first_call_ms(started)  # compiles and Triton's own autotuning included
        if first:
            timer.seen[key] = len(timer.timings)
            self._time_configs(runs, tuner, args, kwargs, first_ms)
        return result

    def _time_configs(
        self, runs: TritonRuns, tuner, args: tuple, kwargs: dict, first_ms: float | None
    ) -> None:
        """Time the config Triton's autotuner chose, or every config (--configs all)."""
        timer = self.timer
        base = base_jit(tuner)
        chosen = getattr(tuner, "best_config", None)
        configs = list(tuner.configs) if timer.all_configs else [chosen or tuner.configs[0]]
        grid = kwargs.get("grid")
        rest = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        for index, cfg in enumerate(tuner.configs):
            if cfg not in configs:
                continue
            meta = {**rest, **cfg.all_kwargs()}

            def call(meta=meta):
                runs.jit(base, *args, grid=grid, warmup=False, **meta)

            # a config matrix ranks configs: a few hundred calls each are enough
            budget = min(timer.budget_ms, CONFIG_BUDGET_MS) if len(configs) > 1 else None
            own_first = first_ms if cfg is chosen or len(configs) == 1 else None
            timing = timer.time(call, args, meta, budget, first_ms=own_first)
            timer.timings.append(
                LaunchTiming(
                    jit_name(base),
                    config_of(cfg, index).label,
                    _grid_of(base, grid, args, meta),
                    timing,
                    chosen is cfg or len(tuner.configs) == 1,
                    do_bench_ms=timer.reference_ms,
                )
            )


def run_file(path: str) -> list[Diagnostic]:
    """Execute the file as __main__ for real; failures become diagnostics."""
    from kx_core.compile.capturing.main_module import run_as_main

    return run_as_main(path, diag.runtime_diagnostic)[1]


def main(argv: list[str] | None = None) -> int:
    from kx_core.bench.requests import BenchRequest, read_request

    req, path, out = read_request(BenchRequest, argv, "kx-bench-worker")
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)  # a crash names the user's line
    import torch
    import triton

    timer = _Timer(req.budget_ms, req.flush_l2, req.cuda_graph, req.kernel, req.all_configs, req.do_bench)
    hooks = _BenchHooks(timer)
    launch_hooks.install(hooks.on_jit_run, hooks.on_autotune_run)
    diagnostics = run_file(path)
    torch.cuda.synchronize()
    result = BenchResult(
        file=path,
        device=torch.cuda.get_device_name(),
        triton_version=triton.__version__,
        timings=tuple(timer.timings),
        diagnostics=tuple(diagnostics),
        settings={"budget_ms": req.budget_ms, "flush_l2": req.flush_l2, "cuda_graph": req.cuda_graph},
    )
    workers.write_and_exit(out, result)


if __name__ == "__main__":
    raise SystemExit(main())
