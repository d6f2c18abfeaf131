"""A KernelBench-style evaluator (after ../shared/seeds/kernelbench_harness.txt).

A task is a reference plus an input maker and parameters (kx_core.bench.kb_tasks); a
candidate is source defining `forward(x, params, alloc)` and optionally `init(params)`.
Two evaluators:

- **naive** (KernelBench's first one): compile, one standard-normal input with the
  default parameters, compare, then time the candidate and the reference.
- **hardened**: a static check first (rejects sources that reach for the reference,
  the evaluator, the clock or the filesystem, or keep state between calls); then every
  one of five input distributions with the default parameters and two random draws,
  several inputs each; timing alternates reference and candidate on fresh inputs and
  takes the medians.

Statuses: compile_error, runtime_error, wrong, rejected, correct. Outputs are compared
with atol = rtol = 1e-2 (KernelBench's), NaNs and infinities must match. fast_p is the
fraction of tasks whose candidate is correct and more than p times faster than the
reference; fast_p@k the same when k candidates are drawn per task and the best counts.
"""

from __future__ import annotations

import ast
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kx_core.base.data import data_path
from kx_core.base.jsonable import Jsonable
from kx_core.bench.kb_tasks import DISTS, TASK, TASKS, Task

ATOL = RTOL = 1e-2
LIBRARY_DIR = data_path("kernelbench")


@dataclass(frozen=True)
class Candidate:
    task: str
    name: str
    intent: str
    src: str
    path: str = ""


@dataclass(frozen=True)
class EvalResult(Jsonable):
    task: str
    candidate: str
    mode: str
    status: str  # compile_error | runtime_error | wrong | rejected | correct
    msg: str = ""
    t_ref: float | None = None  # median seconds
    t_cand: float | None = None
    per_dist: dict[str, str] = field(default_factory=dict)  # distribution -> "5/5"

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    @property
    def speedup(self) -> float:
        return self.t_ref / self.t_cand if self.correct and self.t_cand else 0.0


def library(root: Path = LIBRARY_DIR) -> list[Candidate]:
    """Every candidate under kx_core/data/kernelbench/<task>/<name>.py, tasks in TASKS order."""
    out = []
    for task in TASKS:
        for path in sorted((root / task.name).glob("*.py")):
            src = path.read_text(encoding="utf-8")
            intent = ""
            try:
                doc = ast.get_docstring(ast.parse(src))
                intent = (doc or "").strip().splitlines()[0] if doc else ""
            except SyntaxError:
                intent = src.strip().splitlines()[0].strip('"# ') if src.strip() else ""
            out.append(Candidate(task.name, path.stem, intent, src, str(path)))
    return out


def library_for(task: str) -> list[Candidate]:
    return [c for c in library() if c.task == task]


# ------------------------------------------------------------------ static check

_BANNED_MODULES = {
    "os",
    "sys",
    "time",
    "inspect",
    "gc",
    "importlib",
    "builtins",
    "subprocess",
    "pickle",
    "ctypes",
}
_BANNED_NAMES = {
    "globals",
    "locals",
    "vars",
    "eval",
    "exec",
    "open",
    "__import__",
    "compile",
    "getattr",
    "setattr",
}
_BANNED_WORDS = ("reference", "kx_core", "evaluate", "kb_tasks")


ALLOWED_IMPORTS = {"numpy", "math", "torch", "triton"}
GPU_BACKENDS = ("triton",)


def _backend(src: str) -> str:
    """A candidate says `BACKEND = "torch"` to get torch tensors; numpy otherwise."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return "numpy"
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "BACKEND" for t in stmt.targets)
            and isinstance(stmt.value, ast.Constant)
        ):
            return str(stmt.value.value)
    return "numpy"


def static_check(src: str) -> str | None:
    """Why a source is rejected before it runs, or None. Catches the usual ways to game
    an evaluator: importing anything but numpy/math, introspection, reaching for the
    reference or the evaluator, and state kept between calls (globals, attributes set
    on functions, mutable defaults) that lets a candidate return a cached answer."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None  # not the static check's business: compile reports it
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for n in names:
                if n.split(".")[0] not in ALLOWED_IMPORTS:
                    return f"imports {n} (only numpy, math and torch are allowed)"
        elif isinstance(node, ast.Name) and node.id in _BANNED_NAMES:
            return f"uses {node.id}()"
        elif isinstance(node, ast.Name) and node.id in _BANNED_MODULES:
            return f"uses the {node.id} module"
        elif isinstance(node, ast.Global | ast.Nonlocal):
            return "keeps state between calls (global/nonlocal)"
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            return "keeps state between calls (sets an attribute)"
        elif isinstance(node, ast.FunctionDef):
            for default in node.args.defaults + node.args.kw_defaults:
                if isinstance(default, ast.Dict | ast.List | ast.Set | ast.Call):
                    return f"keeps state between calls (mutable default in {node.name})"
        elif isinstance(node, ast.Name | ast.Attribute):  # names, not prose in docstrings
            text = node.id if isinstance(node, ast.Name) else node.attr
            if any(w in text for w in _BANNED_WORDS):
                return f"reaches for the evaluator or the reference ({text!r})"
    for stmt in tree.body:  # module-level containers are caches waiting to happen
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict | ast.List | ast.Set | ast.Call):
            if not (isinstance(stmt.value, ast.Call) and _is_numpy_constant(stmt.value)):
                return "keeps state between calls (a module-level container)"
    return None


def _is_numpy_constant(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("np", "math")


# ------------------------------------------------------------------ running


def load_candidate(src: str, namespace: dict | None = None):
    """(forward, init or None, error message or None). A torch candidate's forward and
    init are wrapped: numpy in, torch tensors (CPU) to the candidate, numpy out."""
    ns = {"np": np, "math": math, "__name__": "candidate"}
    ns.update(namespace or {})
    try:
        if needs_gpu(src):
            ns = _import_from_file(src)  # Triton reads a @jit function's source from its file
        else:
            exec(compile(src, "<candidate>", "exec"), ns)
    except SyntaxError as e:
        return None, None, f"SyntaxError: {e.msg} (line {e.lineno})"
    except Exception as e:  # noqa: BLE001 - anything at import time is a compile error
        return None, None, f"{type(e).__name__}: {e}"
    forward = ns.get("forward")
    if not callable(forward):
        return None, None, "defines no forward(x, params, alloc)"
    init = ns.get("init")
    if ns.get("BACKEND") == "torch":
        forward, init = _torch_wrapped(forward), _torch_wrapped(init) if init else None
    elif ns.get("BACKEND") in GPU_BACKENDS:
        raw = forward
        forward, init = _torch_wrapped(forward, "cuda"), _torch_wrapped(init, "cuda") if init else None
        forward.raw = raw  # the kernel call alone, on device tensors: what is timed
    return forward, init, None


def _to_torch(v, device="cpu"):
    import torch

    if isinstance(v, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(v)).to(device)
    if isinstance(v, dict):
        return {k: _to_torch(x, device) for k, x in v.items()}
    return v


def _to_numpy(v):
    import torch

    if isinstance(v, torch.Tensor):
        return v.detach().cpu().numpy()
    if isinstance(v, dict):
        return {k: _to_numpy(x) for k, x in v.items()}
    return v


def _torch_wrapped(fn, device="cpu"):
    def call(*args):
        return _to_numpy(fn(*(_to_torch(a, device) for a in args)))

    return call


_CANDIDATE_DIR: list = []


def _import_from_file(src: str) -> dict:
    """Run a candidate as a module from a file of its own (kept for the process: Triton
    may read the source again when it compiles)."""
    import hashlib
    import importlib.util
    import tempfile

    if not _CANDIDATE_DIR:
        _CANDIDATE_DIR.append(tempfile.TemporaryDirectory(prefix="kx-candidates-"))
    name = "kx_candidate_" + hashlib.sha1(src.encode()).hexdigest()[:12]
    path = Path(_CANDIDATE_DIR[0].name) / f"{name}.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def needs_gpu(src: str) -> bool:
    return _backend(src) in GPU_BACKENDS


def _time_pair_gpu(task: Task, raw, params, rng, dist: str, pairs: int) -> tuple[float, float]:
    """Median seconds of the torch reference and the candidate on the GPU, alternating,
    on fresh device inputs, synchronised around each call."""
    import torch

    t_ref, t_cand = [], []
    p = _to_torch(params, "cuda")

    def alloc(shape, dtype=None):
        return torch.empty(shape, device="cuda", dtype=torch.float32)

    for _ in range(pairs):
        for is_ref, out in ((True, t_ref), (False, t_cand)):
            x = _to_torch(task.make_inputs(rng, dist), "cuda")
            torch.cuda.synchronize()
            start = time.perf_counter()
            task.torch_reference(x, p) if is_ref else raw(x, p, alloc)
            torch.cuda.synchronize()
            out.append(time.perf_counter() - start)
    return statistics.median(t_ref), statistics.median(t_cand)


def _alloc(shape, dtype=np.float32):
    return np.empty(shape, dtype)


def check_output(out, ref, strict: bool = True) -> tuple[bool, str]:
    """Close within atol = rtol = 1e-2, same shape; NaN/inf where the reference has them."""
    try:
        out = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError) as e:
        return False, f"output is not an array: {e}"
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return False, f"shape {out.shape}, expected {ref.shape}"
    with np.errstate(invalid="ignore"):
        ok = np.isclose(out, ref, atol=ATOL, rtol=RTOL, equal_nan=True)
    if ok.all():
        return True, ""
    bad = int((~ok).sum())
    idx = tuple(int(i) for i in np.argwhere(~ok)[0])
    return False, f"{bad} of {ok.size} elements differ, first at {idx}: {out[idx]:.6g} vs {ref[idx]:.6g}"


def _time_pair(task: Task, forward, params_c, params, rng, dist: str, pairs: int) -> tuple[float, float]:
    """Median seconds of reference and candidate, alternating, on fresh inputs."""
    t_ref, t_cand = [], []
    for _ in range(pairs):
        x = task.make_inputs(rng, dist)
        start = time.perf_counter()
        task.reference(x, params)
        t_ref.append(time.perf_counter() - start)
        x = task.make_inputs(rng, dist)
        start = time.perf_counter()
        forward(x, params_c, _alloc)
        t_cand.append(time.perf_counter() - start)
    return statistics.median(t_ref), statistics.median(t_cand)


def evaluate(
    task: Task,
    src: str,
    mode: str = "hardened",
    cand_name: str = "",
    seed: int = 0,
    inputs: int = 2,
    pairs: int = 5,
) -> EvalResult:
    """Judge one candidate for one task."""
    if mode not in ("naive", "hardened"):
        raise ValueError("mode is naive or hardened")
    base = dict(task=task.name, candidate=cand_name, mode=mode)
    if mode == "hardened" and (why := static_check(src)):
        return EvalResult(status="rejected", msg=why, **base)
    if needs_gpu(src) and not _has_cuda():
        return EvalResult(status="runtime_error", msg="a Triton candidate: needs a CUDA GPU", **base)
    forward, init, err = load_candidate(src)
    if err:
        return EvalResult(status="compile_error", msg=err, **base)
    rng = np.random.default_rng(seed)
    dists = DISTS if mode == "hardened" else ("normal",)
    param_sets = [task.make_params(np.random.default_rng(seed), False)]
    if mode == "hardened":
        param_sets += [task.make_params(np.random.default_rng(seed + 1 + i), True) for i in range(2)]
    per_dist: dict[str, list[int]] = {d: [0, 0] for d in dists}
    first_failure = ""
    prepared = []
    for params in param_sets:
        try:
            with np.errstate(all="ignore"):
                params_c = init(dict(params)) if init else params
        except Exception as e:  # noqa: BLE001
            return EvalResult(status="runtime_error", msg=f"init: {type(e).__name__}: {e}", **base)
        prepared.append((params, params_c))
        for dist in dists:
            for _ in range(inputs if mode == "hardened" else 1):
                x = task.make_inputs(rng, dist)
                try:
                    with np.errstate(all="ignore"):
                        out = forward(x, params_c, _alloc)
                except Exception as e:  # noqa: BLE001
                    return EvalResult(status="runtime_error", msg=f"{type(e).__name__}: {e}", **base)
                with np.errstate(all="ignore"):
                    ok, why = check_output(out, task.reference(x, params))
                per_dist[dist][1] += 1
                per_dist[dist][0] += ok
                if not ok and not first_failure:
                    first_failure = f"{dist} inputs: {why}"
    summary = {d: f"{p}/{n}" for d, (p, n) in per_dist.items()}
    if first_failure:
        return EvalResult(status="wrong", msg=first_failure, per_dist=summary, **base)
    params, params_c = prepared[0]
    n_pairs = pairs if mode == "hardened" else 1
    if hasattr(forward, "raw") and task.torch_reference is not None:
        t_ref, t_cand = _time_pair_gpu(task, forward.raw, params_c, rng, "normal", n_pairs)
    else:
        with np.errstate(all="ignore"):
            t_ref, t_cand = _time_pair(task, forward, params_c, params, rng, "normal", n_pairs)
    return EvalResult(status="correct", t_ref=t_ref, t_cand=t_cand, per_dist=summary, **base)


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def evaluate_library(mode: str = "hardened", candidates: list[Candidate] | None = None) -> list[EvalResult]:
    """Judge every candidate; Triton candidates only where there is a GPU."""
    cands = candidates if candidates is not None else library()
    if not _has_cuda():
        cands = [c for c in cands if not needs_gpu(c.src)]
    return [evaluate(TASK[c.task], c.src, mode, c.name) for c in cands]


def fast_p(results: list[EvalResult], p: float) -> float:
    """Mean over tasks of the fraction of its candidates that are correct and > p x faster."""
    by_task: dict[str, list[EvalResult]] = {}
    for r in results:
        by_task.setdefault(r.task, []).append(r)
    return statistics.fmean(sum(r.correct and r.speedup > p for r in rs) / len(rs) for rs in by_task.values())


def fast_p_at_k(q: list[float], k: int) -> float:
    """Per-task success probabilities q (a candidate drawn at random succeeds), k draws
    per task, success if any draw succeeds: mean of 1 - (1 - q)^k."""
    return statistics.fmean(1.0 - (1.0 - qi) ** k for qi in q)


def per_task_rates(results: list[EvalResult], p: float) -> list[float]:
    by_task: dict[str, list[EvalResult]] = {}
    for r in results:
        by_task.setdefault(r.task, []).append(r)
    return [sum(r.correct and r.speedup > p for r in rs) / len(rs) for rs in by_task.values()]
