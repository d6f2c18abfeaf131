"""The kernel languages' captures, one module each, and the one way the worker calls a
language's own capture: through the language table (kx_core.records.languages), never by
the language's name.

Here: Triton's autotuner and its direct compiles (autotune_capture, direct_compiles),
and each language the table names: Inductor (inductor_capture, inductor_origins and its
choices autotune_choice, pad_mm_choice), ops behind torch.library (torch_library),
TorchScript (torchscript), Helion, the CuTe DSL and TileLang (helion_capture,
cute_capture with cute_stand_ins, tilelang_capture). Each runs on the stand-in device
(kx_core.compile.capturing.device), which never imports one of them (pyproject's
import-linter contract).

A language whose `Language.capture_module` names a module is captured by it, for a file
the language `marks` (every file, for a language of `every_file`: Inductor, torch.library,
TorchScript) and a target it `compiles_for`. The module has up to three functions, each
optional:

    install(target, path) -> None
        once the stand-in device is up, before the file is imported or run, in every mode
        (a run, an import for --kernel or the kernel list, a replay): patch the
        language's runtime, as its modules load where it can (import_hooks.after_import:
        a file that never imports it pays nothing)
    prepare(text, target) -> state | None
        before the file runs (a run only): make the language keep what it compiles (a
        folder for its artifacts, its compiler's calls watched, its settings for a
        capture); None when there is nothing to read back after the run
    finish(state, namespace, path, target) -> Captured
        after the run, whether or not it failed (`namespace` is what the run left, empty
        when it failed early): the records of what it compiled and what to tell the user

A language that launches through Triton (Gluon) needs no module: kx's Triton capture
sees its launches.

    install_all(text, target, path)        # before the file is imported or run
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


def _captures(text: str, target: Target) -> list[tuple[str, Any]]:
    """(name, capture module) of each language the file's text and the target call for,
    in the table's order."""
    return [
        (lang.name, importlib.import_module(lang.capture_module))
        for lang in languages()
        if lang.capture_module and lang.marks(text) and lang.compiles_for(target.backend)
    ]


def install_all(text: str, target: Target, path: str) -> None:
    """Before the file is imported or run, in every mode: each language's `install` that
    the file's text and the target call for, in the table's order."""
    for _, module in _captures(text, target):
        install = getattr(module, "install", None)
        if install is not None:
            install(target, path)


def prepare_all(text: str, target: Target) -> list[Prepared]:
    """Before the file runs: each language's capture that the file's text and the target
    call for, prepared, in the table's order."""
    out = []
    for name, module in _captures(text, target):
        prepare = getattr(module, "prepare", None)
        state = prepare(text, target) if prepare is not None else None
        if state is not None:
            out.append(Prepared(name, module, state))
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
