"""kx's term syntax for the e-graph lab: s-expressions. `(+ (* x y) (* x z))` is the term
("+", ("*", "x", "y"), ("*", "x", "z")); integers are numbers, other atoms strings,
`?a` a pattern variable."""

from __future__ import annotations

import re

# Example tokens: "(", ")", "+", "?a", "x0", "1"
_TOKEN_RE = re.compile(r"\(|\)|[^\s()]+")


def parse_term(text: str):
    """One s-expression -> a kx term. ValueError with the position on malformed input."""
    tokens = [(m.group(), m.start()) for m in _TOKEN_RE.finditer(text)]
    if not tokens:
        raise ValueError("empty term")
    pos = 0

    def atom(tok):
        return int(tok) if re.fullmatch(r"-?\d+", tok) else tok

    def parse():
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("the term ends early: a ')' is missing")
        tok, at = tokens[pos]
        pos += 1
        if tok == ")":
            raise ValueError(f"unexpected ')' at character {at}")
        if tok != "(":
            return atom(tok)
        if pos >= len(tokens) or tokens[pos][0] in "()":
            raise ValueError(f"an operator must follow '(' at character {at}")
        op = tokens[pos][0]
        pos += 1
        kids = []
        while pos < len(tokens) and tokens[pos][0] != ")":
            kids.append(parse())
        if pos >= len(tokens):
            raise ValueError(f"the '(' at character {at} is never closed")
        pos += 1
        return (op, *kids)

    term = parse()
    if pos != len(tokens):
        raise ValueError(f"text after the term at character {tokens[pos][1]}")
    return term


def format_term(term) -> str:
    if isinstance(term, tuple):
        return "(" + " ".join([str(term[0])] + [format_term(t) for t in term[1:]]) + ")"
    return str(term)
