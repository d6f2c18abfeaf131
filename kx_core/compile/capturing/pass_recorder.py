"""The MLIR passes of a compile, one at a time, through Triton's own pass manager.

Triton's backends build each stage as one pass manager (`pm = ir.pass_manager(ctx)`,
`passes.ttgpuir.add_coalesce(pm)`, ..., `pm.run(mod, 'make_ttgir')`). While a capture
wants the passes, kx swaps in a pass manager that remembers every `add_*` call made on
it and, at `run`, runs each added pass in a pass manager of its own, printing the module
after it (`mod.str()`, the text MLIR_ENABLE_DUMP prints) and only keeping a new text when
the pass changed it. That is one print per pass, buffered, instead of Triton's dump
(MLIR's printer on unbuffered stderr, several times slower): issue 32's pass capture.

What each pass is called comes from MLIR's timing report of its own pass manager
(MLIR_ENABLE_TIMING, printed on fd 2, which the capture redirects to a file): the name the
dump's headers use ("TritonGPUCoalesce"); its argument and options from the pass manager's
textual pipeline. A pass that dumps its own steps (the software pipeliner's LowerLoops)
prints them on fd 2 too; they follow their pass, as in the dump.

Never a different kernel: before running pass by pass, the stage's whole pipeline
(`get_pipeline_str()`) must equal the recorded passes' pipelines joined; a pass added by
any other route (a plugin, an instrumentation's own bindings) makes them differ, and then
the stage runs as Triton built it, unrecorded, and the record says so (`unrecorded`).
"""

from __future__ import annotations

import os
import re
import threading
import time
import types
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.ir.passes import step_output
from kx_core.records.results import PassDump

_LOCK = threading.Lock()
# A location alias line, which a pass that only moves locations changes (the dump's rule:
# not a change). Example: '#loc12 = loc("/k/a.py":31:29)'
_LOC_ALIAS_LINE_RE = re.compile(r"^#loc\w* = loc\(.*\)$", re.MULTILINE)
_ACTIVE: PassRecorder | None = None  # the recorder of the capture in progress, if any
# A pass's name by its textual pipeline, once a timing report named it (this process's
# Triton has one name per pass; parsing each report again costs a tenth of the prints)
_NAMES: dict[str, list[str]] = {}


def supported() -> bool:
    """Whether this Triton's bindings have what recording needs (3.5 and later do)."""
    try:
        from triton._C.libtriton import ir
    except ImportError:
        return False
    return hasattr(ir.pass_manager, "get_pipeline_str") and hasattr(ir.module, "str")


def _without_locations(text: str) -> str:
    """The module's text less its location aliases, which MLIR prints above the module
    (among the attribute aliases) and below its closing brace: only the few lines above
    are searched (a regex over the whole module costs a third of a print)."""
    start = text.find("\nmodule")
    end = text.rfind("\n}")
    if start < 0 or end < start:
        return _LOC_ALIAS_LINE_RE.sub("", text)
    return _LOC_ALIAS_LINE_RE.sub("", text[:start]) + text[start:end]


def _split_top(text: str) -> list[str]:
    """'a{x=1,2},b(c,d)' -> ['a{x=1,2}', 'b(c,d)']: commas outside braces and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def flat_pipeline(text: str) -> list[str]:
    """A textual pass pipeline as its passes, each with the ops it is nested under.
    Example: 'any(inline{max-iterations=4 },llvm.func(a,b),cse)' ->
    ['inline{max-iterations=4 }', 'llvm.func/a', 'llvm.func/b', 'cse'] (MLIR merges
    adjacent passes nested under one op, so two pipelines are compared flattened)."""

    def walk(element: str, prefix: tuple[str, ...]) -> list[str]:
        brace = element.find("{")
        paren = element.find("(")
        if paren > 0 and (brace < 0 or paren < brace) and element.endswith(")"):
            anchor = element[:paren]
            out: list[str] = []
            for part in _split_top(element[paren + 1 : -1]):
                out += walk(part, (*prefix, anchor))
            return out
        return ["/".join((*prefix[1:], element))]

    return walk(text.strip(), ())


def _argument(element: str) -> tuple[str, str]:
    """'llvm.func/canonicalize-llvm-ir' -> ('canonicalize-llvm-ir', ''); 'inline{a=1 }' ->
    ('inline', '{a=1 }')."""
    last = element.rsplit("/", 1)[-1]
    brace = last.find("{")
    return (last, "") if brace < 0 else (last[:brace], last[brace:])


@dataclass
class PassRecorder:
    """The passes recorded while installed. `fd`: the file fd 2 writes to (read back for
    each pass's timing report and step dumps)."""

    fd: int
    passes: list[PassDump] = field(default_factory=list)
    pipelines: int = 0  # pass-manager runs seen (numbered as the dump's pipelines)
    unrecorded: list[str] = field(default_factory=list)  # stages run whole, and why

    def _offset(self) -> int:
        return os.lseek(self.fd, 0, os.SEEK_END)

    def _printed_since(self, start: int) -> str:
        end = self._offset()
        if end <= start:
            return ""
        return os.pread(self.fd, end - start, start).decode("utf-8", "replace")

    def _module_text(self, mod: Any) -> str:
        return mod.str().strip("\n")  # as the dump's sections are kept

    def run_stage(self, base: type, pm: Any, mod: Any, args: tuple) -> None:
        """Run one stage's pass manager `pm` pass by pass, recording each pass."""
        tag = str(args[0]) if args else f"pipeline {self.pipelines}"
        steps = getattr(pm, "_kx_steps", [])
        whole = flat_pipeline(pm.get_pipeline_str())
        if not steps:
            if whole and whole != ["any()"] and whole != ["builtin.module()"]:
                self.unrecorded.append(f"{tag}: passes added outside Triton's passes modules")
            base.run(pm, mod, *args)
            return
        singles = [base(pm._kx_context) for _ in steps]  # one pass manager per add_* call
        for (real, a, kw), single in zip(steps, singles, strict=True):
            real(single, *a, **kw)
        del single  # (a leftover reference would hold back its timing report)
        texts = [single.get_pipeline_str() for single in singles]
        elements = [flat_pipeline(text) for text in texts]
        if [e for element in elements for e in element] != whole:
            # a pass kx did not see added: run the stage exactly as Triton built it
            self.unrecorded.append(f"{tag}: passes added outside Triton's passes modules")
            base.run(pm, mod, *args)
            return
        index = self.pipelines
        self.pipelines += 1
        before = self._module_text(mod)
        for i in range(len(singles)):
            text, element = texts[i], elements[i]
            start = self._offset()
            t = time.perf_counter()
            base.run(singles[i], mod, *args)
            elapsed = time.perf_counter() - t
            # MLIR prints the timing report as the manager goes: no reference may outlive
            # this line (an enumerate() tuple would)
            singles[i] = None
            printed = self._printed_since(start)
            if text in _NAMES and "internal IR Dump" not in printed:
                names, internal = _NAMES[text], ()
            else:
                names, internal = step_output(printed)
                if names:
                    _NAMES[text] = names
            after = self._module_text(mod)
            changed = after != before and _without_locations(after) != _without_locations(before)
            argument, options = _argument(element[0])
            name = names[0] if names else argument
            if len(element) > 1:  # one add_* call that added several passes
                argument = ",".join(_argument(e)[0] for e in element)
                name = " + ".join(names[: len(element)]) if len(names) >= len(element) else argument
            self.passes.append(
                PassDump(
                    name=name,
                    argument=argument,
                    ir=before,
                    changed=changed,
                    function=None,
                    pipeline=index,
                    kind="mlir",
                    options=options,
                    time_s=elapsed,
                )
            )
            self.passes += [replace(p, pipeline=index) for p in internal]
            if after != before:
                before = after


def _libtriton_modules() -> list[types.ModuleType]:
    """Every submodule of Triton's bindings (passes, nvidia.passes.ttnvgpuir, amd, ...)."""
    import triton._C.libtriton as lib

    found: list[types.ModuleType] = []
    todo = [lib]
    while todo:
        m = todo.pop()
        for value in vars(m).values():
            if isinstance(value, types.ModuleType) and value.__name__.startswith("triton._C."):
                if value not in found:
                    found.append(value)
                    todo.append(value)
    return found


def _wrapped_add(real: Any) -> Any:
    def add(pm, *args, **kwargs):
        real(pm, *args, **kwargs)
        steps = getattr(pm, "_kx_steps", None)
        if steps is not None:
            steps.append((real, args, kwargs))

    add.__wrapped__ = real
    add.__name__ = getattr(real, "__name__", "add")
    return add


class _Installed:
    """What `install` replaced, to put back."""

    def __init__(self) -> None:
        self.ir: Any = None
        self.base: Any = None
        self.adds: list[tuple[types.ModuleType, str, Any]] = []


def _recording_class(base: type) -> type:
    class RecordingPassManager(base):  # type: ignore[misc, valid-type]
        def __init__(self, context, *args, **kwargs):
            super().__init__(context, *args, **kwargs)
            self._kx_context = context
            self._kx_steps = []

        def enable_debug(self):
            super().enable_debug()
            # the software pipeliner and warp specializer dump their own steps only when
            # told the dump is on (that changes what they print, not what they compile)
            return True

        def run(self, mod, *args):
            recorder = _ACTIVE
            if recorder is None:
                return base.run(self, mod, *args)
            return recorder.run_stage(base, self, mod, args)

    return RecordingPassManager


def install(recorder: PassRecorder) -> _Installed:
    """Record every pass manager Triton builds from now until `uninstall`."""
    global _ACTIVE
    from triton._C.libtriton import ir

    saved = _Installed()
    with _LOCK:
        saved.ir = ir
        saved.base = ir.pass_manager
        ir.pass_manager = _recording_class(saved.base)
        for module in _libtriton_modules():
            for name, value in list(vars(module).items()):
                if name.startswith("add_") and callable(value) and not hasattr(value, "__wrapped__"):
                    setattr(module, name, _wrapped_add(value))
                    saved.adds.append((module, name, value))
        _ACTIVE = recorder
    return saved


def uninstall(saved: _Installed) -> None:
    global _ACTIVE
    with _LOCK:
        _ACTIVE = None
        for module, name, value in saved.adds:
            setattr(module, name, value)
        if saved.ir is not None:
            saved.ir.pass_manager = saved.base
