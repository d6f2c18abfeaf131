"""The kernel languages' captures, one module each, and the one way the worker calls a
language's own capture: through the language table (kx_core.records.languages), never by
the language's name.

Here: Triton's autotuner and its direct compiles (autotune_capture, direct_compiles),
Inductor (inductor_capture, inductor_origins and its choices autotune_choice,
pad_mm_choice), TorchScript (torchscript), Helion, the CuTe DSL and TileLang
(helion_capture, cute_capture with cute_stand_ins, tilelang_capture). Each runs on the
stand-in device (kx_core.compile.capturing.device), which never imports one of them
(pyproject's import-linter contract).

A language whose `Language.capture_module` names a module is captured by it, for a file
the language `marks` and a target it `compiles_for`. The module has two functions:

    prepare(text, target) -> state | None
        before the file runs: make the language keep what it compiles (a folder for its
        artifacts, its compiler's calls watched, its settings for a capture); None when
        there is nothing to read back after the run
    finish(state, namespace, path, target) -> Captured
        after the run, whether or not it failed (`namespace` is what the run left, empty
        when it failed early): the records of what it compiled and what to tell the user

A language that launches through Triton (Gluon) needs no module: kx's Triton capture
sees its launches.

    prepared = prepare_all(text, target)   # before run_user_file
    finish_all(prepared, namespace, path, target, state.send_kernel, state.send_diagnostic)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kx_core.records.languages import languages
from kx_core.records.results import CompiledKernel, Diagnostic, Target


@dataclass
class Captured:
    """What a language's capture read back after the run: each record under its key in
    the result (a key names one compile: 'cute:add:...', 'tilelang:0:main'), and
    diagnostics (a config a real run would choose otherwise, ...)."""

    kernels: list[tuple[str, CompiledKernel]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class Prepared:
    """One language's capture, prepared before the run: its module and its state."""

    language: str
    module: Any
    state: Any


def prepare_all(text: str, target: Target) -> list[Prepared]:
    """Before the file runs: each language's capture that the file's text and the target
    call for, prepared, in the table's order."""
    out = []
    for lang in languages():
        if not lang.capture_module or not lang.marks(text) or not lang.compiles_for(target.backend):
            continue
        module = importlib.import_module(lang.capture_module)
        state = module.prepare(text, target)
        if state is not None:
            out.append(Prepared(lang.name, module, state))
    return out


def finish_all(
    prepared: list[Prepared],
    namespace: dict,
    path: str,
    target: Target,
    send_kernel: Callable[[str, CompiledKernel], None],
    send_diagnostic: Callable[[Diagnostic], None],
) -> None:
    """After the run: what each prepared capture read back, sent (its diagnostics, then
    its records)."""
    for p in prepared:
        got: Captured = p.module.finish(p.state, namespace, path, target)
        for d in got.diagnostics:
            send_diagnostic(d)
        for key, record in got.kernels:
            send_kernel(key, record)
