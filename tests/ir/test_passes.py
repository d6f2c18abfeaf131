"""Pass dumps: parsing real captured MLIR dumps, and --passes on a real compile."""

from __future__ import annotations

import gzip

import pytest

from kx_core.ir.anatomy import mlir_ops
from kx_core.ir.passes import PassDumpError, parse_pass_dump
from kx_testing import ROOT

DUMPS = sorted((ROOT / "fixtures" / "ir").glob("*/cuda*/matmul.passes.txt.gz"))


@pytest.mark.parametrize("path", DUMPS, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in DUMPS])
def test_real_mlir_pass_dump(path):
    text = gzip.decompress(path.read_bytes()).decode()
    pipeline = parse_pass_dump(text)
    passes = pipeline.passes
    regular = [p for p in passes if p.kind == "mlir"]
    assert len(regular) == text.count("// -----// IR Dump Before")
    assert len(passes) - len(regular) == text.count(" internal IR Dump After: ")
    names = [p.name for p in regular]
    # the TTIR -> TTGIR conversion happens once, after the TTIR pipeline
    convert = names.index("ConvertTritonToTritonGPU")
    assert regular[convert].changed and regular[convert].pipeline == 1
    assert all(p.pipeline == 0 for p in regular[:convert])
    # before the conversion there is no layout; after it there is
    assert "#ttg.blocked" not in regular[convert].ir and "#ttg.blocked" in regular[convert + 1].ir
    assert names.index("TritonGPUCoalesce") > convert
    # the pass that introduces the async copies (the software pipeliner's work) is
    # marked changed, inside the TTGIR pipeline
    copies = [mlir_ops(p.ir)["ttg.async_copy_global_to_local"] for p in regular]
    first = next(i for i in range(len(regular) - 1) if copies[i] == 0 and copies[i + 1] > 0)
    assert regular[first].changed and regular[first].pipeline == 1
    assert "Pipeline" in regular[first].name
    # per-function dumps carry the function; MLIR timing gives most passes a time
    assert any(p.function == "matmul_kernel" for p in passes)
    assert sum(p.time_s is not None for p in passes) > len(passes) // 2
    # a pass that is re-run with nothing left to do is not 'changed'
    assert any(not p.changed for p in passes) and any(p.changed for p in passes)


def test_not_a_dump():
    with pytest.raises(PassDumpError):
        parse_pass_dump("module {\n}\n")


def test_passes_on_a_real_compile(capture):
    r = capture("vector_add.py", passes=True)
    (k,) = r.kernels
    kinds = {p.kind for p in k.passes}
    assert {"mlir", "llvm"} <= kinds
    mlir = [p for p in k.passes if p.kind == "mlir"]
    assert [p.argument for p in mlir][:1] == ["inline"]  # named Inliner or InlinerPass by version
    coalesce = next(p for p in mlir if p.argument == "tritongpu-coalesce")
    assert coalesce.changed
    llvm = [p for p in k.passes if p.kind == "llvm"]
    assert llvm and all(p.changed for p in llvm[1:])
    # the stages are the same as without --passes
    assert k.stages["ttgir"] == capture("vector_add.py").kernels[0].stages["ttgir"]


@pytest.mark.parametrize("path", DUMPS, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in DUMPS])
def test_timing_report_rule_is_not_ir(path):
    # MLIR prints its timing report's "===---===" rule straight after the last dump of a
    # pass-manager run: it is no pass's IR, and the last passes of a run (SymbolDCE,
    # TritonLoopUnroll at the end of the TTIR run) are not "changed" by it
    text = gzip.decompress(path.read_bytes()).decode()
    assert text.count("... Execution time report ...") >= 2
    passes = parse_pass_dump(text).passes
    assert not [p.name for p in passes if "===-" in p.ir]
    ttir = [p for p in passes if p.kind == "mlir" and p.pipeline == 0]
    assert ttir[-1].argument == "triton-loop-unroll" and not ttir[-1].changed
    assert ttir[-2].argument == "symbol-dce" and not ttir[-2].changed
    assert all(p.ir.rstrip().endswith("}") or "#loc" in p.ir.splitlines()[-1] for p in ttir)
