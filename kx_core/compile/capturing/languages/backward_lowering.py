"""A compiled graph's backward, lowered by kx with its forward, shown only once it runs.

A real run lowers a torch.compile graph's backward lazily, at its first backward call,
unless the forward saves sizes for it (a dynamic graph: then with the forward, as kx does):
a file that never calls backward (inference without `torch.no_grad()`, an evaluation loop
over a model whose parameters require grad) compiles none of its kernels. kx lowers the
backward with the forward (inductor_capture sets functorch's
`force_non_lazy_backward_lowering`: at the first backward the capture's torch function
mode would be on, and Inductor's compile-time tensors would become meta), so the kernels
it compiles there are held: sent when the compiled backward is first called, as a real
run compiles them; never sent when it is not called, and said at the end of the run.

    state = start()                    # languages' prepare: holding on for this run
    compiled = lowered(inner, args, kwargs)   # around compile_fx_inner of a backward graph
    diagnostics = unreleased(state)    # languages' finish: the backwards that never ran
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kx_core.compile.capturing import capture_state
from kx_core.compile.capturing.device.placeholders import LEDGER
from kx_core.records.results import Diagnostic

NEVER_RAN = (
    "the backward of the graph torch.compile made here never ran: kx lowered it with the "
    "forward, a real run lowers it at its first backward, so its {n} compiled kernels are "
    "not shown (a real run of this file compiles none of them)"
)


@dataclass
class _Held:
    """The records a backward's lowering made, and where its forward was called."""

    records: list[tuple[str, Any]]
    file: str | None
    line: int | None
    released: bool = False


@dataclass
class Backwards:
    """This run's backward lowerings (languages' prepared state for Inductor)."""

    held: list[_Held] = field(default_factory=list)


_RUN: Backwards | None = None


def start() -> Backwards:
    """Hold the kernels of backward lowerings from now on (the run's prepare)."""
    global _RUN
    _RUN = Backwards()
    return _RUN


def lowered(inner: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """`inner(*args, **kwargs)`: Inductor's compile_fx_inner. A backward graph's
    (`is_backward`) records are held until the compiled graph is first called."""
    state = capture_state.STATE
    if not kwargs.get("is_backward") or _RUN is None or state is None:
        return inner(*args, **kwargs)
    if _lowered_eagerly(args, kwargs):
        return inner(*args, **kwargs)  # a real run lowers this one now too: shown now
    file, line = LEDGER.user_frame()
    held = _Held([], file, line)
    with state.holding(held.records):
        compiled = inner(*args, **kwargs)
    run = getattr(compiled, "current_callable", None)
    if not callable(run):
        # no way to see its first call: shown now, as before
        _release(held)
        return compiled

    def current_callable(inputs: Any) -> Any:
        _release(held)
        return run(inputs)

    # CompiledFxGraph.__call__ runs `self.current_callable(inputs)` (torch 2.9 - 2.14)
    compiled.current_callable = current_callable
    _RUN.held.append(held)
    return compiled


def _lowered_eagerly(args: tuple, kwargs: dict) -> bool:
    """Whether AOTAutograd lowers this backward with its forward in a real run too: where
    the forward saves sizes for it (`num_symints_saved_for_bw > 0`, a graph with dynamic
    shapes: graph_compile.py, "Backward graph lazy lowering"). Those saved sizes are the
    backward graph's SymInt inputs (the others are tensors). Corpus 13's Flux kernels: the
    second, dynamic compile of an RMSNorm called with a tensor that requires grad compiled
    its backward on the H100 although no backward ran; kx held it back and exited 0."""
    import torch

    inputs = kwargs.get("example_inputs", args[1] if len(args) > 1 else ())
    return any(isinstance(x, torch.SymInt) for x in inputs or ())


def _release(held: _Held) -> None:
    if held.released:
        return
    held.released = True
    for key, record in held.records:
        capture_state.STATE.send_kernel(key, record)


def unreleased(state: Backwards) -> list[Diagnostic]:
    """One diagnostic per backward lowering whose graph never ran, at the line whose
    call compiled it; its records are dropped."""
    return [
        Diagnostic("not-launched", NEVER_RAN.format(n=len(h.records)), h.file, h.line)
        for h in state.held
        if not h.released and h.records
    ]
