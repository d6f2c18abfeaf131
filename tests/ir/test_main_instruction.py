"""The main instruction of a source line's links, on a real compile of the matmul example
for sm_90: the view lands on the HGMMA of `tl.dot`, the LDGSTS of a pipelined load and the
STG of the store, not on the first linked line (a move or address computation)."""

from __future__ import annotations

import pytest

from kx_core.ir.main_instruction import blocks, main_line, rank
from kx_core.ir.sourcemap import build_source_map
from kx_core.records.backends import ALL_STAGES
from kx_testing import kernel_path, line_of

MAIN = {  # source line -> stage -> what its main line holds
    "acc += tl.dot(a, b)": {"sass": "HGMMA", "ptx": "wgmma.mma_async", "llir": "wgmma.mma_async"},
    "a = tl.load(a_ptrs)": {"sass": "LDGSTS", "ptx": "cp.async", "ttgir": "async_copy_global_to_local"},
    "tl.store(c_ptrs": {"sass": "STG", "ptx": "st.global", "ttgir": "tt.store"},
}


@pytest.fixture(scope="module")
def matmul(capture):
    return capture("matmul.py").kernels[0]


def test_each_line_lands_on_its_main_instruction(matmul):
    """Wherever the instruction is among a line's links, it is the main one. (Which lines
    ptxas's line table gives an instruction to varies: triton 3.6's sm_90 SASS puts the
    HGMMA on the loop's lines, not on `tl.dot`'s.)"""
    sm = build_source_map(matmul.stages, str(kernel_path("matmul.py")))
    found = 0
    for needle, stages in MAIN.items():
        links = sm.ir_lines(line_of("matmul.py", needle))
        for stage, want in stages.items():
            text = matmul.stages[stage].split("\n")
            main = main_line(ALL_STAGES[stage].syntax, links[stage], text)
            assert not text[main - 1].lstrip().startswith("//"), (needle, stage)  # an instruction
            if any(want in text[n - 1] for n in links[stage]):
                found += 1
                assert want in text[main - 1], (needle, stage, text[main - 1])
                if stage == "sass":
                    assert want not in text[links["sass"][0] - 1]  # the first linked line is not it
    assert found >= 8


def test_never_executed_placeholders_rank_last():
    assert rank("sass", "/*0490*/ @!PT LDS RZ, [RZ] ;") > rank("sass", "/*04a0*/ MOV R1, R2 ;")
    assert rank("sass", "HGMMA.64x64x16.F32 R24, gdesc[UR12], RZ ;") < rank("sass", "LDG.E R2, [R4] ;")


def test_blocks_are_runs_of_consecutive_lines():
    assert blocks((12, 3, 4, 5, 9, 13, 4)) == ((3, 5), (9, 9), (12, 13))
    assert blocks(()) == ()
