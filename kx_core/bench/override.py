"""`kx bench FILE --override STAGE_FILE`: run a kernel edited at one of its stages.

The file runs for real in a worker, its launches routed through kx's hooks. At the
first launch of the kernel the stage file belongs to, kx has the original kernel (the
launch itself), then compiles the same launch again with Triton's own override hook
(`compiler.compile` asks an override manager for `<kernel>.<stage>` at each stage, as
TRITON_KERNEL_OVERRIDE does) answering with the edited file, so the edit gets the
kernel's real signature, constexprs and options and every later stage is compiled
from it. Both run on the launch's own arguments (restored between runs); the outputs
are compared with the structure-aware comparator; both are timed alternating, in
rounds, with CUDA events. The launch the file made is then restored: the file's own
checks see the original kernel's results."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable
from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.artifacts.kernel_record import jit_name
from kx_core.compile.capturing import launch_hooks
from kx_core.compile.capturing.jit_objects import base_jit
from kx_core.records.backends import replaceable_stages
from kx_core.records.results import Diagnostic

STAGES = replaceable_stages()
ROUNDS = 11
ROUND_MS = 30.0  # timed per kernel per round
# the kernel a stage file defines, per stage.
# Examples: "  tt.func public @add_kernel(%arg0: ..." / "define ptx_kernel void @add_kernel(ptr ..."
#           ".visible .entry add_kernel("
_NAME_RE = {
    "ttir": re.compile(r"tt\.func\s+public\s+@([\w$.]+)"),
    "ttgir": re.compile(r"tt\.func\s+public\s+@([\w$.]+)"),
    "llir": re.compile(r"^define\b[^@\n]*@([\w$.]+)\(", re.M),
    "ptx": re.compile(r"\.entry\s+([\w$]+)\s*\("),
}


@dataclass(frozen=True)
class Timed(Jsonable):
    median_us: float
    iqr_us: float
    rounds: int


@dataclass(frozen=True)
class OverrideResult(Jsonable):
    file: str
    stage_file: str
    stage: str
    kernel: str
    correct: bool
    mismatches: tuple[str, ...] = ()
    original: Timed | None = None
    edited: Timed | None = None
    speedup: float | None = None  # original median / edited median
    device: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()
    extra: dict = field(default_factory=dict)


def stage_of(path: str) -> str:
    ext = os.path.splitext(path)[1].lstrip(".")
    if ext not in STAGES:
        raise ValueError(f"{path}: an edited stage is one of .{', .'.join(STAGES)}")
    return ext


def kernel_of(text: str, stage: str) -> str | None:
    m = _NAME_RE[stage].search(text)
    return m.group(1) if m else None


class _OverrideManager:
    """What compiler.compile asks for overrides: the edited file for `<kernel>.<stage>`."""

    def __init__(self, kernel: str, stage: str, path: str) -> None:
        self.wanted, self.path = f"{kernel}.{stage}", path

    def get_file(self, filename: str) -> str | None:
        return self.path if filename == self.wanted else None

    def has_file(self, filename: str) -> bool:  # older Tritons ask this first
        return filename == self.wanted


class _Editor:
    def __init__(self, stage_file: str, stage: str, kernel: str) -> None:
        self.stage_file, self.stage, self.kernel = stage_file, stage, kernel
        self.result: OverrideResult | None = None

    def on_jit_run(self, runs, fn, *args, grid, warmup, **kwargs):
        kernel = runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)
        if warmup or self.result is not None or kernel is None or jit_name(fn) != self.kernel:
            return kernel
        self.result = self._edit_and_time(runs, fn, args, kwargs, grid, kernel)
        return kernel

    def on_autotune_run(self, runs, tuner, *args, **kwargs):
        # the autotuner's own launches go through on_jit_run: the chosen config is the
        # one launched after tuning; the benchmark launches are warm-up-free too, so the
        # first of them is edited and timed
        return runs.autotune(tuner, *args, **kwargs)

    def _edit_and_time(self, runs, fn, args, kwargs, grid, original) -> OverrideResult:
        import torch
        import triton.compiler.compiler as compiler
        from triton import knobs

        from kx_core.bench.compare import compare_structured

        fn = base_jit(fn)
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor) and a.is_cuda]
        inputs = [t.detach().clone() for t in tensors]
        after_original = [t.detach().clone() for t in tensors]  # the launch just made

        def restore(values):
            with torch.no_grad():
                for t, s in zip(tensors, values):
                    t.data.copy_(s)

        def call():
            runs.jit(fn, *args, grid=grid, warmup=False, **kwargs)

        # the original launch already ran on the file's inputs; put the inputs back and
        # compile the edited kernel (Triton's disk cache bypassed: its key ignores overrides)
        cache = next(c[0] for c in fn.device_caches.values() if original in c[0].values())
        key = next(k for k, v in cache.items() if v is original)
        del cache[key]
        saved = compiler.get_override_manager, knobs.compilation.override, knobs.compilation.always_compile
        compiler.get_override_manager = lambda _hash: _OverrideManager(
            self.kernel, self.stage, self.stage_file
        )
        knobs.compilation.override, knobs.compilation.always_compile = True, True
        # a cache of its own: Triton files a compile under a key the override does not
        # change, so the edited kernel would stand in for the original in every later run
        saved_cache, scratch = knobs.cache.dir, tempfile.mkdtemp(prefix="kx-override-cache-")
        knobs.cache.dir = scratch
        try:
            restore(inputs)
            call()  # compiles from the edited stage, then runs on the same inputs
        except Exception as e:  # noqa: BLE001 - an edit that does not compile is the answer
            cache[key] = original
            restore(after_original)
            why = f"the edited {self.stage} does not compile: {type(e).__name__}: {str(e)[-1500:]}"
            return OverrideResult(
                "",
                self.stage_file,
                self.stage,
                self.kernel,
                False,
                diagnostics=(Diagnostic("compile", why, self.stage_file),),
            )
        finally:
            compiler.get_override_manager = saved[0]
            knobs.compilation.override, knobs.compilation.always_compile = saved[1], saved[2]
            knobs.cache.dir = saved_cache
            shutil.rmtree(scratch, ignore_errors=True)
        edited = cache.get(key)
        torch.cuda.synchronize()
        mismatches = compare_structured(tuple(after_original), tuple(t.detach().clone() for t in tensors))
        original_t, edited_t = _alternate(
            lambda k: cache.__setitem__(key, k), original, edited, call, restore, inputs
        )
        cache[key] = original
        restore(after_original)  # the file goes on as if only its own launch had run
        return OverrideResult(
            file="",
            stage_file=self.stage_file,
            stage=self.stage,
            kernel=self.kernel,
            correct=not mismatches,
            mismatches=tuple(mismatches),
            original=original_t,
            edited=edited_t,
            speedup=original_t.median_us / edited_t.median_us,
        )


def _alternate(select, original, edited, call, restore, inputs) -> tuple[Timed, Timed]:
    """Each kernel timed by kx's GPU timer (kx_core.bench.gpu.time_gpu: per-call CUDA
    events behind a lead kernel, L2 flushed), alternating in ROUNDS rounds, which goes
    first swapped every round; each kernel's figure is the median of its rounds' medians."""
    import numpy as np

    from kx_core.bench.gpu import time_gpu

    medians: dict[int, list[float]] = {0: [], 1: []}
    for r in range(ROUNDS):
        for which in (0, 1) if r % 2 == 0 else (1, 0):
            select(original if which == 0 else edited)
            restore(inputs)
            t = time_gpu(call, budget_ms=ROUND_MS, warmup_ms=5.0, first_call=False)
            medians[which].append(t.median_ms * 1e3)

    def summary(xs):
        q1, med, q3 = np.percentile(xs, [25, 50, 75])
        return Timed(float(med), float(q3 - q1), len(xs))

    return summary(medians[0]), summary(medians[1])


def main(argv: list[str] | None = None) -> int:
    from kx_core.bench.requests import OverrideRequest, read_request

    req, path, out = read_request(OverrideRequest, argv, "kx-override-worker")
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    import torch

    from kx_core.compile.capturing.main_module import run_as_main

    stage_file = os.path.abspath(req.stage_file)
    stage = stage_of(stage_file)
    with open(stage_file, encoding="utf-8", errors="replace") as f:
        kernel = req.kernel or kernel_of(f.read(), stage)
    if not kernel:
        result = OverrideResult(
            path,
            stage_file,
            stage,
            "",
            False,
            diagnostics=(Diagnostic("input", f"{stage_file}: names no kernel", stage_file),),
        )
    else:
        editor = _Editor(stage_file, stage, kernel)
        launch_hooks.install(editor.on_jit_run, editor.on_autotune_run)
        diagnostics = list(run_as_main(path, diag.runtime_diagnostic)[1])
        if editor.result is None:
            why = f"the file never launched {kernel}" if not diagnostics else "the run failed before it"
            diagnostics.append(Diagnostic("runtime", why, path))
            result = OverrideResult(path, stage_file, stage, kernel, False, diagnostics=tuple(diagnostics))
        else:
            from dataclasses import replace

            result = replace(
                editor.result,
                file=path,
                device=torch.cuda.get_device_name(),
                diagnostics=editor.result.diagnostics + tuple(diagnostics),
            )
    workers.write_and_exit(out, result)


if __name__ == "__main__":
    raise SystemExit(main())
