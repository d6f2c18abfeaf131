"""kx's pass recorder (issue 32, item 3) against its oracle, Triton's own MLIR dump: the
same kernel, each recorded pass's name and input IR as MLIR_ENABLE_DUMP prints them."""

from __future__ import annotations

import hashlib
import os

import pytest

from kx_core.compile.capturing.pass_recorder import flat_pipeline
from kx_testing import kernel_path


def test_a_textual_pipeline_flattens_to_its_passes():
    text = "any(inline{default-pipeline=canonicalize max-iterations=4 },llvm.func(a,b{x=1,2}),cse)"
    assert flat_pipeline(text) == [
        "inline{default-pipeline=canonicalize max-iterations=4 }",
        "llvm.func/a",
        "llvm.func/b{x=1,2}",
        "cse",
    ]
    # MLIR merges adjacent passes nested under one op: flattened, the two spellings agree
    assert flat_pipeline("any(llvm.func(a),llvm.func(b))") == flat_pipeline("any(llvm.func(a,b))")


def _compiled(monkeypatch, how: str, name: str = "matmul.py"):
    from kx_core.compile import CompileRequest, compile_file

    monkeypatch.setenv("KX_PASS_CAPTURE", how)
    request = CompileRequest(str(kernel_path(name)), target="cuda:90", passes=True, llvm_passes=False)
    result = compile_file(request, use_cache=False)
    (kernel,) = [k for k in result.kernels if k.passes]
    return kernel


@pytest.fixture(scope="module")
def both():
    with pytest.MonkeyPatch.context() as mp:
        recorded = _compiled(mp, "record")
        dumped = _compiled(mp, "dump")
    return recorded, dumped


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_recording_compiles_the_same_kernel(both):
    recorded, dumped = both
    assert _sha(recorded.stages["ptx"]) == _sha(dumped.stages["ptx"])
    assert recorded.stages["ttgir"] == dumped.stages["ttgir"]


def _same_input(recorded, dumped) -> bool:
    """The dump printed exactly the recorded input: the module, or for a pass nested
    under a function (the dump prints it per function) that function, found in it."""
    from kx_core.ir.passes import comparable_lines

    if dumped.function is None:
        return dumped.ir == recorded.ir
    needle, haystack = comparable_lines(dumped.ir), comparable_lines(recorded.ir)
    return any(haystack[i : i + len(needle)] == needle for i in range(len(haystack)))


def test_each_recorded_pass_is_the_dumps_with_the_same_input(both):
    """Every recorded MLIR pass is one of the dump's, in order, by name and stage, with
    the text the dump printed before it. The dump has more: the pipelines a pass runs
    inside itself (the inliner's canonicalizer), which the recorder shows as part of
    their pass."""
    recorded, dumped = both
    mine = [p for p in recorded.passes if p.kind == "mlir"]
    theirs = [p for p in dumped.passes if p.kind == "mlir"]
    assert len(mine) > 50
    j = 0
    matched = []
    for p in mine:
        while j < len(theirs) and not (
            (theirs[j].name, theirs[j].pipeline) == (p.name, p.pipeline) and _same_input(p, theirs[j])
        ):
            j += 1
        assert j < len(theirs), f"{p.name} (stage {p.pipeline}) with its input is not in Triton's dump"
        matched.append((p, j))
        j += 1
    # the names are MLIR's own (the dump's headers), not the pass's flag
    assert {"TritonGPUCoalesce", "TritonGPUPipeline", "ConvertTritonGPUToLLVM"} <= {p.name for p in mine}
    # where the dump's next module-scope pass is the next recorded one, both agree on
    # whether this pass changed the IR
    agree = [
        p.changed == theirs[j].changed
        for (p, j), (_, k) in zip(matched, matched[1:])
        if k == j + 1 and theirs[j].function is None and theirs[k].function is None
    ]
    assert len(agree) > 40 and all(agree)
    # the pipeliner's own steps follow it, as in the dump
    steps = [p.name for p in recorded.passes if p.kind == "internal"]
    assert steps == [p.name for p in dumped.passes if p.kind == "internal"] and steps


def test_a_pass_added_outside_the_bindings_runs_its_stage_whole():
    """A pass kx did not see added (a plugin's own binding) would be skipped if kx ran
    the recorded passes only: the stage runs as built, and the recorder says so."""
    from triton._C.libtriton import ir, passes

    from kx_core.compile.capturing import pass_recorder

    context = ir.context()
    ir.load_dialects(context)
    recorder = pass_recorder.PassRecorder(fd=os.open(os.devnull, os.O_RDONLY))
    saved = pass_recorder.install(recorder)
    try:
        pm = ir.pass_manager(context)
        passes.common.add_cse(pm)  # seen
        passes.common.add_canonicalizer.__wrapped__(pm)  # not seen
        module = ir.builder(context).create_module()
        pm.run(module, "a test stage")
    finally:
        pass_recorder.uninstall(saved)
        os.close(recorder.fd)
    assert recorder.unrecorded and "a test stage" in recorder.unrecorded[0]
    assert recorder.passes == []
    assert not hasattr(passes.common.add_cse, "__wrapped__")  # uninstalled
