"""Display filters for stage text, like Compiler Explorer's: what a reader rarely wants to
see is hidden, and every shown line keeps the number it has in the full text, so links
between stages (which the source map computes on the full text) still land.

- MLIR (TTIR, TTGIR): the trailing `loc(...)` of every op and the `#loc` table.
- LLVM IR: `!dbg !N` and the debug-info metadata lines (`!N = !DI...`, `!llvm.dbg.cu`).
- PTX: `.loc` and `.file` directives and the `.section .debug_*` blocks.
- SASS: the `//## File "...", line N` comment before an instruction.
- GNU assembler (AMDGCN, a CPU kernel's x86): `.loc`/`.file`, and with the directives
  filter the `.cfi_*`, alignment, type and section directives and the debug labels
  (`.LBB13:`, `.LVL4:`), leaving the code and the labels jumps name.
  With the comment-lines filter, a line that is only a `#` comment; with the labels
  filter, a local label nothing names (`.L7:` the code falls into); with demangle, the
  C++ names the compile demangled (the kernel's `demangled` table) read as C++.
- Paths: an absolute path in what is left (a quoted one, or after `File`) shows as its file
  name.

    filtered = filter_stage(text, "mlir", DisplayFilters())
    filtered.text                 # what the view shows
    filtered.original_line(3)     # the full text's line number of shown line 3
    filtered.shown_line(120)      # where full-text line 120 shows (the next shown line
                                  # when 120 itself is hidden, e.g. a SASS //## comment)
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from kx_core.ir.anatomy import matching_close


@dataclass(frozen=True)
class DisplayFilters:
    hide_locations: bool = True  # MLIR loc(...), #loc table, LLVM !dbg, PTX .loc/.file
    hide_line_comments: bool = True  # SASS //## File ..., line N
    shorten_paths: bool = True  # /abs/path/kernel.py -> kernel.py
    hide_directives: bool = True  # GNU assembler: .cfi_*, .p2align, debug labels (.LBB, .LVL)
    # Compiler Explorer's other defaults, for a C++ kernel's x86 assembly:
    hide_comment_lines: bool = True  # GNU assembler: a line that is only a `# ...` comment
    demangle: bool = True  # _ZN6kx_ext8silu_mulEPKfPfllb -> kx_ext::silu_mul(float const*, ...)
    hide_library_functions: bool = True  # functions defined outside the user's files (lists)
    hide_unused_labels: bool = True  # GNU assembler: a `.L3:` no instruction or data names

    @property
    def any(self) -> bool:
        return self.hide_locations or self.hide_line_comments or self.shorten_paths


@dataclass(frozen=True)
class FilteredText:
    text: str
    # the full text's line number (1-based) of each shown line, in order
    originals: tuple[int, ...]

    def original_line(self, shown: int) -> int:
        if not self.originals:
            return shown
        return self.originals[min(max(shown, 1), len(self.originals)) - 1]

    def shown_line(self, original: int) -> int:
        """The shown line of a full-text line; a hidden one maps to the next shown line
        (a SASS `//##` comment to its instruction), or the last when none follows."""
        if not self.originals:
            return original
        i = bisect.bisect_left(self.originals, original)
        return min(i, len(self.originals) - 1) + 1

    def shown_lines(self, originals) -> tuple[int, ...]:
        return tuple(dict.fromkeys(self.shown_line(o) for o in originals))


# Example: "#loc15 = loc("x_ptr"(#loc))", "#loc = loc("/path/k.py":11:0)"
_MLIR_LOC_DEF_RE = re.compile(r"^#loc\d*\s*=\s*loc\(")
# Example: "!7 = !DILocation(line: 12, column: 24, scope: !4)", "!2 = distinct !DICompileUnit(...)",
# "!llvm.dbg.cu = !{!0}"
_LLVM_DEBUG_META_RE = re.compile(r"^(?:!\d+\s*=\s*(?:distinct\s+)?!DI|!llvm\.dbg\.)")
# Example: "  %8 = shl i32 %7, 10, !dbg !8", "define void @k(...) #0 !dbg !4 {"
_LLVM_DBG_RE = re.compile(r"(?:,\s*|\s+)!dbg\s+!\d+")
# Example: "\t.loc\t1 11 0                          // vector_add.py:11:0", "\t.file\t1 \"/p/k.py\""
_PTX_DEBUG_RE = re.compile(r"^\s*\.(?:loc|file)\s")
# Example: "\t.section\t.debug_info", "\t.section\t.debug_macinfo\t{\t}"
_PTX_DEBUG_SECTION_RE = re.compile(r"^\s*\.section\s+\.debug_")
# Examples: "\t.cfi_startproc", "\t.p2align 4,,10", ".LBB13:", ".LVL4:", "\t.type\tf, @function"
# (kept: code labels such as ".L3:" that jumps name, and the function's own label)
_GAS_NOISE_RE = re.compile(
    r"^\s*(?:\.(?:cfi_\w+|p2align|align|type|size|globl|section|text|intel_syntax|ident)\b"
    r"|\.L(?:BB|BE|BI|VL|VU|FB|FE|text|etext|debug|LST|LRL|ASF)\w*:)"
)
# Example: ".L3:" (a local label's definition)
_GAS_LOCAL_LABEL_RE = re.compile(r"^(\.L\w+):\s*$")
# Examples: "\tjne\t.L3", "\tvmovss\txmm0, DWORD PTR .LC1[rip]", "\t.long\t.L5-.L4"
_GAS_LABEL_USE_RE = re.compile(r"\.L\w+")
# Example: "\t# @[ add.cpp:10:20 ] (kx: the call site from here)", "# BLOCK 2"
_GAS_COMMENT_LINE_RE = re.compile(r"^\s*#")
# Example: "\t//## File \"/work/k/vector_add.py\", line 11"
_SASS_FILE_RE = re.compile(r"^\s*//## File ")
# Example: "\"/work/main/fixtures/kernels/vector_add.py\"" -> "\"vector_add.py\""
_QUOTED_PATH_RE = re.compile(r'"(/[^"\n]*/)([^"/\n]+)"')


def _strip_locs(line: str) -> str:
    """An MLIR line without its ` loc(...)`s: the op's trailing one, and those of a
    function's arguments (`%x: !tt.ptr<f32> loc("x"(#loc))`)."""
    out, start = [], 0
    while (idx := line.find(" loc(", start)) != -1:
        end = matching_close(line, idx + len(" loc"), "(", ")")
        if end == len(line):
            break
        out.append(line[start:idx])
        start = end + 1
    return "".join(out) + line[start:]


def _used_labels(text: str) -> set[str]:
    """The local labels (`.L3`) a line other than their definition names: a jump, a
    call, a jump table's data, a constant's load."""
    used: set[str] = set()
    for line in text.split("\n"):
        if ".L" in line and not _GAS_LOCAL_LABEL_RE.match(line):
            used.update(_GAS_LABEL_USE_RE.findall(line.split("#", 1)[0]))
    return used


def _demangler(names: dict[str, str]):
    """A function replacing every mangled name of `names` in a line (longest first, so a
    `.cold` clone is not read as its parent plus a suffix)."""
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    return lambda line: pattern.sub(lambda m: names[m.group(0)], line)


def filter_stage(
    text: str, syntax: str, filters: DisplayFilters, demangled: dict[str, str] | None = None
) -> FilteredText:
    """The text as shown with `filters`, for a stage of `syntax` (mlir, llvm, ptx, sass,
    gas, ...); `demangled` (mangled -> readable) is what the demangle filter replaces."""
    demangle = _demangler(demangled) if demangled and filters.demangle and syntax == "gas" else None
    used = _used_labels(text) if filters.hide_unused_labels and syntax == "gas" else None
    shown: list[str] = []
    originals: list[int] = []
    in_debug_section = False  # PTX: inside `.section .debug_* { ... }`
    for number, line in enumerate(text.split("\n"), start=1):
        if in_debug_section:
            in_debug_section = line.strip() != "}"
            continue
        if filters.hide_locations:
            if syntax == "mlir":
                if _MLIR_LOC_DEF_RE.match(line):
                    continue
                line = _strip_locs(line)
            elif syntax == "llvm":
                if _LLVM_DEBUG_META_RE.match(line):
                    continue
                line = _LLVM_DBG_RE.sub("", line)
            elif syntax in ("ptx", "gas") and _PTX_DEBUG_RE.match(line):
                continue
            elif syntax == "ptx" and _PTX_DEBUG_SECTION_RE.match(line):
                in_debug_section = not line.rstrip().endswith("}")
                continue
        if filters.hide_line_comments and syntax == "sass" and _SASS_FILE_RE.match(line):
            continue
        if filters.hide_directives and syntax == "gas" and _GAS_NOISE_RE.match(line):
            continue
        if filters.hide_comment_lines and syntax == "gas" and _GAS_COMMENT_LINE_RE.match(line):
            continue
        if used is not None and (label := _GAS_LOCAL_LABEL_RE.match(line)) and label.group(1) not in used:
            continue
        if demangle is not None and "_Z" in line:
            line = demangle(line)
        if filters.shorten_paths and "/" in line:
            line = _QUOTED_PATH_RE.sub(r'"\2"', line)
        shown.append(line)
        originals.append(number)
    return FilteredText("\n".join(shown), tuple(originals))


def hidden_by_library_filter(kernel, filters: DisplayFilters) -> bool:
    """Whether the library-functions filter hides a C++ function: one defined outside the
    user's files (`library_code`, by DWARF), unless it holds a loop of the user's lines
    (its Vectorization stage is not empty): at::parallel_for's OpenMP body is a library
    template's, and the user's lambda, the kernel's hot loop, is compiled inside it."""
    return filters.hide_library_functions and kernel.library_code and not kernel.stages.get("vectorization")
