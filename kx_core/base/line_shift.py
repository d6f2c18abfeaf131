"""Line numbers between two versions of one text (the build's source and the editor's).

While a broken edit keeps the last good build on screen, the build's line numbers are those
of the text it compiled, not of the text in the editor: a line added above a kernel moves
every link one line off. `LineShift` maps each line the two texts share (difflib's matching
blocks) and maps no other line, so an edited or new line links nowhere rather than to its
neighbour's operations.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LineShift:
    """1-based line numbers of `old` <-> `new` for the lines they share unchanged."""

    to_new: dict[int, int] = field(default_factory=dict)
    to_old: dict[int, int] = field(default_factory=dict)
    same: bool = True  # the two texts are one: every line maps to itself

    @staticmethod
    def between(old: str, new: str) -> LineShift:
        if old == new:
            return LineShift()
        a, b = old.splitlines(), new.splitlines()
        to_new: dict[int, int] = {}
        # autojunk off: a kernel file's blank and bracket lines are frequent, not noise
        for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
            for k in range(block.size):
                to_new[block.a + k + 1] = block.b + k + 1
        return LineShift(to_new, {n: o for o, n in to_new.items()}, same=False)

    def old_line(self, new_line: int) -> int | None:
        """The old text's line for a line of the new text; None for an edited or new line."""
        return new_line if self.same else self.to_old.get(new_line)

    def new_line(self, old_line: int) -> int | None:
        """The new text's line for a line of the old text; None for one edited or gone."""
        return old_line if self.same else self.to_new.get(old_line)
