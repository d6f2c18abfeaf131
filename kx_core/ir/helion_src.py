"""The lines of a Helion source each line of Helion's generated Triton code came from.

Helion writes, above the code it generates for a statement, that statement's location:

    # src[helion_add.py:10]: out[tile] = x[tile] + y[tile]
    load = tl.load(x + (indices_0[:, None] * 1024 + indices_1[None, :] * 1), None)

Several comments in a row stand for a statement over several lines (`# src[f.py:9-11]:`
is a range). Every code line below them, up to the next such comment or the next
top-level `def`/`@`, came from those lines.
"""

from __future__ import annotations

import re

# Example: "    # src[helion_add.py:10]: out[tile] = x[tile] + y[tile]", "# src[k.py:9-11]: ..."
SRC_RE = re.compile(r"^\s*# src\[([^\]:]+):(\d+)(?:-(\d+))?\]:")
# Example: "from helion.runtime import default_launcher as _default_launcher"
_HELION_IMPORT_RE = re.compile(r"^from helion\.runtime import ", re.MULTILINE)


def is_helion_generated(text: str) -> bool:
    """Whether a module is Triton code Helion generated (it imports Helion's launcher
    and carries its src comments)."""
    return bool(_HELION_IMPORT_RE.search(text)) and "# src[" in text


def src_lines(text: str) -> dict[int, tuple[tuple[str, int], ...]]:
    """Generated line (1-based) -> the (file name, line) of the Helion source it came
    from, for every code line under a src comment."""
    out: dict[int, tuple[tuple[str, int], ...]] = {}
    current: list[tuple[str, int]] = []
    in_block = False  # the last line was a src comment: a next one adds to the same statement
    for number, line in enumerate(text.splitlines(), start=1):
        m = SRC_RE.match(line)
        if m:
            if not in_block:
                current = []
            first, last = int(m.group(2)), int(m.group(3) or m.group(2))
            current.extend((m.group(1), n) for n in range(first, last + 1))
            in_block = True
            continue
        in_block = False
        if line.startswith(("def ", "@", "class ")):  # a new top-level function
            current = []
            continue
        if current and line.strip() and not line.lstrip().startswith("#"):
            out[number] = tuple(current)
    return out


def line_map(src: dict[int, tuple[tuple[str, int], ...]], source_name: str) -> dict[int, tuple[int, ...]]:
    """Generated line -> lines of the source file named `source_name` (its base name, as
    Helion writes it), from src_lines' answer."""
    out: dict[int, tuple[int, ...]] = {}
    for number, locs in src.items():
        lines = tuple(n for name, n in locs if name == source_name)
        if lines:
            out[number] = lines
    return out
