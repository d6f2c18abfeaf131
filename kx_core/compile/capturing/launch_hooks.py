"""The one place kx takes over Triton's launch entry points.

Capture (compile for a chosen target, launch nothing) and bench (time real launches on
the local GPU) both need to see every launch a file makes. Triton routes them all
through two methods: `JITFunction.run` (every `kernel[grid](...)`, and every config an
autotuner tries) and `Autotuner.run` (the launch of an `@triton.autotune` kernel). A
mode gives `install` one handler for each; a handler receives Triton's own methods
(`TritonRuns`) first, so it can call through, then the launch exactly as Triton got it.

Only worker processes call `install`: it replaces the methods for the whole process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TritonRuns:
    """Triton's run methods as they were before `install` replaced them."""

    jit: Callable[..., Any]  # JITFunction.run(fn, *args, grid=, warmup=, **kwargs)
    autotune: Callable[..., Any]  # Autotuner.run(tuner, *args, **kwargs)


# handler(runs, fn_or_tuner, *args, **kwargs) -> what Triton's method returns
Handler = Callable[..., Any]


def install(on_jit_run: Handler, on_autotune_run: Handler) -> TritonRuns:
    """Route JITFunction.run and Autotuner.run through the two handlers; returns the
    originals (also passed to every handler call)."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    runs = TritonRuns(jit=JITFunction.run, autotune=Autotuner.run)

    def jit_run(self, *args, **kwargs):
        return on_jit_run(runs, self, *args, **kwargs)

    def autotune_run(self, *args, **kwargs):
        return on_autotune_run(runs, self, *args, **kwargs)

    JITFunction.run = jit_run
    Autotuner.run = autotune_run
    return runs
