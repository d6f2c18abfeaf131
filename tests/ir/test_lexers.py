"""kx's MLIR and SASS lexers read real stage text without error tokens."""

from __future__ import annotations

import pytest
from pygments.token import Error, Keyword, Name

from kx_core.ir.lexers import MlirLexer, SassLexer, lexer_for_syntax


@pytest.mark.parametrize("stage,syntax", [("ttir", "mlir"), ("ttgir", "mlir"), ("sass", "sass")])
def test_real_stages_lex_without_errors(capture, stage, syntax):
    for k in capture("matmul_autotune.py").kernels + capture("two_kernels.py").kernels:
        tokens = list(lexer_for_syntax(syntax).get_tokens(k.stages[stage]))
        assert not [v for t, v in tokens if t in Error]
        assert "".join(v for _, v in tokens) == k.stages[stage]


def test_mlir_tokens():
    line = "%x_4 = tt.addptr %x_3, %cols : tensor<256x!tt.ptr<f32>, #blocked> loc(#loc23)"
    toks = [(t, v) for t, v in MlirLexer().get_tokens(line) if v.strip()]
    assert (Name.Variable, "%x_4") in toks and (Keyword, "tt.addptr") in toks
    assert (Name.Constant, "#blocked") in toks
    for old_or_new in ("ttg.convert_layout", "triton_gpu.convert_layout"):
        assert (Keyword, old_or_new) in list(MlirLexer().get_tokens(old_or_new))


def test_sass_tokens():
    line = "        /*0070*/              @!P0 IMAD.SHL.U32 R17, R17, 0x400, RZ ;"
    toks = [(t, v) for t, v in SassLexer().get_tokens(line) if v.strip()]
    assert (Keyword, "IMAD.SHL.U32") in toks and (Name.Variable, "R17") in toks
    assert (Name.Builtin, "RZ") in toks
