"""Side-by-side line diffs with intraline changes, for IR before/after a pass or between
two stages, configs or targets.

`side_by_side(a, b)` aligns the two texts into rows (left line, right line, kind) and,
for lines that were replaced, the character spans that differ on each side. Line
numbers are 1-based; spans are (start, length) in characters.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

# SSA names, location aliases and numbered labels are renumbered by almost every pass;
# comparing with them masked shows what changed in substance. Examples: "%x_12", "#loc34",
# "^bb3", "!27".
_RENUMBERED_RE = re.compile(r"(%[A-Za-z_][\w$.]*?_|%|#loc|\^bb|!)\d+")


@dataclass(frozen=True)
class DiffRow:
    left: int | None  # 1-based line in the left text, None for an insertion
    right: int | None  # 1-based line in the right text, None for a deletion
    kind: str  # "equal" | "replace" | "delete" | "insert"


@dataclass(frozen=True)
class TextDiff:
    rows: tuple[DiffRow, ...]
    left_spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    right_spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    @property
    def changed_left(self) -> set[int]:
        return {r.left for r in self.rows if r.left is not None and r.kind != "equal"}

    @property
    def changed_right(self) -> set[int]:
        return {r.right for r in self.rows if r.right is not None and r.kind != "equal"}

    @property
    def identical(self) -> bool:
        return all(r.kind == "equal" for r in self.rows)


def _key(line: str, ignore_numbering: bool) -> str:
    line = line.strip()
    return _RENUMBERED_RE.sub(r"\1N", line) if ignore_numbering else line


def _intraline(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    left, right = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((i1, i2 - i1))
        if j2 > j1:
            right.append((j1, j2 - j1))
    return left, right


def side_by_side(a: str, b: str, ignore_numbering: bool = False) -> TextDiff:
    """Align two texts line by line; replaced lines get intraline spans."""
    la, lb = a.splitlines(), b.splitlines()
    ka = [_key(x, ignore_numbering) for x in la]
    kb = [_key(x, ignore_numbering) for x in lb]
    rows: list[DiffRow] = []
    left_spans: dict[int, list[tuple[int, int]]] = {}
    right_spans: dict[int, list[tuple[int, int]]] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [DiffRow(i + 1, j + 1, "equal") for i, j in zip(range(i1, i2), range(j1, j2))]
        elif tag == "delete":
            rows += [DiffRow(i + 1, None, "delete") for i in range(i1, i2)]
        elif tag == "insert":
            rows += [DiffRow(None, j + 1, "insert") for j in range(j1, j2)]
        else:
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                i = i1 + k if i1 + k < i2 else None
                j = j1 + k if j1 + k < j2 else None
                rows.append(DiffRow(None if i is None else i + 1, None if j is None else j + 1, "replace"))
                if i is not None and j is not None:
                    ls, rs = _intraline(la[i], lb[j])
                    left_spans[i + 1], right_spans[j + 1] = ls, rs
    return TextDiff(tuple(rows), left_spans, right_spans)
