"""Compiles that do not go through `JITFunction.run`: `triton.compile` called directly.

PyTorch Inductor (torch.compile, and the `output_code.py` modules it writes) compiles
every config of every kernel it generates with `triton.compile(ASTSource(...))` and
launches the result through the compiled kernel's own launcher; so do libraries that
compile ahead of time. The hook here records each such compile as a kernel of the file,
with the autotune config Inductor was compiling (inductor_capture.compiling()), and a
launch record whose grid the first launch fills in (capture_driver's direct launches).

Where the generated kernel's text stands in the user's file (an `output_code.py` keeps
each kernel's module in a string), the record names the user's file and the line offset
of that string (`source_alias`), so its lines link to the string's lines. A kernel
Inductor generated for a torch.compile script names the script's lines its graph nodes
came from (`source_origins`, inductor_origins.py).

Runs only inside the capture worker; capture.py passes its state's `send_kernel`.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from kx_core.compile.artifacts.kernel_record import config_of, jsonable_value, kernel_record
from kx_core.compile.capturing import capture_state
from kx_core.compile.capturing.capture_driver import LAUNCH_LOG
from kx_core.compile.capturing.device.placeholders import LEDGER
from kx_core.compile.capturing.jit_objects import failed_record, pass_dumps
from kx_core.compile.capturing.languages import inductor_capture, inductor_origins
from kx_core.records.results import CompiledKernel, Launch, LaunchArg, Target


class _KxCompiling(threading.local):
    depth = 0


_KX = _KxCompiling()


@contextlib.contextmanager
def not_recorded() -> Iterator[None]:
    """kx's own triton.compile calls (its warm-up, direct mode, a replay) are not the
    file's: they record their kernels themselves, or none."""
    _KX.depth += 1
    try:
        yield
    finally:
        _KX.depth -= 1


def install(target: Target, user_file: str, send_kernel: Callable[[str, CompiledKernel], None]) -> None:
    """Route triton.compile through the recorder (JITFunction.run's own compiles pass by:
    capture.py records those with their launch)."""
    import triton
    import triton.compiler
    import triton.compiler.compiler as compiler

    original = compiler.compile

    def compile(src: Any, target_: Any = None, options: Any = None, *args: Any, **kwargs: Any) -> Any:
        if "target" in kwargs:
            target_ = kwargs.pop("target")
        if LAUNCH_LOG.in_jit or _KX.depth:
            return original(src, target_, options, *args, **kwargs)
        started = time.perf_counter()
        fn = getattr(src, "fn", None)
        try:
            with pass_dumps(capture_state.STATE.passes) as dumps:
                kernel = original(src, target_, options, *args, **kwargs)
        except Exception as exc:
            # a compile that raised (Triton's front end refusing a kernel Inductor wraps: a
            # user's kernel whose loop-carried float changes type) is a failed kernel of the
            # file, as a real run's record has it, before the error goes on to its caller
            if fn is not None and hasattr(fn, "params"):
                send_kernel(*failed_record(fn, exc, _config_compiling()))
            raise
        if fn is not None and hasattr(fn, "params"):
            text = _user_text(user_file)
            key, record = _record(kernel, fn, target, user_file, text, time.perf_counter() - started)
            # (a compile after a placeholder the file or Inductor decided on, e.g. a
            # max-autotune or pad_mm timing, may differ from a real run's, as a launch may)
            record = replace(record, passes=dumps.passes(), after_placeholder=LEDGER.first)
            send_kernel(key, record)
        return kernel

    compiler.compile = compile
    triton.compiler.compile = compile
    triton.compile = compile


def _user_text(path: str) -> str:
    """The user's file as it runs: unsaved text given to run_as_main sits in linecache."""
    import linecache

    if path in linecache.cache and linecache.cache[path][1] is None:
        return "".join(linecache.cache[path][2])
    return _read(path)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _config_compiling() -> Any:
    """The autotune config Inductor is compiling (its record's `config`), or None."""
    current = inductor_capture.compiling()
    return config_of(current.config, current.index) if current else None


def _record(
    kernel: Any, fn: Any, target: Target, user_file: str, user_text: str, elapsed: float
) -> tuple[str, CompiledKernel]:
    current = inductor_capture.compiling()
    config = _config_compiling()
    record = kernel_record(kernel, fn, target, config=config, compile_time_s=elapsed)
    record = replace(record, launch=_unlaunched(kernel, fn))
    record = _aliased(record, fn, user_file, user_text)
    if lines := inductor_origins.model_lines(record.source_file):
        record = replace(record, source_origins={record.source_file: lines})
    h = record.metadata.hash if record.metadata else None
    key = f"{h}/{config.index if config else '-'}"
    if current is not None:
        inductor_capture.recorded(current, key)
    return key, record


def _unlaunched(kernel: Any, fn: Any) -> Launch:
    """A launch record without a grid yet (the first launch sets it): the arguments as
    the signature types them, the constexprs as compiled."""
    src = kernel.src
    names = [p.name for p in fn.params]
    constants = {
        names[k[0]] if isinstance(k, tuple) and k and k[0] < len(names) else str(k): jsonable_value(v)
        for k, v in getattr(src, "constants", {}).items()
    }
    args = []
    for name, ty in getattr(src, "signature", {}).items():
        ty = str(ty)
        if ty == "constexpr":
            args.append(LaunchArg(name, "constexpr", value=constants.get(name)))
        elif ty.startswith("*"):
            args.append(LaunchArg(name, "tensor", dtype=ty[1:]))
        else:
            args.append(LaunchArg(name, "int" if ty.startswith(("i", "u")) else "float", dtype=ty))
    md = kernel.metadata
    return Launch(
        grid=(0, 0, 0),
        args=tuple(args),
        constexprs=constants,
        num_warps=int(md.num_warps),
        num_stages=int(md.num_stages),
        warmup=True,
    )


def _aliased(record: CompiledKernel, fn: Any, user_file: str, user_text: str) -> CompiledKernel:
    """The record pointed at the user's file where the kernel's generated module is a
    string in it (an Inductor output_code.py): lines of the generated file are lines of
    that string, `offset` lines further down."""
    generated = record.source_file
    if not generated or not user_text or os.path.realpath(generated) == os.path.realpath(user_file):
        return record
    text = _read(generated)
    start = user_text.find(text) if len(text) > 40 else -1
    if start < 0:
        return record
    offset = user_text.count("\n", 0, start)
    line = record.source_line + offset if record.source_line else None
    return replace(record, source_file=user_file, source_line=line, source_alias={generated: offset})
