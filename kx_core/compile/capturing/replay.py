"""Recompiling one recorded kernel: its Specialization (signature, constexprs, attributes,
options) through `triton.compile(ASTSource(...))`, with the kernel's module imported (not
run). Pass capture on demand uses it: the IR before every pass of the selected kernel
and config only, for about the price of one plain compile (issue 15), instead of a
recompile of the whole file with every pass dumped.

Runs inside the capture worker (the capture device installed).
"""

from __future__ import annotations

import time
from typing import Any

from kx_core.records.results import CompiledKernel, Specialization


def _constant(value: Any) -> Any:
    """A recorded constexpr value as Triton wants it back: dtype names become tl dtypes,
    lists tuples."""
    if isinstance(value, list):
        return tuple(_constant(v) for v in value)
    if isinstance(value, str):
        from kx_core.compile.capturing.library import parse_value

        parsed = parse_value(repr(value))
        return parsed
    return value


def _path_key(names: dict[str, int], path: str) -> tuple:
    head, *rest = path.split(".")
    return (names[head], *(int(p) for p in rest))


def replay(fn: Any, spec: Specialization, target: Any) -> Any:
    """Compile `fn` (a JITFunction) as `spec` says, for the GPUTarget `target`."""
    import triton
    from triton.compiler import ASTSource

    names = {p.name: p.num for p in fn.params}
    constexprs = {_path_key(names, k): _constant(v) for k, v in spec.constexprs.items()}
    # lists, as the JIT's backend.parse_attr makes them: Triton's cache key holds their
    # text, so tuples would key the same kernel differently (a replay not served the
    # JIT's compile, nor a sweep's shipped binary found: kx_core.sweep.binaries)
    attrs = {_path_key(names, k): [list(a) for a in v] for k, v in spec.attrs.items()}
    options = {k: v for k, v in spec.options.items() if v is not None}
    source = ASTSource(fn, dict(spec.signature), constexprs, attrs)
    from kx_core.compile.capturing.languages.direct_compiles import not_recorded

    with not_recorded():
        return triton.compile(source, target=target, options=options)


def replay_record(state: Any, namespace: dict, original: CompiledKernel) -> None:
    """Recompile `original` (a record of this file) with its passes captured and send the
    new record (same config, launch and key as the original)."""
    from triton.backends.compiler import GPUTarget

    from kx_core.compile.artifacts.kernel_record import kernel_record
    from kx_core.compile.capturing.jit_objects import base_jit, compile_diagnostic, pass_dumps

    obj = namespace.get(original.name)
    if obj is None or original.specialization is None:
        from kx_core.records.results import Diagnostic

        what = "no specialization recorded" if obj is not None else "not found in the module"
        state.send_diagnostic(
            Diagnostic("compile", f"cannot recompile {original.name}: {what}", state.user_file)
        )
        return
    fn = base_jit(obj)
    t = state.target
    state.progress(f"capturing the passes of {original.display_name}")
    start = time.perf_counter()
    try:
        with pass_dumps(True) as dumps:
            kernel = replay(fn, original.specialization, GPUTarget(t.backend, t.arch, t.warp_size))
    except Exception as e:  # noqa: BLE001 - a failed compile becomes a diagnostic
        state.send_diagnostic(compile_diagnostic(e, original.name, state.user_file))
        return
    compiled = time.perf_counter()
    passes = dumps.passes()
    parsed = time.perf_counter()
    record = kernel_record(
        kernel,
        fn,
        t,
        launch=original.launch,
        config=original.config,
        compile_time_s=compiled - start,
        passes=passes,
    )
    state.send_kernel(f"replay/{original.display_name}", record)
    state.add_time("replay_compile_s", compiled - start)
    state.add_time("replay_parse_passes_s", parsed - compiled)
    state.add_time("replay_record_send_s", time.perf_counter() - parsed)
