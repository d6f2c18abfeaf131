"""Pygments lexers for the stages pygments does not know: MLIR with Triton's dialects,
and SASS as kx prints it. Plain pygments classes (no Qt), usable from any front end;
`lexer_for_stage` picks the lexer of each Stage's syntax."""

from __future__ import annotations

from pygments.lexer import Lexer, RegexLexer, bygroups, include
from pygments.lexers import get_lexer_by_name
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

# Triton's and MLIR's dialect prefixes as printed in TTIR/TTGIR (both spellings of the
# GPU dialect: ttg. since Triton 3.2, triton_gpu. before).
_DIALECTS = (
    "tt|ttg|ttng|triton_gpu|triton_nvidia_gpu|amdgpu|rocdl|nvvm|nvgpu|gpu|llvm|arith|math|"
    "scf|cf|func|builtin|ub|tensor|memref|vector|affine|index|proton|gluon"
)


class MlirLexer(RegexLexer):
    """MLIR as Triton prints it: TTIR, TTGIR and the other MLIR dumps.

    Example line: `%x_4 = tt.addptr %x_3, %cols : tensor<256x!tt.ptr<f32>, #blocked> loc(#loc23)`
    """

    name = "MLIR (Triton)"
    aliases = ["mlir", "ttir", "ttgir"]
    filenames = ["*.mlir", "*.ttir", "*.ttgir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            # location attachments are noise when reading the IR: dim them
            (r"\bloc\(", Comment.Special, "loc"),
            (r'"(\\\\|\\"|[^"])*"', String),
            (r"%[\w.$#:-]+", Name.Variable),
            (r"\^[\w.$-]+", Name.Label),
            (r"@[\w.$\"-]+", Name.Function),
            (r"#[\w.$-]+", Name.Constant),
            (r"!\w+(\.\w+)*", Keyword.Type),
            (rf"\b(?:{_DIALECTS})\.[a-z_][\w.]*", Keyword),
            (r"\b(?:tensor|memref|vector|ptr)\b", Keyword.Type),
            (r"\b(?:[iuf]\d+|bf16|f8E\w+|index|none)\b", Keyword.Type),
            (
                r"\b(?:module|attributes|public|private|dense|true|false|to|step|iter_args|unknown)\b",
                Keyword.Reserved,
            ),
            (r"-?0x[0-9a-fA-F]+", Number.Hex),
            (r"-?\d+\.\d*(?:[eE][-+]?\d+)?", Number.Float),
            (r"-?\d+", Number.Integer),
            (r"->|=|:|x(?=[\d!])", Operator),
            (r"[()\[\]{}<>,]", Punctuation),
            (r"[\w.$-]+", Text),
            (r".", Text),
        ],
        "loc": [
            (r"\(", Comment.Special, "#push"),
            (r"\)", Comment.Special, "#pop"),
            (r'"(\\\\|\\"|[^"])*"', Comment.Special),
            (r"[^()\"]+", Comment.Special),
        ],
    }


class SassLexer(RegexLexer):
    """NVIDIA SASS as `nvdisasm -c -gi` or `cuobjdump -sass` print it.

    Example line: `        /*0070*/              @!P0 IMAD.SHL.U32 R17, R17, 0x400, RZ ;`
    """

    name = "SASS"
    aliases = ["sass"]
    filenames = ["*.sass"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//##.*?$", Comment.Preproc),
            (r"//.*?$", Comment.Single),
            (r"/\*[0-9a-fA-F]+\*/", Comment.Multiline),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"\.[\w$]+:", Name.Label),
            (r"\.[a-z_][\w]*", Keyword.Pseudo),
            (r"(@!?U?P[T\d]+)(\s+)", bygroups(Keyword.Constant, Whitespace), "instruction"),
            (r"[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*", Keyword, "operands"),
            (r"[\w.$]+:", Name.Label),
            (r'"[^"]*"', String),
            (r".", Text),
        ],
        "instruction": [
            (r"[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*", Keyword, ("#pop", "operands")),
        ],
        "operands": [
            (r";", Punctuation, "#pop"),
            (r"\n", Whitespace, "#pop"),
            include("operand"),
        ],
        "operand": [
            (r"[ \t]+", Whitespace),
            (r"\b(?:RZ|URZ|PT|UPT|SRZ)\b", Name.Builtin),
            (r"!?\bU?R\d+(?:\.\w+)*", Name.Variable),
            (r"!?\bU?P\d+\b", Name.Variable),
            (r"\bSR_[\w.]+", Name.Builtin),
            (r"\bc\[0x[0-9a-f]+\]\[0x[0-9a-f]+\]", Name.Constant),
            (r"\bgdesc\[[^\]]*\]", Name.Constant),
            (r"\.L_x_\d+", Name.Label),
            (r"`\([^)]*\)", Name.Label),
            (r"-?0x[0-9a-fA-F]+", Number.Hex),
            (r"-?\d+\.\d+(?:e[-+]?\d+)?", Number.Float),
            (r"-?\d+", Number.Integer),
            (r"[\[\]{}(),|~+\-]", Punctuation),
            (r"[\w.$]+", Text),
            (r".", Text),
        ],
    }


_BY_SYNTAX = {"mlir": MlirLexer, "sass": SassLexer}


def lexer_for_syntax(syntax: str) -> Lexer:
    """A lexer for a Stage's syntax name ('mlir', 'sass', or a pygments alias).
    AMDGCN uses pygments' GNU assembler lexer: its AMDGPU lexer stumbles on every
    directive Triton's AMDGCN carries."""
    if syntax in _BY_SYNTAX:
        return _BY_SYNTAX[syntax](stripnl=False, ensurenl=False)
    return get_lexer_by_name(syntax, stripnl=False, ensurenl=False)
