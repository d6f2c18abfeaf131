"""triton-opt's -verify-diagnostics, from the text of the diagnostics the wheel prints.

MLIR's verifier handler is not in the wheel's bindings, but every diagnostic a parse or a
pass emits reaches fd 2 (or the exception) with its location, so kx checks them against the
file's annotations as MLIR does: each `expected-<severity>[@+N|@-N|@above|@below]
{{text}}` must be matched by a diagnostic of that severity on that line whose message
contains the text, and (unless `-verify-diagnostics=only-expected`) no other diagnostic may
be emitted. Line numbers are those of the part (`-split-input-file`) the playground ran.
One gap: the wheel prints a parse error without the notes MLIR attaches to it, so where
no note was printed, expected notes are not checked."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Example: 'loc("input":6:8): error: rank of source must be same as rank of result' (a parse)
# or 'input:12:1: remark: Shared memory size: 1024' (a pass, SourceMgr's format)
_EMITTED_RE = re.compile(
    r'^(?:loc\("[^"]*":(\d+):\d+\)|[^\s:]+:(\d+):\d+): (error|warning|note|remark): (.*)$', re.M
)
# Example: "// expected-error @+1 {{rank of source must be same as rank of result}}"
_EXPECTED_RE = re.compile(
    r"expected-(error|warning|note|remark)\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass(frozen=True)
class Expected:
    line: int  # the line the diagnostic must be on
    severity: str
    text: str
    written_at: int  # the annotation's own line


def emitted(text: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of every located diagnostic in the text, once each."""
    out = []
    for m in _EMITTED_RE.finditer(text):
        item = (int(m.group(1) or m.group(2)), m.group(3), m.group(4).strip())
        if item not in out:
            out.append(item)
    return out


def expected(source: str) -> list[Expected]:
    out = []
    for no, line in enumerate(source.splitlines(), start=1):
        for m in _EXPECTED_RE.finditer(line):
            where = m.group(2)
            offset = (
                {"above": -1, "below": 1, None: 0}[where] if where in ("above", "below", None) else int(where)
            )
            out.append(Expected(no + offset, m.group(1), m.group(3), no))
    return out


def verify(source: str, diagnostics_text: str, only_expected: bool = False) -> list[str]:
    """What differs between the annotations of `source` and the diagnostics emitted (empty
    when they agree), in MLIR's words."""
    wanted = expected(source)
    printed = emitted(diagnostics_text)
    problems = []
    for line, severity, message in printed:
        hit = next(
            (e for e in wanted if (e.line, e.severity) == (line, severity) and e.text in message), None
        )
        if hit is not None:
            wanted.remove(hit)
        elif not only_expected:
            problems.append(f"line {line}: unexpected {severity}: {message}")
    if not any(severity == "note" for _, severity, _ in printed):
        # the wheel prints a parse error without the notes attached to it: a note cannot be
        # checked when none was printed (its error was)
        wanted = [e for e in wanted if e.severity != "note"]
    problems += [
        f'line {e.written_at}: expected {e.severity} "{e.text}" was not produced (on line {e.line})'
        for e in wanted
    ]
    return problems
