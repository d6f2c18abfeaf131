"""The first kernel's first IR stage, sent while Triton goes on compiling it (issue 51).

A file's first stages on screen wait for its first kernel's whole compile (TTGIR, LLVM,
PTX, ptxas), or for an autotuned kernel's first config among several compiled at once:
most of a small file's wait. Triton writes each stage to its cache manager as it makes
it (`triton.compiler.compile`: `fn_cache_manager.put(next_module, "<name>.<stage>")`),
and kx's manager (checked_cache) tells `on_put`: the first of Triton's own IR stages
(TTIR; a Gluon kernel's TTGIR) of the kernel a launch is compiling goes out at once as a
`StageEarly` record, status "compiling", while nothing of the file has compiled yet.
The finished record replaces it; a result never holds it.

Only the worker imports this module.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kx_core.compile.capturing import capture_state, checked_cache
from kx_core.compile.wire import protocol
from kx_core.records.backends import compiler_stages

# the record's message (a stage tab without text: "// no PTX: add_kernel: compiling: ...")
COMPILING = "its later stages follow when Triton has made them"


def install(writer: Any) -> None:
    """Send early stages through `writer` (the worker's own; a forked config child
    gets its own pipe: `send_through`)."""
    capture_state.STATE.early_writer = writer
    checked_cache.ON_PUT = _on_put


def send_through(writer: Any) -> None:
    """In a forked child: early stages go through `writer`, or nowhere (None)."""
    capture_state.STATE.early_writer = writer


def _on_put(filename: str, data: bytes) -> None:
    state = capture_state.STATE
    if state is None or state.early_writer is None or state.compiling is None or state.compiled_keys:
        return
    # "<kernel name>.<stage>" (Triton truncates the name, never the suffix): "add_kernel.ttir"
    stage = filename.rpartition(".")[2]
    if stage not in compiler_stages():
        return
    fn, config = state.compiling
    record = capture_state.uncompiled_record(fn, "compiling", COMPILING, config)
    record = replace(record, stages={stage: data.decode("utf-8", errors="replace")})
    writer, state.early_writer = state.early_writer, None  # once: the first kernel's first stage
    try:
        writer.send(protocol.StageEarly(record.to_json()))
    except OSError:  # the parent stopped reading: the finished record still comes
        pass
