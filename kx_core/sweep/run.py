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
from dataclasses import replace

from kx_core.sweep.calls import fits_an_entry, plan
from kx_core.sweep.compile_side import compile_shape
from kx_core.sweep.dispatch import DispatchError, Done, Pool, local_gpu_count
from kx_core.sweep.rank import to_measure
from kx_core.sweep.request import SweepRequest
from kx_core.sweep.result import CaseResult, SweepResult, judged
from kx_core.sweep.space import SpaceError, shape_label

Progress = Callable[[str, int, int, str], None]  # (step, done, of, what)


def sweep(
    req: SweepRequest, progress: Progress | None = None, stop: threading.Event | None = None
) -> SweepResult:
    """Compile shape after shape; with `req.overlap`, each shape is measured as soon as it
    is compiled (the pool starts while the first shape compiles), so the GPU works while
    the CPU compiles the next shape."""
    progress = progress or (lambda *a: None)
    stop = stop or threading.Event()
    start = time.perf_counter()
    notes: list[str] = []
    req, planned_notes = _planned(req, progress)
    notes += planned_notes
    if req.ray is not None:  # in this thread: Ray's signal handlers want the main one
        from kx_core.sweep.ray_pool import init

        init(req.ray)
    n = (
        0
        if req.measure == "none"
        else (req.gpus if req.gpus is not None else (4 if req.simulate else local_gpu_count()))
    )
    if req.ray is not None and req.gpus is None and not req.simulate:
        n = _ray_gpus(req.ray)
    if req.measure != "none" and n == 0:
        notes.append("no local GPU: the model's ranking only, nothing measured")
    measuring = _Measuring(req, n, progress, stop) if n else None
    by_index: dict[int, CaseResult] = {}
    waiting: list[tuple[int, dict]] = []  # jobs held back until every shape is compiled (no overlap)
    try:
        with tempfile.TemporaryDirectory(prefix="kx-sweep-drivers-") as folder:
            for i, case, binaries in _compiled(req, folder, progress, stop):
                by_index[i] = case
                job = _job(req, case, binaries) if measuring else None
                if job is not None:
                    waiting.append((i, job))
                    if req.overlap:
                        measuring.submit(*waiting.pop(), by_index)
            progress("compile", len(by_index), len(req.shapes), "")
            for i, job in waiting:
                measuring.submit(i, job, by_index)
        results, keys = measuring.finish() if measuring else ({}, ())
    finally:
        if measuring:
            measuring.close()
    cases = [by_index[i] for i in sorted(by_index)]
    results = {sorted(by_index).index(i): d for i, d in results.items()}
    cases, shares = _judged(cases, results)
    # what the model picked, for the shapes nothing measured
    cases = [judged(c, {}) if i not in results and c.error is None else c for i, c in enumerate(cases)]
    measured = "none" if not results else "simulated" if req.simulate else "gpu"
    wall = time.perf_counter() - start  # the sweep's own: the reference below is not part of it
    total_ref = None
    if req.versus_autotune and n and not stop.is_set() and not req.simulate:
        cases, total_ref = _reference(req, cases, progress, stop)
    stopped = stop.is_set()
    if stopped:
        notes.append("stopped: the shapes and configs not reached are missing")
    notes += sorted({c.ranking for c in cases if c.ranking})
    return SweepResult(
        req.file, req.kernel, tuple(cases), wall, measured, keys, shares, total_ref,
        stopped, tuple(notes),
    )  # fmt: skip


def _planned(req: SweepRequest, progress: Progress) -> tuple[SweepRequest, list[str]]:
    """The request with each shape's call (kx_core.sweep.calls): planned from the file's
    own run where a shape fits no entry function, or where no shape was given (the file's
    own launches of the kernel are the shapes then)."""
    shapes = list(req.shapes)
    todo = [i for i, s in enumerate(shapes) if not fits_an_entry(req.file, s, req.entry)]
    if shapes and not todo:
        return req, []
    progress("plan", 0, 1, "the file's own run: its calls of the kernel")
    planned, notes = plan(
        req.file, req.kernel, [shapes[i] for i in todo], req.target, req.timeout_s, req.python
    )
    calls: list[dict | None] = [None] * len(shapes)
    errors: list[str | None] = [None] * len(shapes)
    if not shapes:  # one shape per distinct launch
        shapes = [p.shape for p in planned]
        calls = [p.call.to_json() if p.call else None for p in planned]
        errors = [p.error or (None if p.call else "no call") for p in planned]
        if not shapes:
            raise SpaceError(
                f"the file's run launched no {req.kernel} from a function kx can call: give --shape"
            )
    else:
        for i, p in zip(todo, planned):
            shapes[i] = p.shape
            calls[i] = p.call.to_json() if p.call else None
            errors[i] = p.error or (None if p.call else "no call")
    progress("plan", 1, 1, "")
    for p in planned:
        if p.call is not None:
            notes.append(f"{shape_label(p.shape)}: {p.call.label()}")
    return replace(req, shapes=tuple(shapes), calls=tuple(calls), call_errors=tuple(errors)), notes


def _compiled(req: SweepRequest, folder: str, progress: Progress, stop: threading.Event):
    """(shape index, its compile side, its configs' binaries as the measuring workers
    receive them) as each is done: one after another here, or all at once as Ray CPU
    tasks (in the order they finish; their binaries in Ray's object store)."""
    if req.ray is not None:
        from kx_core.sweep.ray_pool import compile_remote

        progress("compile", 0, len(req.shapes), "on the Ray cluster")
        for done, (i, case, shipped) in enumerate(compile_remote(req, list(req.shapes)), 1):
            progress("compile", done, len(req.shapes), shape_label(case.shape))
            yield i, case, shipped
            if stop.is_set():
                return
        return
    server = _warm_server(req)
    try:
        for i, shape in enumerate(req.shapes):
            if stop.is_set():
                return
            progress("compile", i, len(req.shapes), shape_label(shape))
            case, binaries = compile_shape(req, shape, folder)
            # read where they are: the measuring workers are on this machine
            yield i, case, {label: b.to_json() for label, b in binaries.items()}
    finally:
        if server is not None:
            from kx_core.compile.jobs import warm

            warm.stop(req.python)
            try:
                server.wait(timeout=10)
            except Exception:  # noqa: BLE001 - it dies with this process anyway (lifeline)
                server.kill()


def _warm_server(req: SweepRequest):
    """A warm worker for the sweep's shapes (each a compile of its own: a cold worker
    pays torch's and Triton's imports every time, 3 s on two cores), started without
    waiting: the first shape compiles cold meanwhile. None when one already answers (the
    app's, `kx daemon start`'s) or for one shape."""
    if len(req.shapes) < 2:
        return None
    from kx_core.compile.jobs import warm

    return warm.launch(req.python, detach=False, wait_s=0)


def _ray_gpus(address: str) -> int:
    from kx_core.sweep.ray_pool import _ray, init

    init(address)
    return int(_ray().cluster_resources().get("GPU", 0))


def _job(req: SweepRequest, c: CaseResult, binaries: dict[str, dict]) -> dict | None:
    if c.error:
        return None
    chosen = to_measure(list(c.configs), None if req.measure == "all" else req.top_k)
    if not chosen:
        return None
    return {
        "file": os.path.abspath(req.file),
        "kernel": req.kernel,
        "entry": req.entry,
        "shape": c.shape,
        "call": c.call,
        "configs": [f.spec.to_json() for f in chosen],
        "figures": [{"label": f.label, "predicted_us": f.predicted_us} for f in chosen],
        # what the compile side built, so the worker does not build it again
        # (kx_core.sweep.binaries; KX_SWEEP_SHIP=0: the worker compiles every config itself)
        "binaries": [binaries[f.label] for f in chosen if f.label in binaries] if _ship() else [],
    }


def _ship() -> bool:
    return os.environ.get("KX_SWEEP_SHIP", "1") != "0"


class _Measuring:
    """The pool, opened on a thread while the first shape compiles, fed as shapes come."""

    def __init__(self, req: SweepRequest, n: int, progress: Progress, stop: threading.Event) -> None:
        self.progress, self.stop = progress, stop
        self.results: dict[int, Done] = {}
        self.submitted: list[int] = []
        self.pool: Pool | None = None
        self.error: DispatchError | None = None
        self.started = False

        self.opened = threading.Event()
        self.closing = threading.Event()

        def open_pool() -> None:
            try:
                self.pool = Pool(n, simulate=req.simulate, env_extra=req.env, ray=req.ray)
            except DispatchError as e:
                self.error = e
            self.opened.set()
            # a worker dies with the thread that started it (its lifeline is the parent
            # thread's death signal): this thread lives until the pool is closed
            self.closing.wait()

        self.opener = threading.Thread(target=open_pool, daemon=True)
        self.opener.start()

    def _ready(self, cases: list[CaseResult]) -> Pool:
        if not self.started:
            self.opened.wait()
            if self.error:
                raise self.error

            def on_done(d: Done) -> None:
                i = self.submitted[d.job_id]
                self.results[i] = d
                self.progress("measure", len(self.results), len(self.submitted), shape_label(cases[i].shape))

            self.pool.start(on_done)
            threading.Thread(target=lambda: (self.stop.wait(), self.pool.stop.set()), daemon=True).start()
            self.started = True
        return self.pool

    def submit(self, i: int, job: dict, cases: list[CaseResult]) -> None:
        pool = self._ready(cases)
        self.submitted.append(i)
        pool.submit(len(self.submitted) - 1, job)

    def finish(self) -> tuple[dict[int, Done], tuple[str, ...]]:
        if not self.started:
            return {}, ()
        self.pool.join()
        return self.results, tuple(w.key for w in self.pool.workers)

    def close(self) -> None:
        self.opened.wait()
        if self.pool is not None:
            self.pool.close()
        self.closing.set()
        self.opener.join()


def _judged(cases: list[CaseResult], results: dict[int, Done]) -> tuple[list[CaseResult], dict[str, int]]:
    """Each case with what its worker measured (or the worker's error)."""
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
        notes += [f"not shipped: {why}" for why in r.get("shipping", [])]
        if r.get("remeasured"):
            notes.append(f"timed again (round medians spread over 5%): {', '.join(r['remeasured'])}")
        case = replace(out[i], measured_on=d.device, gpu_key=d.key, worker=d.worker, simulated=d.simulated,
                       measure_s=r.get("wall_s", 0.0), notes=out[i].notes + tuple(notes),
                       shipped=r.get("shipped"), compiled_again=r.get("compiled_again"))  # fmt: skip
        out[i] = judged(case, r["times_us"], r.get("rounds_us"))
    return out, shares


def _reference(req, cases, progress, stop):
    """triton.autotune over each shape's configs (every one kx did not prune: the space
    Triton's autotuner would be given), compiles included."""
    jobs = {}
    for i, c in enumerate(cases):
        timed = [f for f in c.configs if f.pruned is None]
        if timed and c.winner is not None:
            jobs[i] = {"file": os.path.abspath(req.file), "kernel": req.kernel, "entry": req.entry,
                       "shape": c.shape, "call": c.call, "configs": [f.spec.to_json() for f in timed],
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
