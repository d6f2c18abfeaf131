"""Which lines of the user's file an Inductor kernel was generated from.

A `torch.compile` script's kernels live in modules Inductor writes to its cache: their
stages' locations name those modules, not the script. Inductor knows better: each
kernel is generated from graph nodes whose `stack_trace` names the user's lines
(dynamo records the frame of every traced op; AOTAutograd copies a forward node's trace
onto its backward nodes). When Inductor emits a kernel, kx keeps its module's path with
the script's lines its nodes came from, so a kernel's IR links to the model lines that
made it (kernel-wide: Inductor does not say which of its lines came from which node).

Runs only inside the capture worker, patched when Inductor's Triton codegen is imported.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
from typing import Any

from kx_core.compile.capturing.import_hooks import after_import

# Example (one frame of a node's stack trace):
#   File "/home/u/model.py", line 12, in forward
_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')

# realpath of a generated kernel module -> lines of the user's file, sorted
_LINES: dict[str, tuple[int, ...]] = {}


def install(user_file: str) -> None:
    """Record the user's lines of each kernel Inductor emits, from now on."""
    target = os.path.realpath(user_file)
    after_import("torch._inductor.codegen.triton", lambda m: _patch(m, target))


def model_lines(generated: str | None) -> tuple[int, ...]:
    """The user's lines the kernel module at `generated` was generated from (none if
    Inductor did not emit it, or its nodes came from other files)."""
    return _LINES.get(os.path.realpath(generated), ()) if generated else ()


def lines_of(stack_traces: list[str], user_file: str) -> tuple[int, ...]:
    """Lines of `user_file` (a realpath) the frames of these stack traces name, sorted."""
    out: set[int] = set()
    for trace in stack_traces:
        for path, line in _FRAME_RE.findall(trace or ""):
            if os.path.realpath(path) == user_file:
                out.add(int(line))
    return tuple(sorted(out))


def _patch(module: Any, user_file: str) -> None:
    scheduling = getattr(module, "TritonScheduling", None)
    emit = getattr(scheduling, "_emit_kernel_to_wrapper", None)
    if emit is None:
        return  # another Inductor: no links, nothing else changes
    signature = inspect.signature(emit)

    @functools.wraps(emit)
    def _emit_kernel_to_wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(self, *args, **kwargs).arguments
            path, schedule = bound.get("kernel_path"), bound.get("node_schedule")
            if path and schedule is not None:
                lines = lines_of(_stack_traces(schedule), user_file)
                if lines:
                    _LINES[os.path.realpath(path)] = lines
        except Exception:  # noqa: BLE001 - links are a nicety: never fail Inductor's compile
            pass
        return emit(self, *args, **kwargs)

    scheduling._emit_kernel_to_wrapper = _emit_kernel_to_wrapper


def _stack_traces(schedule: Any) -> list[str]:
    """The stack traces of the FX nodes a kernel's scheduler nodes came from."""
    from torch._inductor.utils import aggregate_origins

    return [n.meta.get("stack_trace") or "" for n in aggregate_origins(schedule) if n.op == "call_function"]
