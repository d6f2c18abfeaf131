"""Drill T1's tests, ported to kx's real IR fixtures (fixtures/ir/<triton>/<target>/,
captured by scripts/capture_ir_fixtures.py from kx_core/data/examples/vector_add.py and
matmul.py). Same kinds of assertion as the drill; the figures are what those compiles
produced, for every Triton version captured.

Where the port differs from the drill's own fixture: Triton lowers tl.program_id to
`llvm.nvvm.read.ptx.sreg.ctaid.x`, whose `ctaid` keeps the program_id concept alive in
LLVM IR, so it is not among the concepts that vanish at ttgir -> llir here."""

from __future__ import annotations

from collections import Counter

import pytest

from kx_core.ir import anatomy as t1
from kx_testing import ROOT

FIXTURES = sorted((ROOT / "fixtures" / "ir").glob("*/cuda*"))
AMPERE = [d for d in FIXTURES if d.name == "cuda80"]
HOPPER = [d for d in FIXTURES if d.name == "cuda90"]


def ids(dirs):
    return [f"{d.parent.name}-{d.name}" for d in dirs]


def read(d, name):
    return (d / name).read_text()


def test_fixtures_exist_for_both_targets():
    assert AMPERE and HOPPER and len(FIXTURES) == len(AMPERE) + len(HOPPER)


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_detect_stage(d):
    assert t1.detect_stage(read(d, "add.ttir.mlir")) == "ttir"
    assert t1.detect_stage(read(d, "add.ttgir.mlir")) == "ttgir"
    assert t1.detect_stage(read(d, "matmul.ttgir.mlir")) == "ttgir"
    assert t1.detect_stage(read(d, "matmul.llir.ll")) == "llir"
    assert t1.detect_stage(read(d, "matmul.ptx")) == "ptx"
    assert t1.detect_stage(read(d, "matmul.sass")) == "sass"


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_ops_and_dialects(d):
    ops = t1.mlir_ops(read(d, "add.ttir.mlir"))
    assert ops["tt.load"] == 2 and ops["tt.store"] == 1 and ops["tt.splat"] == 5
    assert ops["tt.addptr"] == 3 and ops["arith.addf"] == 1 and ops["tt.return"] == 1
    assert ops["tt.func"] == 1
    h = t1.dialect_histogram(read(d, "matmul.ttgir.mlir"))
    assert h["ttg"] >= 6 and h["scf"] == 2 and h["tt"] >= 3
    mm = t1.mlir_ops(read(d, "matmul.ttgir.mlir"))
    assert mm["ttg.convert_layout"] == 1 and mm["ttg.local_alloc"] == 2
    assert mm["ttg.async_copy_global_to_local"] == 6  # 3 stages x (A, B)
    if d.name == "cuda80":
        assert mm["tt.dot"] >= 1 and mm["ttg.local_load"] == 2 * mm["tt.dot"] + (2 if mm["tt.dot"] > 1 else 0)
    else:  # Hopper: the dot is a warp-group MMA reading shared memory directly
        assert mm["tt.dot"] == 0 and mm["ttng.warp_group_dot"] == 1


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_same_ops_ttir_vs_ttgir(d):
    # adding layouts must not change which ops exist in this simple kernel
    assert t1.mlir_ops(read(d, "add.ttir.mlir")) == t1.mlir_ops(read(d, "add.ttgir.mlir"))


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_layout_aliases(d):
    a = t1.layout_aliases(read(d, "matmul.ttgir.mlir"))
    assert a["#blocked1"] == {
        "kind": "blocked",
        "sizePerThread": [1, 8],
        "threadsPerWarp": [4, 8],
        "warpsPerCTA": [4, 1],
        "order": [1, 0],
    }
    assert a["#smem"] == {"kind": "shared_memory"}
    if d.name == "cuda80":
        assert a["#mma"] == {
            "kind": "nvidia_mma",
            "versionMajor": 2,
            "versionMinor": 0,
            "warpsPerCTA": [2, 2],
            "instrShape": [16, 8],
        }
        assert a["#shared"]["kind"] == "swizzled_shared" and a["#shared"]["vec"] == 8
    else:
        assert a["#mma"]["versionMajor"] == 3 and a["#mma"]["instrShape"] == [16, 64, 16]
        assert a["#shared"] == {
            "kind": "nvmma_shared",
            "swizzlingByteWidth": 64,
            "transposed": "false",
            "elementBitWidth": 16,
        }
    assert t1.layout_aliases(read(d, "add.ttir.mlir")) == {}


def test_parse_attr_body_nested():
    d = t1.parse_attr_body("opIdx = 0, parent = #mma, kWidth = 2")
    assert d == {"opIdx": 0, "parent": "#mma", "kWidth": 2}
    d = t1.parse_attr_body(
        "register = [[0, 1], [0, 2]], lane = [[1, 0]], parent = #ttg.blocked<{order = [1, 0]}>"
    )
    assert d == {"register": [[0, 1], [0, 2]], "lane": [[1, 0]], "parent": "#ttg.blocked<{order = [1, 0]}>"}


def test_old_spelling_and_inline_layouts():
    old = "#shared = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>\n"
    assert t1.layout_aliases(old)["#shared"]["kind"] == "swizzled_shared"
    line = (
        "%5 = triton_gpu.convert_layout %4 : tensor<64x32xf16, #blocked> -> "
        "tensor<64x32xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> loc(#loc9)"
    )
    assert t1.convert_layouts(line) == [
        ("#blocked", "#triton_gpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>")
    ]
    assert t1.parse_layout("#ttg.slice<{dim = 1, parent = #blocked}>") == {
        "kind": "slice",
        "dim": 1,
        "parent": "#blocked",
    }


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_convert_layouts(d):
    assert t1.convert_layouts(read(d, "matmul.ttgir.mlir")) == [("#mma", "#blocked1")]
    assert t1.convert_layouts(read(d, "add.ttgir.mlir")) == []


@pytest.mark.parametrize("d", AMPERE, ids=ids(AMPERE))
def test_ptx_instructions_ampere(d):
    p = t1.ptx_instructions(read(d, "matmul.ptx"))
    mma = p["mma"]
    (name,) = mma
    assert name == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert t1.mma_shape(name) == (16, 8, 16)
    # a 64x64x32 tile on 2x2 warps: each warp owns 32x32 = 2x4 m16n8 tiles, times 2 k16 steps
    assert sum(mma.values()) % 16 == 0
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in p["ldmatrix"]
    assert p["cp_async"]["cp.async.wait_group"] >= 1 and p["barrier"]["bar.sync"] >= 1
    assert p["global_vec"]["st.global.v4.b32"] == 4
    # the LLVM IR carries the same instructions as inline asm
    assert set(t1.ptx_instructions(read(d, "matmul.llir.ll"))["mma"]) == {name}


@pytest.mark.parametrize("d", HOPPER, ids=ids(HOPPER))
def test_ptx_instructions_hopper(d):
    p = t1.ptx_instructions(read(d, "matmul.ptx"))
    (name,) = p["mma"]
    assert name.startswith("wgmma.mma_async.sync.aligned.m64n64k16")
    assert t1.mma_shape(name) == (64, 64, 16)
    assert sum(p["mma"].values()) == 2  # BLOCK_K 32 = two k16 steps
    assert isinstance(p["ldmatrix"], Counter)


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_concept_diff_tells_the_story(d):
    stages = [
        (s, read(d, f))
        for s, f in [
            ("ttir", "matmul.ttir.mlir"),
            ("ttgir", "matmul.ttgir.mlir"),
            ("llir", "matmul.llir.ll"),
            ("ptx", "matmul.ptx"),
        ]
    ]
    diff = {(a, b): (app, gone) for a, b, app, gone in t1.concept_diff(stages)}
    app, gone = diff[("ttir", "ttgir")]
    assert "layout_encoding" in app and "shared_memory" in app and "async_copy" in app
    assert gone == (
        [] if d.name == "cuda80" else ["high_level_dot"]
    )  # Hopper: tt.dot became a warp-group dot
    app, gone = diff[("ttgir", "llir")]
    assert "mma_instruction" in app and "thread_id" in app
    assert {"block_tensor", "layout_encoding", "pointer_tensor"} <= set(gone)
    app, gone = diff[("llir", "ptx")]
    assert "virtual_registers" in app


def test_dump_stages_of_a_kx_kernel(capture):
    k = capture("vector_add.py").kernels[0]
    assert t1.dump_stages(k) == {s: k.stages[s] for s in ("ttir", "ttgir", "llir", "ptx")}


@pytest.mark.parametrize("d", FIXTURES, ids=ids(FIXTURES))
def test_concepts_survive_into_sass(d):
    """SASS spells the concepts its own way (HGMMA/HMMA, LDGSTS, LDS/STS/LDSM, BAR,
    SR_TID/SR_CTAID): only PTX's virtual registers vanish at PTX -> SASS."""
    ptx, sass = read(d, "matmul.ptx"), read(d, "matmul.sass")
    (*_, (_, _, appeared, vanished)) = t1.concept_diff([("ptx", ptx), ("sass", sass)])
    assert vanished == ["virtual_registers"] and appeared == []
    assert {"mma_instruction", "shared_memory", "async_copy", "barrier", "thread_id", "program_id"} <= (
        t1.concepts(sass)
    )


def test_concepts_in_amdgcn(capture):
    """A real gfx942 compile: MFMA, LDS (ds_*), barriers, work-group ids in AMDGCN."""
    (k,) = capture("matmul.py", target="hip:gfx942").kernels
    stages = [(s, k.stages[s]) for s in ("ttir", "ttgir", "llir", "amdgcn")]
    diff = {(a, b): (app, gone) for a, b, app, gone in t1.concept_diff(stages)}
    assert "mma_instruction" in diff[("ttgir", "llir")][0]
    assert diff[("llir", "amdgcn")] == ([], [])
    assert {"mma_instruction", "shared_memory", "barrier", "program_id", "thread_id"} <= t1.concepts(
        k.stages["amdgcn"]
    )
