"""GCC's vectorization remarks (`-fopt-info-vec-all=FILE`), per source line.

    add.cpp:14:14: optimized: loop vectorized using 32 byte vectors
    add.cpp:9:18: missed: couldn't vectorize loop
    /usr/lib/gcc/.../avxintrin.h:905:23: missed: not vectorized: no vectype for stmt: ...

Kept: the `optimized` and `missed` remarks on lines of the user's file (not the
analysis `note`s, not the headers'); the stage text is one remark per line,
`file:line:col: vectorized (32-byte vectors)` or `file:line:col: not vectorized: why`, or
for a loop written with vector intrinsics (GCC finds its statements on `__m256` already
and reports "no vectype ... bad data references") `file:line:col: already vector code`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable

# Example: "add.cpp:14:14: optimized: loop vectorized using 32 byte vectors"
_REMARK_RE = re.compile(r"^(.+?):(\d+):(\d+): (optimized|missed): (.*)$")
# Example: "loop vectorized using 32 byte vectors"
_WIDTH_RE = re.compile(r"vectorized using (\d+) byte vectors")


# GCC's vectorizer finding a loop's statements already on vector types (a loop written
# with intrinsics): nothing for it to widen, which it words as a failure. Example:
#   "no vectype for stmt: _48 = MEM[(__m256_u * {ref-all})_81]; scalar_type: __m256_u; bad data references"
_ALREADY_VECTOR_RE = re.compile(r"no vectype for stmt: .*?scalar_type: (?:const )?(?P<type>__[mv]\d+\w*)")

# The verdicts of the Vectorization stage's lines, as VectorRemark.text writes them.
VECTORIZED, MISSED, VECTOR_CODE = "vectorized", "not vectorized", "already vector code"

# A line of the Vectorization stage, as VectorRemark.text writes it.
# Examples: "add.cpp:14:14: vectorized (32-byte vectors): loop vectorized using 32 byte vectors",
# "ext.cpp:15:27: not vectorized [kx_ext::silu_mul_row inlined at line 38]: loop contains ...",
# "rmsnorm_avx2.cpp:27:22: already vector code: GCC's vectorizer had nothing to do ..."
_STAGE_RE = re.compile(r"^.+?:(\d+):\d+: (vectorized|not vectorized|already vector code)\b")


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

    @property
    def vector_type(self) -> str | None:
        """The vector type (`__m256_u`) a missed loop's statements already use: a loop
        written with intrinsics, which GCC reports as "no vectype ... bad data references"
        although there is nothing left to vectorize. None otherwise."""
        m = None if self.vectorized else _ALREADY_VECTOR_RE.search(self.message)
        return m.group("type") if m else None

    def text(self, file: str) -> str:
        # how the loop got here comes before GCC's words: a long reason must not hide it
        where = f" [{self.inlined}]" if self.inlined else ""
        at = f"{os.path.basename(file)}:{self.line}:{self.column}"
        if self.vectorized:
            width = f" ({self.width_bytes}-byte vectors)" if self.width_bytes else ""
            return f"{at}: {VECTORIZED}{width}{where}: {self.message}"
        why = self.message.removeprefix("not vectorized: ")  # GCC's own words often start so
        if self.vector_type:
            return (
                f"{at}: {VECTOR_CODE}{where}: GCC's vectorizer had nothing to do, the loop's statements "
                f"are on {self.vector_type} already (GCC's words: {why})"
            )
        return f"{at}: {MISSED}{where}: {why}"


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


def line_marks(stage_texts) -> dict[int, tuple[str, str]]:
    """Source line -> (verdict, its remarks joined) from Vectorization stage texts: the
    Source pane's gutter marks. The verdict is VECTORIZED when any loop there was, else
    MISSED when any was not, else VECTOR_CODE (written with intrinsics: no verdict)."""
    lines: dict[int, list[tuple[str, str]]] = {}
    for text in stage_texts:
        for raw in text.splitlines():
            m = _STAGE_RE.match(raw)
            if m:
                remark = raw.split(": ", 1)[1] if ": " in raw else raw
                lines.setdefault(int(m.group(1)), []).append((m.group(2), remark))
    rank = (VECTORIZED, MISSED, VECTOR_CODE)
    return {
        line: (
            min((verdict for verdict, _ in found), key=rank.index),
            "\n".join(dict.fromkeys(text for _, text in found)),
        )
        for line, found in sorted(lines.items())
    }
