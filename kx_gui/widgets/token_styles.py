"""Pygments tokens -> Qt text formats, and the colours of link bands."""

from __future__ import annotations

import functools

from pygments.lexer import Lexer
from pygments.styles import get_style_by_name
from pygments.token import Error, _TokenType
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextLayout

_STYLE = get_style_by_name("default")

# Light, distinct backgrounds for source-line bands (Compiler Explorer's idea: each source
# line and everything it became share one colour).
BAND_COLORS = [
    QColor(h)
    for h in (
        "#fde2e4",
        "#e2ece9",
        "#dfe7fd",
        "#fff1e6",
        "#e8f5d8",
        "#f0e6ef",
        "#d8f3f6",
        "#fbf3d5",
        "#e6e6fa",
        "#fce1f0",
    )
]
LINK_COLOR = QColor("#ffd54f")
LINK_BORDER = QColor("#f57f17")


def band_color(source_line: int) -> QColor:
    return BAND_COLORS[source_line % len(BAND_COLORS)]


@functools.cache
def char_format(token: _TokenType) -> QTextCharFormat | None:
    """The format of a token type in pygments' default style (None: plain text)."""
    if token in Error:
        return None
    # lexers make token types on the fly (LlvmLexer: Name.Variable.Anonymous) that the
    # style has no entry for: use the nearest ancestor it knows
    while not _STYLE.styles_token(token) and token.parent is not None:
        token = token.parent
    style = _STYLE.style_for_token(token)
    fmt = QTextCharFormat()
    plain = True
    if style["color"]:
        fmt.setForeground(QColor("#" + style["color"]))
        plain = False
    if style["bold"]:
        fmt.setFontWeight(QFont.Weight.Bold)
        plain = False
    if style["italic"]:
        fmt.setFontItalic(True)
        plain = False
    return None if plain else fmt


def line_formats(lexer: Lexer, text: str) -> list[QTextLayout.FormatRange]:
    """Format ranges for one line of text (positions in UTF-16 units, as Qt counts)."""
    ranges = []
    pos = 0
    for token, value in lexer.get_tokens(text):
        length = len(value.encode("utf-16-le")) // 2
        fmt = char_format(token)
        if fmt is not None and length:
            r = QTextLayout.FormatRange()
            r.start, r.length, r.format = pos, length, fmt
            ranges.append(r)
        pos += length
    return ranges
