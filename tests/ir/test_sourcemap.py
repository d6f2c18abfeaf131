"""Source maps on real compiles: a line of the inlined helper links to what it became
in every stage, and each linked line holds the instruction that line computes."""

from __future__ import annotations

import pytest

from kx_core.ir.sourcemap import build_source_map, line_locations
from kx_testing import KERNELS

FILE = str(KERNELS / "two_kernels.py")


def _line_of(needle: str) -> int:
    for i, text in enumerate((KERNELS / "two_kernels.py").read_text().splitlines(), start=1):
        if needle in text:
            return i
    raise AssertionError(needle)


@pytest.fixture(scope="module")
def row_sum(capture):
    return capture("two_kernels.py").kernels[1]


# What `return x * x` (the helper, inlined) becomes in each stage
SQUARE = {"ttir": "arith.mulf", "ttgir": "arith.mulf", "llir": "fmul", "ptx": "mul.f32", "sass": "FMUL"}


def test_helper_line_links_to_its_multiply_in_every_stage(row_sum):
    sm = build_source_map(row_sum.stages, FILE)
    links = sm.ir_lines(_line_of("return x * x"))
    assert set(links) == set(SQUARE)
    for stage, needle in SQUARE.items():
        texts = [row_sum.stages[stage].splitlines()[n - 1] for n in links[stage]]
        assert any(needle in t for t in texts), (stage, texts)


def test_inlined_lines_carry_their_call_site(row_sum):
    sm = build_source_map(row_sum.stages, FILE)
    helper, call = _line_of("return x * x"), _line_of("tl.sum(_square(x)")
    for stage in SQUARE:
        (ir_line,) = [
            n
            for n in sm.ir_lines(helper)[stage]
            if SQUARE[stage] in row_sum.stages[stage].splitlines()[n - 1]
        ][:1]
        chain = sm.source_lines(stage, ir_line)
        if stage == "sass" and "inlined at" not in row_sum.stages["sass"]:
            # Triton 3.6's PTX carries no inlined_at, so ptxas's line table has none:
            # the SASS knows the helper's line only
            assert chain == (helper,)
        else:
            assert chain == (helper, call), stage


def test_ir_line_counterparts_cover_every_stage(row_sum):
    sm = build_source_map(row_sum.stages, FILE)
    ttgir = row_sum.stages["ttgir"].splitlines()
    load = next(i for i, t in enumerate(ttgir, start=1) if "tt.load" in t)
    parts = sm.counterparts("ttgir", load)
    assert load in parts["ttgir"] and set(parts) == set(SQUARE)
    ptx = row_sum.stages["ptx"].splitlines()
    assert any("ld.global" in ptx[n - 1] for n in parts["ptx"])
    assert sm.source_lines("ttgir", load) == (_line_of("x = tl.load(x_ptr + row"),)


def test_every_kernel_line_is_mapped_somewhere(capture):
    for k in capture("two_kernels.py").kernels:
        sm = build_source_map(k.stages, FILE)
        assert sm.mapped_source_lines()
        for stage in ("ttir", "ttgir", "llir", "ptx", "sass"):
            assert line_locations(stage, k.stages[stage]), stage


def test_amdgcn_and_llir_on_hip(capture):
    k = capture("two_kernels.py", "hip:gfx942").kernels[1]
    sm = build_source_map(k.stages, FILE)
    links = sm.ir_lines(_line_of("return x * x"))
    amdgcn = k.stages["amdgcn"].splitlines()
    assert any("v_mul_f32" in amdgcn[n - 1] or "v_pk_mul_f32" in amdgcn[n - 1] for n in links["amdgcn"])
    assert any("fmul" in k.stages["llir"].splitlines()[n - 1] for n in links["llir"])


def test_unknown_and_fused_mlir_locations():
    text = (
        '#loc = loc("/k/a.py":3:1)\n#loc1 = loc(unknown)\n#loc2 = loc("/k/a.py":5:7)\n'
        "#loc3 = loc(fused[#loc, #loc2])\n"
        "  %0 = arith.addi %a, %b : i32 loc(#loc3)\n"
        "  %1 = arith.addi %a, %b : i32 loc(#loc1)\n"
        '  %2 = arith.addi %a, %b : i32 loc("n"(callsite(#loc2 at #loc)))\n'
    )
    sm = build_source_map({"ttir": text}, "/k/a.py")
    assert sm.source_lines("ttir", 5) == (3, 5)
    assert sm.source_lines("ttir", 6) == ()
    assert sm.source_lines("ttir", 7) == (5, 3)
