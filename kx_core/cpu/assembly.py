"""GCC's assembly of a C++ kernel, split by function, every instruction tied to its line.

`g++ -S -g -dA -masm=intel` writes the code with `.loc FILE LINE COL` before the
instructions of each line, and the DWARF debug info as annotated data. An intrinsic
(`_mm256_loadu_ps`) is inlined from its header, so its instructions carry the header's
`.loc` (avxintrin.h:905), not the user's line; the call site is only in the debug info's
DW_TAG_inlined_subroutine (DW_AT_call_line, over the label ranges of DW_AT_low_pc/high_pc
or DW_AT_ranges). This module reads those and writes the call site on the header's
`.loc` as a comment, in the form kx's source maps already read for PTX:

    .loc 2 905 3 discriminator 2   # @[ add.cpp:10:20 ]

so a click on line 10 marks the vmovups the intrinsic became. The stage text of each
function is its own code with the `.file` table before it; the debug sections are
dropped (they are data, not code).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# Example: '\t.file 1 "add.cpp"', '\t.file 0 "/tmp/cpu" "add.cpp"'
_FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?')
# Example: "\t.loc 2 149 45 discriminator 2"
_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
# Example: "_ZN6kx_add4avx23addEPKfS2_Pfl:" (a function's own label, not a local .L one)
_FUNC_LABEL_RE = re.compile(r"^([A-Za-z_][\w.$]*):\s*$")
# Example: ".size\t_Z12silu_and_mulN2at6TensorEb, .-_Z12silu_and_mulN2at6TensorEb"
_SIZE_RE = re.compile(r"^\.size\s+([\w.$]+),")
# Example: ".LBB13:"
_LABEL_RE = re.compile(r"^(\.L\w+):\s*$")
# Example: "\t.type\t_ZN6kx_add4avx23addEPKfS2_Pfl, @function"
_TYPE_FUNC_RE = re.compile(r"^\s*\.type\s+([\w.$]+),\s*@function")
# Examples: "\t.uleb128 0x17\t# (DIE (0xc8e) DW_TAG_inlined_subroutine)"
_DIE_RE = re.compile(r"#\s*\(DIE \(0x[0-9a-f]+\) (DW_TAG_\w+)\)")
# Examples: "\t.quad\t.LBB14\t# DW_AT_low_pc", "\t.quad\t.LBE14-.LBB14\t# DW_AT_high_pc"
_LOW_PC_RE = re.compile(r"\.quad\s+(\.L\w+)\s+#\s*DW_AT_low_pc")
_HIGH_PC_RE = re.compile(r"\.quad\s+(\.L\w+)-(\.L\w+)\s+#\s*DW_AT_high_pc")
# Example: "\t.long\t.LLRL6\t# DW_AT_ranges"
_RANGES_RE = re.compile(r"(\.LLRL\d+)\s+#\s*DW_AT_ranges")
# Examples: "\t\t\t# DW_AT_call_file (1, add.cpp)", "\t.byte\t0x1\t# DW_AT_call_file (add.cpp)"
_CALL_FILE_RE = re.compile(r"#\s*DW_AT_call_file \((?:(\d+), )?([^)]*)\)")
# Examples: "\t.byte\t0xa\t# DW_AT_call_line", "\t.value\t0x10c\t# DW_AT_call_line"
_CALL_LINE_RE = re.compile(r"(0x[0-9a-f]+|\d+)\s+#\s*DW_AT_call_line")
# Examples: "\t\t\t# DW_AT_call_column (0x23)", "\t.byte\t0x19\t# DW_AT_call_column"
_CALL_COL_RE = re.compile(
    r"(?:(0x[0-9a-f]+|\d+)\s+#\s*DW_AT_call_column|#\s*DW_AT_call_column \((0x[0-9a-f]+)\))"
)
# Example: "\t.uleb128 .LBB18-.Ltext0\t# Range begin address (*.LLRL6)"
_RANGE_ADDR_RE = re.compile(r"\.uleb128\s+(\.L\w+)-\.L\w+\s+#\s*Range (begin|end) address")


@dataclass(frozen=True)
class AsmFunction:
    symbol: str  # the mangled name, as the assembly has it
    text: str  # the .file table, then the function's code (call sites annotated)
    first_line: int | None  # its first source line in the user's file


@dataclass(frozen=True)
class _Inline:
    """One inlined call in the user's file: its call site over label ranges."""

    line: int
    column: int
    ranges: tuple[tuple[str, str], ...]  # (begin label, end label)


def _int(text: str) -> int:
    return int(text, 16) if text.startswith("0x") else int(text)


def file_table(lines: list[str]) -> dict[str, str]:
    """File id -> absolute path (a relative name is joined to `.file 0`'s directory)."""
    out, base = {}, ""
    for raw in lines:
        m = _FILE_RE.match(raw)
        if not m:
            continue
        if m.group(3) is not None:  # .file 0 "dir" "name"
            base = m.group(2)
            out[m.group(1)] = os.path.join(m.group(2), m.group(3))
        else:
            out[m.group(1)] = m.group(2) if os.path.isabs(m.group(2)) else os.path.join(base, m.group(2))
    return out


def _range_lists(lines: list[str]) -> dict[str, list[tuple[str, str]]]:
    """`.LLRLn:` -> its (begin, end) label pairs (DWARF 5 offset pairs)."""
    out: dict[str, list[tuple[str, str]]] = {}
    current, begin = None, None
    for raw in lines:
        m = _LABEL_RE.match(raw.strip())
        if m and m.group(1).startswith(".LLRL"):
            current, begin = out.setdefault(m.group(1), []), None
            continue
        if current is None:
            continue
        a = _RANGE_ADDR_RE.search(raw)
        if a and a.group(2) == "begin":
            begin = a.group(1)
        elif a and begin is not None:
            current.append((begin, a.group(1)))
            begin = None
        elif "DW_RLE_end_of_list" in raw:
            current = None
    return out


def _inlines(lines: list[str], user: set[str]) -> list[_Inline]:
    """Every DW_TAG_inlined_subroutine whose call site is in one of the `user` files."""
    ranges_of = _range_lists(lines)
    out: list[_Inline] = []
    die: dict | None = None

    def close() -> None:
        if die and die.get("file") in user and die.get("line"):
            spans = die.get("ranges") or []
            if spans:
                out.append(_Inline(die["line"], die.get("column", 0), tuple(spans)))

    for raw in lines:
        m = _DIE_RE.search(raw)
        if m:
            close()
            die = {} if m.group(1) == "DW_TAG_inlined_subroutine" else None
            continue
        if die is None:
            continue
        if (c := _CALL_FILE_RE.search(raw)) is not None:
            die["file"] = c.group(2)
        elif (c := _CALL_LINE_RE.search(raw)) is not None:
            die["line"] = _int(c.group(1))
        elif (c := _CALL_COL_RE.search(raw)) is not None:
            die["column"] = _int(c.group(1) or c.group(2))
        elif (c := _HIGH_PC_RE.search(raw)) is not None:
            die["ranges"] = [(c.group(2), c.group(1))]
        elif (c := _LOW_PC_RE.search(raw)) is not None:
            die.setdefault("ranges", [(c.group(1), c.group(1).replace("LBB", "LBE"))])
        elif (c := _RANGES_RE.search(raw)) is not None:
            die["ranges"] = ranges_of.get(c.group(1), [])
    close()
    return out


def split_functions(asm: str, source: str) -> list[AsmFunction]:
    """The functions of a `g++ -S -g -dA` output, each with its call sites annotated."""
    lines = asm.split("\n")
    files = file_table(lines)
    user_ids = {fid for fid, path in files.items() if os.path.realpath(path) == os.path.realpath(source)}
    user_names = {os.path.basename(source)}
    inlines = _inlines(
        lines, user_names | {files[f] for f in user_ids} | {os.path.basename(files[f]) for f in user_ids}
    )
    starts: dict[str, list[_Inline]] = {}
    ends: dict[str, list[_Inline]] = {}
    for inline in inlines:
        for begin, end in inline.ranges:
            starts.setdefault(begin, []).append(inline)
            ends.setdefault(end, []).append(inline)
    functions = {m.group(1) for raw in lines if (m := _TYPE_FUNC_RE.match(raw))}
    table = [f'\t.file {fid} "{path}"' for fid, path in sorted(files.items(), key=lambda kv: int(kv[0]))]
    out: list[AsmFunction] = []
    body: list[str] | None = None
    open_inlines: list[_Inline] = []
    symbol, first = "", None
    paused: list[tuple] = []  # functions whose cold part is being read
    in_header = False  # the last .loc was in a header (an intrinsic's body)
    site: _Inline | None = None  # the call site last written
    for raw in lines:
        stripped = raw.strip()
        label = _FUNC_LABEL_RE.match(stripped)
        if label and label.group(1) in functions:
            if body is not None:
                # a function's cold part (`f.cold:`, in .text.unlikely) begins inside f's
                # code: f resumes after the part's .size (dropping f lost its hot code)
                paused.append((symbol, body, first, open_inlines))
            symbol, body, first, open_inlines = label.group(1), [raw], None, []
            continue
        if body is None or (stripped.startswith("#") and "(kx:" not in stripped):
            continue  # -dA's own comments (# BLOCK 2, # DEBUG i => 0, # add.cpp:8:5): noise
        local = _LABEL_RE.match(stripped)
        if local:
            open_inlines += starts.get(local.group(1), [])
            for gone in ends.get(local.group(1), []):
                if gone in open_inlines:
                    open_inlines.remove(gone)
        loc = _LOC_RE.match(raw)
        if loc and loc.group(1) in user_ids and first is None:
            first = int(loc.group(2))
        if loc:
            in_header = loc.group(1) not in user_ids
        if loc and in_header and open_inlines:
            site = open_inlines[-1]  # the innermost: opened last
            raw = f"{raw}\t# @[ {os.path.basename(source)}:{site.line}:{site.column} ]"
        elif local and in_header and open_inlines and open_inlines[-1] is not site:
            # the same intrinsic's code, now inlined from another call (no new .loc):
            # say where, as a comment kx's source maps read (sourcemap.asm_line_locations)
            body.append(raw)
            site = open_inlines[-1]
            raw = (
                f"\t# @[ {os.path.basename(source)}:{site.line}:{site.column} ] (kx: the call site from here)"
            )
        body.append(raw)
        size = _SIZE_RE.match(stripped)
        if size and size.group(1) == symbol:
            out.append(AsmFunction(symbol, "\n".join(table + body) + "\n", first))
            body = None
            if paused:
                symbol, body, first, open_inlines = paused.pop()
        elif size and any(p[0] == size.group(1) for p in paused):
            # GCC sizes the hot part while in its cold part: the hot part ends here
            done = next(p for p in paused if p[0] == size.group(1))
            paused.remove(done)
            out.append(AsmFunction(done[0], "\n".join(table + done[1]) + "\n", done[2]))
    return out
