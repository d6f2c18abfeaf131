"""GCC's vectorization remarks (`-fopt-info-vec-all=FILE`), per source line.

    add.cpp:14:14: optimized: loop vectorized using 32 byte vectors
    add.cpp:9:18: missed: couldn't vectorize loop
    /usr/lib/gcc/.../avxintrin.h:905:23: missed: not vectorized: no vectype for stmt: ...

Kept: the `optimized` and `missed` remarks on lines of the user's file (not the
analysis `note`s, not the headers'); the stage text is one remark per line,
`file:line:col: vectorized (32-byte vectors)` or `file:line:col: not vectorized: why`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable

# Example: "add.cpp:14:14: optimized: loop vectorized using 32 byte vectors"
_REMARK_RE = re.compile(r"^(.+?):(\d+):(\d+): (optimized|missed): (.*)$")
# Example: "loop vectorized using 32 byte vectors"
_WIDTH_RE = re.compile(r"vectorized using (\d+) byte vectors")


# A line of the Vectorization stage, as VectorRemark.text writes it.
# Examples: "add.cpp:14:14: vectorized (32-byte vectors): loop vectorized using 32 byte vectors",
# "ext.cpp:15:27: not vectorized [kx_ext::silu_mul_row inlined at line 38]: loop contains ..."
_STAGE_RE = re.compile(r"^.+?:(\d+):\d+: (vectorized|not vectorized)\b")


@dataclass(frozen=True)
class VectorRemark(Jsonable):
    line: int
    column: int
    vectorized: bool
    message: str  # GCC's words
    width_bytes: int | None = None  # 32 for a loop vectorized with 256-bit vectors
    # the function whose code holds the loop (mangled; "" when only -fopt-info said it)
    function: str = ""
    # how the loop came to be there: "scale_row inlined at line 41" ("" when it did not)
    inlined: str = ""

    def text(self, file: str) -> str:
        # how the loop got here comes before GCC's words: a long reason must not hide it
        where = f" [{self.inlined}]" if self.inlined else ""
        if self.vectorized:
            width = f" ({self.width_bytes}-byte vectors)" if self.width_bytes else ""
            return f"{os.path.basename(file)}:{self.line}:{self.column}: vectorized{width}{where}: {self.message}"
        why = self.message.removeprefix("not vectorized: ")  # GCC's own words often start so
        return f"{os.path.basename(file)}:{self.line}:{self.column}: not vectorized{where}: {why}"


def parse_remarks(text: str, source: str) -> list[VectorRemark]:
    out: list[VectorRemark] = []
    seen: set[tuple] = set()
    for raw in text.splitlines():
        m = _REMARK_RE.match(raw.strip())
        if not m or os.path.basename(m.group(1)) != os.path.basename(source):
            continue
        line, col, kind, message = int(m.group(2)), int(m.group(3)), m.group(4), m.group(5).strip()
        width = _WIDTH_RE.search(message)
        remark = VectorRemark(line, col, kind == "optimized", message, int(width.group(1)) if width else None)
        key = (remark.line, remark.column, remark.vectorized, remark.message)
        if key not in seen:
            seen.add(key)
            out.append(remark)
    return out


def remarks_text(remarks: list[VectorRemark], source: str) -> str:
    """The Vectorization stage: one remark per line, in source order."""
    ordered = sorted(remarks, key=lambda r: (r.line, r.column, not r.vectorized))
    return "\n".join(r.text(source) for r in ordered) + ("\n" if remarks else "")


def line_marks(stage_texts) -> dict[int, tuple[bool, str]]:
    """Source line -> (any loop there vectorized, its remarks joined) from Vectorization
    stage texts: the Source pane's gutter marks."""
    lines: dict[int, list[tuple[bool, str]]] = {}
    for text in stage_texts:
        for raw in text.splitlines():
            m = _STAGE_RE.match(raw)
            if m:
                remark = raw.split(": ", 1)[1] if ": " in raw else raw
                lines.setdefault(int(m.group(1)), []).append((m.group(2) == "vectorized", remark))
    return {
        line: (any(ok for ok, _ in found), "\n".join(dict.fromkeys(text for _, text in found)))
        for line, found in sorted(lines.items())
    }
