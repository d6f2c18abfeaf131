"""Hover help for PTX and SASS (issue 31): every instruction of the bundled examples'
real sm_90 compiles has its line."""

from __future__ import annotations

import pytest

from kx_core.ir.instruction_help import help_for, help_for_line, opcode

EXAMPLES = (
    "vector_add.py",
    "fused_softmax.py",
    "matmul.py",
    "matmul_autotune.py",
    "two_kernels.py",
    "checked_softmax.py",
)


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_instruction_of_the_examples_has_help(capture, example):
    missing = set()
    seen = 0
    for k in capture(example).kernels:
        for syntax in ("ptx", "sass"):
            for line in k.stages.get(syntax, "").splitlines():
                op = opcode(syntax, line)
                if op:
                    seen += 1
                    if help_for(syntax, op) is None:
                        missing.add((syntax, op))
    assert seen > 50 and not missing


def test_lines_are_read_by_their_opcode():
    assert (
        opcode("ptx", "\t@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];") == "ld.global.v4.b32"
    )
    assert help_for_line("ptx", "\t@%p1 ld.global.v4.b32 { %r1 }, [ %rd1 + 0 ];").startswith("ld.global")
    assert opcode("ptx", "\t.reg .b32 \t%r<10>;") is None and opcode("ptx", "$L__BB0_2:") is None
    line = "        /*0090*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
    assert opcode("sass", line) == "LDG.E.128" and help_for_line("sass", line).startswith("LDG")
    assert help_for("sass", "IMAD.WIDE.U32").startswith("IMAD")
