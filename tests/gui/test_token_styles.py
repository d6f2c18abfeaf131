"""Qt formats for every token the stage lexers produce."""

from __future__ import annotations

from kx_core.ir.lexers import lexer_for_syntax


def test_every_token_of_every_real_stage_has_a_qt_format(capture, qapp):
    """The stage view asks a format for each token type a lexer yields, including types
    lexers invent (LlvmLexer's Name.Variable.Anonymous): none may raise."""
    from kx_core.records.backends import stages_for
    from kx_gui.widgets.token_styles import char_format

    for target in ("cuda:90", "hip:gfx942"):
        k = capture("matmul_autotune.py", target).kernels[0]
        for d in stages_for(k.target):
            if d.optional and d.name not in k.stages:  # Gluon IR, Helion's, CuTe IR: not a Triton kernel's
                continue
            for token, _ in lexer_for_syntax(d.syntax).get_tokens(k.stages[d.name]):
                char_format(token)
