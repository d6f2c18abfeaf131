"""Correctness of a kernel file against a reference, over many inputs.

A kernel file declares what to check with `Check` objects at module level:

    from kx_core.bench.check import Check
    CHECKS = [Check(fn=softmax, reference=lambda x: torch.softmax(x, -1),
                    make_args=lambda draw, n: (draw((64, n)),), sizes=[1000], block=1024,
                    reduction=lambda n: n)]

`kx check FILE` imports the file (not as __main__, so its demo code does not run) and
calls `fn` and `reference` on the same inputs: every KernelBench distribution (normal,
uniform, laplace, lognormal, offset 1000), K3's edge sizes around `block` plus the given
sizes, and a batch of K3's edge values (signed zeros, the smallest normal, the largest
finite, values whose square overflows, infinities, NaN). Outputs are compared with K3's
tolerance for the dtype and the reduction length, whose rationale is printed. On a GPU
the tensors are on it; without one the kernels run in Triton's interpreter on CPU
tensors, and the results say so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kx_core.base.jsonable import Jsonable
from kx_core.bench.kb_tasks import DISTS
from kx_core.bench.numerics import check_close, edge_sizes, edge_values, tolerance

DTYPE_NAMES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


@dataclass
class Check:
    """What to compare: fn(*args) against reference(*args), args = make_args(draw, size)."""

    fn: Callable
    reference: Callable
    make_args: Callable
    sizes: tuple | list = ()
    block: int | None = None
    dtype: str = "float32"
    reduction: Callable[[int], int] = lambda n: 1  # the length of the sum each output comes from
    name: str = ""
    seeds: int = 2


@dataclass(frozen=True)
class CheckResult(Jsonable):
    check: str
    dist: str
    size: int
    ok: bool
    reason: str
    rtol: float
    atol: float
    rationale: str
    mode: str  # "gpu" or "interpreter (CPU)"
    max_abs: float | None = None


@dataclass(frozen=True)
class CheckReport(Jsonable):
    file: str
    mode: str
    results: tuple[CheckResult, ...] = ()
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.error and all(r.ok for r in self.results)


def _drawer(torch, rng: np.random.Generator, dist: str, dtype, device):
    from kx_core.bench.kb_tasks import draw

    def f(shape):
        if dist == "edge":
            vals = edge_values("float16" if dtype == torch.float16 else "float32")
            flat = rng.choice(vals, size=int(np.prod(shape)))
            x = flat.reshape(shape).astype(np.float32)
        else:
            x = draw(rng, shape, dist)
        return torch.from_numpy(np.ascontiguousarray(x)).to(device=device, dtype=dtype)

    return f


def run_checks(checks: list[Check], device: str, mode: str) -> list[CheckResult]:
    import torch

    out = []
    for i, c in enumerate(checks):
        name = c.name or getattr(c.fn, "__name__", f"check{i}")
        dtype = getattr(torch, c.dtype)
        sizes = sorted(set(c.sizes) | (set(edge_sizes(c.block, limit=4 * c.block)) if c.block else set()))
        for dist in DISTS + ("edge",):
            for size in sizes:
                rtol, atol = tolerance(DTYPE_NAMES[c.dtype], max(1, c.reduction(size)), c=4.0)
                why = (
                    f"{c.dtype}, reductions of length {c.reduction(size)}: rtol = atol = 4*eps*sqrt(k) = {rtol:.3g} "
                    "(K3: random rounding errors grow like sqrt(k))"
                )
                ok, reason, worst = True, "", 0.0
                for seed in range(c.seeds if dist != "edge" else 1):
                    rng = np.random.default_rng(seed)
                    args = c.make_args(_drawer(torch, rng, dist, dtype, device), size)
                    try:
                        got = c.fn(*args)
                    except Exception as e:  # noqa: BLE001 - a failing launch is a result
                        ok, reason = False, f"{type(e).__name__}: {e}"
                        break
                    expected = c.reference(*args)
                    report = check_close(
                        got.detach().float().cpu().numpy(),
                        expected.detach().float().cpu().numpy(),
                        rtol,
                        atol,
                    )
                    worst = max(worst, report.get("max_abs") or 0.0)
                    if not report["ok"]:
                        ok, reason = False, report["reason"]
                        break
                out.append(CheckResult(name, dist, size, ok, reason, rtol, atol, why, mode, worst))
    return out


def load_checks(path: str) -> list[Check]:
    """Import the file as a module (its `if __name__ == "__main__"` part does not run)
    and collect its Check objects: CHECKS, or any module-level Check."""
    spec = importlib.util.spec_from_file_location("kx_checked_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    found = list(getattr(module, "CHECKS", []) or [])
    found += [v for v in vars(module).values() if isinstance(v, Check) and v not in found]
    return found


def main(argv: list[str] | None = None) -> int:
    """Worker: `python -m kx_core.bench.check FILE --out JSON` (interpreter mode when
    TRITON_INTERPRET=1 is set)."""
    from kx_core.bench.requests import CheckRequest, read_request

    _request, path, out = read_request(CheckRequest, argv, "kx-check-worker")
    interpret = os.environ.get("TRITON_INTERPRET") == "1"
    if interpret:
        from triton.runtime import driver

        from kx_core.bench.interpret import _cpu_driver

        driver.set_active(_cpu_driver())
    mode = "interpreter (CPU)" if interpret else "gpu"
    try:
        checks = load_checks(path)
        results = run_checks(checks, "cpu" if interpret else "cuda", mode)
        report = CheckReport(path, mode, tuple(results), "" if checks else "the file declares no Check")
    except Exception as e:  # noqa: BLE001 - reported, not raised
        from kx_core.compile.artifacts.diagnostics import runtime_diagnostic

        d = runtime_diagnostic(e, path)
        report = CheckReport(path, mode, (), f"{d.message} (line {d.line})")
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(report.to_json(), f)
    os.replace(out + ".tmp", out)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
