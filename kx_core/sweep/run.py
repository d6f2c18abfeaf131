"""The whole sweep: every shape compiled (kx's capture of the file's entry, every config
compiled on CPU workers), pruned and ranked by the model; the chosen configs of every
shape measured on the GPU pool; optionally Triton's own autotuner over the same configs as
the reference (its pick and wall time, in a worker with an empty Triton cache). Progress
goes to a callback; a stop flag ends it between steps with what was done so far."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kx_core.model.gpu import GPU
from kx_core.sweep.dispatch import Done, Pool, local_gpu_count
from kx_core.sweep.driver import script
from kx_core.sweep.rank import figures, to_measure
from kx_core.sweep.result import CaseResult, SweepResult, judged
from kx_core.sweep.space import ConfigSpec, shape_label

Progress = Callable[[str, int, int, str], None]  # (step, done, of, what)


@dataclass(frozen=True)
class SweepRequest:
    file: str
    kernel: str
    shapes: tuple[dict[str, int], ...]
    space: tuple[ConfigSpec, ...] | None = None  # None: the kernel's own autotune configs
    entry: str | None = None
    target: str = "local"
    gpu: GPU | None = None  # the GPU the model places configs on; None: the target's
    measure: str = "top-k"  # 'top-k' | 'all' | 'none'
    top_k: int = 4
    gpus: int | None = None  # measuring workers (GPUs 0..n-1); None: every local GPU
    simulate: bool = False  # simulated workers (the model's figures): no GPU needed
    jobs: int | None = None  # configs compiled at once
    versus_autotune: bool = False
    timeout_s: float = 600.0
    env: dict[str, str] = field(default_factory=dict)  # extra environment of the workers


def compile_shape(req: SweepRequest, shape: dict[str, int], folder: str) -> CaseResult:
    """One shape's compile side: its driver captured, its configs' figures ranked."""
    from kx_core.compile import CompileRequest, compile_file

    path = os.path.join(folder, f"shape_{shape_label(shape).replace(',', '_').replace('=', '')}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script(req.file, req.kernel, req.entry, shape, list(req.space) if req.space else None))
    start = time.perf_counter()
    result = compile_file(CompileRequest(path, target=req.target, jobs=req.jobs, timeout_s=req.timeout_s))
    elapsed = time.perf_counter() - start
    figs = figures(result, req.kernel, req.gpu)
    fatal = [d for d in result.diagnostics if d.fatal]
    target = next((str(k.target) for k in result.kernels), req.target)
    model_gpu = req.gpu.name if req.gpu else "-"
    if figs and req.gpu is None:
        from kx_core.model.kernel import gpu_for

        model_gpu = gpu_for(next(k for k in result.kernels if k.name == req.kernel)).name
    # what the driver's run raised (a wrong kernel or entry name, the user's own error)
    raised = [d for d in result.diagnostics if d.kind == "runtime"]
    error = None
    if not figs:
        first = (raised or fatal or [None])[0]
        error = (first.message if first else f"the entry launched no autotuned {req.kernel}").replace(
            path, "(driver)"
        )
    notes = [f"the run raised: {d.message}" for d in raised] if figs else []
    if getattr(result, "output_caveat", None):
        notes.append(str(result.output_caveat))
    notes = tuple(notes)
    return CaseResult(req.kernel, dict(shape), target, model_gpu, tuple(figs), compile_s=elapsed,
                      error=error, notes=notes)  # fmt: skip


def sweep(
    req: SweepRequest, progress: Progress | None = None, stop: threading.Event | None = None
) -> SweepResult:
    progress = progress or (lambda *a: None)
    stop = stop or threading.Event()
    start = time.perf_counter()
    notes: list[str] = []
    cases: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="kx-sweep-drivers-") as folder:
        for i, shape in enumerate(req.shapes):
            if stop.is_set():
                break
            progress("compile", i, len(req.shapes), shape_label(shape))
            cases.append(compile_shape(req, shape, folder))
        progress("compile", len(cases), len(req.shapes), "")
    measured, keys, shares = "none", (), {}
    n = (
        0
        if req.measure == "none"
        else (req.gpus if req.gpus is not None else (4 if req.simulate else local_gpu_count()))
    )
    if req.measure != "none" and n == 0:
        notes.append("no local GPU: the model's ranking only, nothing measured")
    wanted = {} if n == 0 or stop.is_set() else _jobs(req, cases)
    if wanted:
        cases, keys, shares = _measure(req, n, cases, wanted, progress, stop)
        measured = "simulated" if req.simulate else "gpu"
    wall = time.perf_counter() - start  # the sweep's own: the reference below is not part of it
    total_ref = None
    if req.versus_autotune and n and not stop.is_set() and not req.simulate:
        cases, total_ref = _reference(req, cases, progress, stop)
    stopped = stop.is_set()
    if stopped:
        notes.append("stopped: the shapes and configs not reached are missing")
    return SweepResult(
        req.file, req.kernel, tuple(cases), wall, measured, keys, shares, total_ref,
        stopped, tuple(notes),
    )  # fmt: skip


def _jobs(req: SweepRequest, cases: list[CaseResult]) -> dict[int, dict]:
    out = {}
    for i, c in enumerate(cases):
        if c.error:
            continue
        chosen = to_measure(list(c.configs), None if req.measure == "all" else req.top_k)
        if chosen:
            out[i] = {
                "file": os.path.abspath(req.file),
                "kernel": req.kernel,
                "entry": req.entry,
                "shape": c.shape,
                "configs": [f.spec.to_json() for f in chosen],
                "figures": [{"label": f.label, "predicted_us": f.predicted_us} for f in chosen],
            }
    return out


def _measure(req, n, cases, wanted, progress, stop):
    order = list(wanted)
    results: dict[int, Done] = {}

    def on_done(d: Done) -> None:
        results[order[d.job_id]] = d
        progress("measure", len(results), len(order), shape_label(cases[order[d.job_id]].shape))

    progress("measure", 0, len(order), "starting the measuring workers")
    with Pool(n, simulate=req.simulate, env_extra=req.env) as pool:
        watcher = threading.Thread(target=lambda: (stop.wait(), pool.stop.set()), daemon=True)
        watcher.start()
        pool.run([wanted[i] for i in order], on_done)
        keys = tuple(w.key for w in pool.workers)
    shares: dict[str, int] = {}
    out = list(cases)
    for i, d in results.items():
        if d.error:
            out[i] = replace(out[i], error=d.error, measured_on=d.device, gpu_key=d.key)
            continue
        r = d.result
        unknown = set(r["times_us"]) - {f.label for f in out[i].configs}
        if unknown:  # never judge a case on times kx cannot put on its configs
            out[i] = replace(
                out[i], error=f"measured configs kx did not compile: {', '.join(sorted(unknown))}"
            )
            continue
        shares[d.key] = shares.get(d.key, 0) + len(r["times_us"])
        notes = [f"{label} failed on the GPU: {why}" for label, why in r.get("failed", {}).items()]
        if r.get("remeasured"):
            notes.append(f"timed again (round medians spread over 5%): {', '.join(r['remeasured'])}")
        case = replace(out[i], measured_on=d.device, gpu_key=d.key, simulated=d.simulated,
                       measure_s=r.get("wall_s", 0.0), notes=out[i].notes + tuple(notes))  # fmt: skip
        out[i] = judged(case, r["times_us"], r.get("rounds_us"))
    return out, keys, shares


def _reference(req, cases, progress, stop):
    """triton.autotune over each shape's configs (every one kx did not prune: the space
    Triton's autotuner would be given), compiles included."""
    jobs = {}
    for i, c in enumerate(cases):
        timed = [f for f in c.configs if f.pruned is None]
        if timed and c.winner is not None:
            jobs[i] = {"file": os.path.abspath(req.file), "kernel": req.kernel, "entry": req.entry,
                       "shape": c.shape, "configs": [f.spec.to_json() for f in timed],
                       "triton_autotune": True, "fresh_cache": True}  # fmt: skip
    order = list(jobs)
    out, total = list(cases), 0.0
    answers: dict[int, Done] = {}

    def on_done(d: Done) -> None:
        answers[order[d.job_id]] = d
        progress("triton.autotune", len(answers), len(order), shape_label(cases[order[d.job_id]].shape))

    with Pool(1, env_extra=req.env) as pool:
        watcher = threading.Thread(target=lambda: (stop.wait(), pool.stop.set()), daemon=True)
        watcher.start()
        pool.run([jobs[i] for i in order], on_done)
    for i, d in answers.items():
        if d.result:
            total += d.result["wall_s"]
            out[i] = replace(
                out[i], triton_pick=d.result["triton_pick"], triton_autotune_s=d.result["wall_s"]
            )
        else:
            out[i] = replace(out[i], notes=out[i].notes + (f"triton.autotune reference failed: {d.error}",))
    return out, total
