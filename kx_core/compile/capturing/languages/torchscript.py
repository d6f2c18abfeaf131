"""A `torch.jit.script` function called under capture runs its Python source.

The TorchScript interpreter runs a scripted function's ops through the dispatcher with no
Python around them: where the function reads host data (an `int` of a tensor element, a
slice bound taken from cumulative lengths, as ring-attention's varlen helpers do), the
capture's tensors have no data to give it and the call fails ("The following operation
failed in the TorchScript interpreter"), though the same Python runs under capture with
exact values. TorchScript is a subset of Python with Python's meaning, and dynamo follows
the same rule (it inlines a scripted function's `_torchdynamo_inline`, the function
`torch.jit.script` compiled): so the scripted function is compiled as usual (a script
error is still the file's error) and calls run the original function.

A kernel language of its own to kx (records/languages.py: "torchscript"), whose capture
applies to every file: a library the file imports may script a function. The worker
calls `install` before the file is imported or run (capturing/languages/__init__.py).

Runs only inside the capture worker.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from kx_core.records.results import Target


class RunsAsPython:
    """A ScriptFunction whose calls run the Python function it was compiled from; every
    other attribute (`graph`, `code`, `save`) is the ScriptFunction's."""

    def __init__(self, scripted: Any, fn: Any) -> None:
        self._scripted = scripted
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scripted, name)


def install(target: Target, path: str) -> None:
    """Wrap `torch.jit.script` (the file's imports bind it after this; the language
    protocol's `install`)."""
    import torch

    real = torch.jit.script
    if getattr(real, "_kx_runs_as_python", False):
        return

    def script(
        obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, example_inputs: Any = None
    ):
        # one frame more up: a scripted class resolves its names in the caller's frame
        made = real(obj, optimize, _frames_up + 1, _rcb, example_inputs)
        if sys._getframe(1).f_globals.get("__name__", "").startswith("torch.jit"):
            # TorchScript compiling a function that a scripted one calls (try_compile_fn:
            # F.embedding_bag inside AQLM's scripted dequantize): it must get its own
            # ScriptFunction back, which it calls inside the script ("Argument offsets not
            # provided": given the wrapper, it matched the call against the aten op)
            return made
        fn = getattr(made, "_torchdynamo_inline", None)
        if isinstance(made, torch.jit.ScriptFunction) and callable(fn):
            return RunsAsPython(made, fn)
        return made

    script._kx_runs_as_python = True
    functools.update_wrapper(script, real)
    torch.jit.script = script
