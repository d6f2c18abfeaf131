"""One shape's compile side: its driver written and captured by kx (every config
compiled, no GPU needed), its configs' figures ranked (kx_core.sweep.rank). A module of its
own: the local sweep and the Ray compile tasks (kx_core.sweep.ray_pool) both call it."""

from __future__ import annotations

import os
import time

from kx_core.sweep.binaries import Binary, collect
from kx_core.sweep.driver import script
from kx_core.sweep.rank import figures
from kx_core.sweep.request import SweepRequest
from kx_core.sweep.result import CaseResult


def compile_shape(
    req: SweepRequest, shape: dict[str, int], folder: str
) -> tuple[CaseResult, dict[str, Binary]]:
    """One shape's compile side: its driver captured, its configs' figures ranked, and
    each compiled config's binary as Triton's cache holds it (kx_core.sweep.binaries)."""
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.jobs.cache import triton_cache_for

    # one driver path for every shape of the sweep: Triton's cache is kept per driver file
    # (compile/jobs/cache.py), and a config whose specialization is the same at the next
    # shape (the usual case: sizes that are all multiples of 16) is then a cache hit, not
    # a second compile. The kernels' locations name the user's file, never the driver.
    call, refused = req.call_for(shape)
    if refused:  # the plan found no call giving this shape (kx_core.sweep.calls): said, not compiled
        return CaseResult(req.kernel, dict(shape), req.target, "-", (), error=refused), {}
    path = os.path.join(folder, "kx_sweep_driver.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script(req.file, req.kernel, req.entry, shape, list(req.space) if req.space else None, call))
    start = time.perf_counter()
    result = compile_file(
        CompileRequest(path, target=req.target, jobs=req.jobs, timeout_s=req.timeout_s, python=req.python)
    )
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
    odd = [k for k, v in shape.items() if v % 16]
    if odd and figs:
        # measured on the H200 (3000^3 fp16 GEMM): scalar loads at 255 registers, configs
        # 6x apart in ways registers, occupancy and traffic do not show
        notes.append(
            f"{', '.join(odd)} not a multiple of 16: Triton cannot assume aligned rows, so loads are"
            " narrow; the model ranks such shapes least well: measure them all (--measure all)"
        )
    notes = tuple(notes)
    case = CaseResult(req.kernel, dict(shape), target, model_gpu, tuple(figs), compile_s=elapsed,
                      error=error, notes=notes, ranking=_ranking(result, req.kernel, model_gpu) if figs else "",
                      call=call)  # fmt: skip
    try:  # the folder the capture's worker compiled into (runner._worker_env)
        binaries = collect(result, req.kernel, triton_cache_for(path, req.python)) if figs else {}
    except OSError:
        binaries = {}
    return case, binaries


def _ranking(result, kernel: str, model_gpu: str) -> str:
    """What ranked this shape's configs on the GPU the model placed them on: its learned
    correction or the analytic model."""
    from kx_core.model.learned_rank import kind_of, ranking_note

    k = next((k for k in result.kernels if k.name == kernel and k.status == "compiled"), None)
    return ranking_note(model_gpu, kind_of(k)) if k else ""
