"""`kx profile FILE`: where each kernel's time goes, sampled on the local GPU.

The file runs for real in a worker (`python -m kx_core.bench.profile`), its launches
routed through kx's hooks as `kx bench` does. At each kernel's first launch (an
autotuned kernel's chosen config), kx repeats that call for a sampling window under
CUPTI's PC sampling (kx_core.bench.pcsampling) and keeps, per SASS offset, the samples
per stall reason; with it, the stages of the kernel that ran (its TTIR, TTGIR, LLVM IR,
PTX and the SASS of its cubin), so the samples are attributed to lines of exactly the
code that was sampled (kx_core.ir.hot_lines). `--proton` samples the same calls with
Proton instead and keeps its per-kernel and per-line figures: the oracle.

Stall reasons are counted as Proton counts them (CuptiPCSampling.cpp): a CUPTI reason
belongs to the first of Proton's metric names it contains; `num_samples` counts every
sample, `num_stalled_samples` and the per-reason figures leave out the `_not_issued`
variants; reasons matching none of Proton's names are not collected."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable
from kx_core.compile.artifacts import diagnostics as diag
from kx_core.compile.artifacts.kernel_record import jit_name
from kx_core.compile.capturing import launch_hooks
from kx_core.compile.capturing.jit_objects import base_jit
from kx_core.compile.capturing.launch_hooks import TritonRuns
from kx_core.records.backends import compiler_stages
from kx_core.records.results import Diagnostic

# Proton's PCSamplingMetric value names, in its order (Data/Metric.h), "num_*" apart;
# "stalled_not_Selected" is spelled so there, so no CUPTI name matches it.
PROTON_REASONS = (
    "stalled_branch_resolving",
    "stalled_no_instruction",
    "stalled_short_scoreboard",
    "stalled_wait",
    "stalled_long_scoreboard",
    "stalled_tex_throttle",
    "stalled_barrier",
    "stalled_membar",
    "stalled_imc_miss",
    "stalled_mio_throttle",
    "stalled_math_pipe_throttle",
    "stalled_drain",
    "stalled_lg_throttle",
    "stalled_not_Selected",
    "stalled_misc",
    "stalled_dispatch_stall",
    "stalled_sleeping",
    "stalled_selected",
)
STAGES = compiler_stages()  # the text stages of the profiled compile
CHUNK_MS = 20.0  # GPU time between two drains of CUPTI's buffers


def proton_reason(cupti_name: str) -> str | None:
    """The Proton metric a CUPTI stall reason counts under, or None (not collected).
    Example: 'smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued' ->
    'stalled_long_scoreboard'."""
    return next((r for r in PROTON_REASONS if r in cupti_name), None)


@dataclass(frozen=True)
class KernelProfile(Jsonable):
    """One kernel's samples: per SASS offset (hex, as nvdisasm writes it) the stalled
    samples per Proton reason and the samples in all; totals; the stages that ran."""

    kernel: str
    config: str | None
    grid: tuple[int, int, int]
    calls: int  # launches in the sampling window
    window_ms: float  # GPU time of those launches (CUDA events)
    samples: int  # num_samples
    stalled: int  # num_stalled_samples
    reasons: dict[str, int]  # Proton reason -> stalled samples
    by_pc: dict[str, dict[str, int]]  # "0x0070" -> {"samples": n, "stalled": m, reason: k, ...}
    stages: dict[str, str] = field(default_factory=dict)
    source_file: str = ""
    by_line: dict[str, dict[str, int]] = field(default_factory=dict)  # Proton: "file:line" -> metrics
    launches: int = 0  # Proton: the launches its figures cover (every launch of the kernel)


@dataclass(frozen=True)
class ProfileResult(Jsonable):
    file: str
    device: str
    triton_version: str
    sampler: str  # "cupti" (kx) or "proton" (the oracle)
    kernels: tuple[KernelProfile, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.kernels) and not any(d.fatal for d in self.diagnostics)


def fold(pc_counts: dict[str, int]) -> dict[str, int]:
    """One PC's CUPTI reason counts -> samples, stalled and stalled per Proton reason."""
    out: dict[str, int] = {"samples": 0, "stalled": 0}
    for name, n in pc_counts.items():
        reason = proton_reason(name)
        if reason is None:
            continue
        out["samples"] += n
        if "not_issued" not in name:
            out["stalled"] += n
            out[reason] = out.get(reason, 0) + n
    return out


class _Profiler:
    def __init__(
        self,
        kernel: str | None,
        window_ms: float,
        use_proton: bool,
        calls: int = 0,
        config: str | None = None,
    ):
        self.kernel, self.window_ms, self.use_proton = kernel, window_ms, use_proton
        self.config = config  # an autotune config's label to sample instead of the chosen one
        self.calls = calls  # a fixed number of calls (kx and Proton compared on the same calls)
        self.profiles: list[KernelProfile] = []
        self.seen: set[str] = set()
        self.in_autotune = False
        self.sampler = None

    def wanted(self, name: str) -> bool:
        return name not in self.seen and (self.kernel is None or self.kernel == name)

    def on_jit_run(self, runs: TritonRuns, fn, *args, grid, warmup, **kwargs):
        kernel = runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)
        name = jit_name(fn)
        if warmup or self.in_autotune or kernel is None or not self.wanted(name):
            return kernel
        self.seen.add(name)

        def call():
            runs.jit(fn, *args, grid=grid, warmup=False, **kwargs)

        self._profile(name, None, call, kernel, fn, grid, args, kwargs)
        return kernel

    def on_autotune_run(self, runs: TritonRuns, tuner, *args, **kwargs):
        self.in_autotune = True
        try:
            result = runs.autotune(tuner, *args, **kwargs)
        finally:
            self.in_autotune = False
        base = base_jit(tuner)
        name = jit_name(base)
        if not self.wanted(name):
            return result
        self.seen.add(name)
        from kx_core.compile.artifacts.kernel_record import config_of

        chosen = getattr(tuner, "best_config", None) or tuner.configs[0]
        if self.config is not None:
            labels = [config_of(c, i).label for i, c in enumerate(tuner.configs)]
            if self.config not in labels:
                self.seen.discard(name)  # not this launch's configs: a later launch may have it
                return result
            chosen = tuner.configs[labels.index(self.config)]
        grid = kwargs.get("grid")
        meta = {**{k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}, **chosen.all_kwargs()}
        kernel = runs.jit(base, *args, grid=grid, warmup=True, **meta)

        def call():
            runs.jit(base, *args, grid=grid, warmup=False, **meta)

        label = config_of(chosen, tuner.configs.index(chosen)).label
        self._profile(name, label, call, kernel, base, grid, args, meta)
        return result

    def _profile(self, name, config, call, kernel, fn, grid, args, kwargs) -> None:
        import torch

        from kx_core.bench.run import _grid_of

        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor) and a.is_cuda]
        saved = [t.detach().clone() for t in tensors]
        try:
            call()  # warm
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(5):
                call()
            end.record()
            torch.cuda.synchronize()
            per_call = max(start.elapsed_time(end) / 5, 1e-3)
            calls = self.calls or max(1, min(100_000, int(self.window_ms / per_call)))
            per_chunk = max(1, int(CHUNK_MS / per_call))
            spent: list[float] = []

            def chunk(n):
                def run():
                    start.record()
                    for _ in range(n):
                        call()
                    end.record()
                    torch.cuda.synchronize()
                    spent.append(start.elapsed_time(end))

                return run

            chunks = [chunk(min(per_chunk, calls - i)) for i in range(0, calls, per_chunk)]
            if self.use_proton:  # Proton's session covers the whole run (see main)
                for run in chunks:
                    run()
                by_pc, totals = {}, {}
            else:
                by_pc, totals = self._cupti_window(name, chunks)
            window_ms = sum(spent)
        finally:
            with torch.no_grad():
                for t, s in zip(tensors, saved):
                    t.data.copy_(s)
        self.profiles.append(
            KernelProfile(
                kernel=name,
                config=config,
                grid=_grid_of(fn, grid, args, kwargs),
                calls=calls,
                window_ms=window_ms,
                samples=totals.get("samples", 0),
                stalled=totals.get("stalled", 0),
                reasons={k: v for k, v in totals.items() if k not in ("samples", "stalled")},
                by_pc=by_pc,
                stages=_stages_of(kernel),
                source_file=os.path.abspath(fn.fn.__code__.co_filename) if hasattr(fn, "fn") else "",
            )
        )

    def _cupti_window(self, name: str, chunks) -> tuple[dict, dict]:
        import torch

        from kx_core.bench.pcsampling import Sampler

        if self.sampler is None:
            self.sampler = Sampler().__enter__()
        got = self.sampler.window(chunks, torch.cuda.synchronize)
        by_pc: dict[str, dict[str, int]] = {}
        totals: dict[str, int] = {}
        for (function, offset), counts in got.by_pc.items():
            if function != name:  # another kernel in the window (none is launched there)
                continue
            folded = fold(counts)
            by_pc[f"0x{offset:04x}"] = folded
            for k, v in folded.items():
                totals[k] = totals.get(k, 0) + v
        return by_pc, totals


# Example frame names: "add_kernel", "/k/vector_add.py:18@add_kernel"
_FRAME_LINE_RE = re.compile(r"([^@\s]+):(\d+)")


def proton_figures(tree, kernel: str) -> tuple[dict, dict, int]:
    """From a Proton hatchet tree: per 'file:line' frame under the kernel, its metrics;
    the kernel's totals (samples, stalled, per reason); and its launch count."""
    by_line: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    launches = 0

    def metrics(node) -> dict[str, int]:
        m = node.get("metrics", {})
        out = {"samples": int(m.get("num_samples", 0)), "stalled": int(m.get("num_stalled_samples", 0))}
        out |= {r: int(m[r]) for r in PROTON_REASONS if m.get(r)}
        return out

    def walk(node, inside: bool) -> None:
        nonlocal launches
        name = node.get("frame", {}).get("name", "")
        if name == kernel and not inside:
            # Proton 3.6 keeps the samples on the kernel's line frames, not on the kernel
            own = metrics(node) if node.get("metrics", {}).get("num_samples") else {}
            for k, v in own.items():
                totals[k] = totals.get(k, 0) + v
            launches += int(node.get("metrics", {}).get("count", 0))
        elif inside and (m := _FRAME_LINE_RE.search(name)):
            key = f"{m.group(1)}:{m.group(2)}"
            here = metrics(node)
            prev = by_line.setdefault(key, {})
            for k, v in here.items():
                prev[k] = prev.get(k, 0) + v
            return  # a line's frame includes its children
        for child in node.get("children", ()):
            walk(child, inside or name == kernel)

    for root in tree if isinstance(tree, list) else [tree]:
        walk(root, False)
    if not totals:  # the kernel's totals are its lines' sums
        for m in by_line.values():
            for k, v in m.items():
                totals[k] = totals.get(k, 0) + v
    return by_line, totals, launches


def _with_proton(profiles: list[KernelProfile], tree) -> list[KernelProfile]:
    """Each kernel's figures as Proton's tree has them (the oracle run)."""
    from dataclasses import replace

    out = []
    for p in profiles:
        by_line, totals, launches = proton_figures(tree, p.kernel)
        out.append(
            replace(
                p,
                samples=totals.get("samples", 0),
                stalled=totals.get("stalled", 0),
                reasons={k: v for k, v in totals.items() if k not in ("samples", "stalled")},
                by_line=by_line,
                launches=launches,
            )
        )
    return out


def _stages_of(kernel) -> dict[str, str]:
    """The stages of the compiled kernel that ran, with SASS from its cubin."""
    asm = getattr(kernel, "asm", {}) or {}
    stages = {s: asm[s] for s in STAGES if isinstance(asm.get(s), str)}
    cubin = asm.get("cubin")
    if isinstance(cubin, bytes):
        from kx_core.compile.artifacts.sass import SassUnavailable, disassemble

        try:
            stages["sass"] = disassemble(cubin)
        except SassUnavailable as e:
            stages["sass_error"] = str(e)
    return stages


def main(argv: list[str] | None = None) -> int:
    from kx_core.bench.requests import ProfileRequest, read_request

    req, path, out = read_request(ProfileRequest, argv, "kx-profile-worker")
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    import torch
    import triton

    from kx_core.compile.capturing.main_module import run_as_main

    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context CUPTI samples
    profiler = _Profiler(req.kernel, req.window_ms, req.proton, req.calls, req.config)
    launch_hooks.install(profiler.on_jit_run, profiler.on_autotune_run)
    if req.proton:
        # from the start: Proton maps PCs to lines only for modules loaded in its session
        import triton.profiler as proton

        hatchet = os.path.join(os.path.dirname(os.path.abspath(out)), "proton-run")
        proton.start(hatchet, backend="cupti", mode="pcsampling")
    diagnostics = list(run_as_main(path, diag.runtime_diagnostic)[1])
    torch.cuda.synchronize()
    if profiler.sampler is not None:
        profiler.sampler.__exit__(None, None, None)
    if req.proton:
        proton.finalize()
        with open(hatchet + ".hatchet", encoding="utf-8") as f:
            tree = json.load(f)
        if keep := os.environ.get("KX_KEEP_HATCHET"):  # a copy of Proton's raw tree (the GPU script)
            with open(keep, "w", encoding="utf-8") as f:
                json.dump(tree, f)
        profiler.profiles = _with_proton(profiler.profiles, tree)
    if not profiler.profiles and not diagnostics:
        diagnostics.append(Diagnostic("runtime", "the file launched no Triton kernel to profile", path))
    result = ProfileResult(
        file=path,
        device=torch.cuda.get_device_name(),
        triton_version=triton.__version__,
        sampler="proton" if req.proton else "cupti",
        kernels=tuple(profiler.profiles),
        diagnostics=tuple(diagnostics),
        settings={"window_ms": req.window_ms, "sampling_period_log2": 10},
    )
    workers.write_and_exit(out, result)


if __name__ == "__main__":
    raise SystemExit(main())
