"""Source maps: which source lines each line of each stage came from, and the inverse.

Every stage carries source locations in its own syntax:

  TTIR/TTGIR  `... loc(#loc12)` with `#loc12 = loc("f.py":31:29)`, named locations
              `loc("x"(#loc4))`, inlined code as `loc(callsite(#loc9 at #loc10))`,
              `fused[...]`
  LLVM IR     `..., !dbg !19` with `!19 = !DILocation(line: 23, column: 12, scope: !20,
              inlinedAt: !21)`, scopes pointing at `!DIFile(filename:, directory:)`
  PTX         `.file 1 "/p/f.py"` and `.loc 1 23 12, function_name $L.., inlined_at 1 31 36`
              before the instructions they describe
  AMDGCN      `.file 1 "/dir" "f.py"` and `.loc 1 31 5 is_stmt 1`
  SASS        kx's `nvdisasm -gi` text: `//## File "/p/f.py", line 23 inlined at "/p/f.py", line 31`,
              consecutive `//##` lines being the frames of the instruction below them

A line's locations are listed innermost first: for code inlined from a helper, the
helper's line, then each call site out to the kernel. Linking a source line to IR uses
every location in that chain that lies in the file being viewed.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field

from kx_core.ir.anatomy import matching_close, split_top_level
from kx_core.ir.op_follow import Followed, follow_operations
from kx_core.records.backends import ALL_STAGES
from kx_core.records.results import LineMap


@dataclass(frozen=True)
class Location:
    """A place in a source file; line and column are 1-based (column None if unknown)."""

    file: str
    line: int
    column: int | None = None


Chain = tuple[Location, ...]


@functools.lru_cache(maxsize=4096)
def same_source(a: str, b: str) -> bool:
    """Whether two spellings name the same file: equal real paths, else equal names
    (a stage compiled elsewhere carries that machine's absolute path)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    return os.path.basename(a) == os.path.basename(b)


# ----------------------------------------------------------------- MLIR

# Example: "#loc12 = loc("/k/two_kernels.py":31:29)"
_MLIR_ALIAS_RE = re.compile(r"^(#loc\w*)\s*=\s*loc\((.*)\)\s*$")
# Example body: "/k/two_kernels.py":31:29
_MLIR_FILE_LOC_RE = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
# Example body: "x"(#loc4)
_MLIR_NAME_LOC_RE = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$')


def _trailing_loc(line: str) -> str | None:
    """The body of the last `loc(...)` that closes at the end of an op line."""
    stripped = line.rstrip()
    if not stripped.endswith(")"):
        return None
    idx = stripped.rfind(" loc(")
    while idx != -1:
        opening = idx + len(" loc")
        if matching_close(stripped, opening, "(", ")") == len(stripped) - 1:
            return stripped[opening + 1 : -1]
        idx = stripped.rfind(" loc(", 0, idx)
    return None


class _MlirLocations:
    def __init__(self, text: str) -> None:
        self.aliases: dict[str, str] = {}
        for raw in text.splitlines():
            m = _MLIR_ALIAS_RE.match(raw.strip())
            if m:
                self.aliases[m.group(1)] = m.group(2)
        self._memo: dict[str, Chain] = {}

    def resolve(self, body: str, depth: int = 0) -> Chain:
        body = body.strip()
        if depth > 64 or not body or body == "unknown":
            return ()
        if body in self._memo:
            return self._memo[body]
        result: Chain = ()
        if body.startswith("#"):
            if body in self.aliases:
                result = self.resolve(self.aliases[body], depth + 1)
        elif m := _MLIR_FILE_LOC_RE.match(body):
            result = (Location(m.group(1), int(m.group(2)), int(m.group(3))),)
        elif body.startswith("callsite(") and body.endswith(")"):
            inner = body[len("callsite(") : -1]
            parts = split_top_level(inner, " at ", keep_empty=True)
            if len(parts) == 2:
                result = self.resolve(parts[0], depth + 1) + self.resolve(parts[1], depth + 1)
        elif body.startswith("fused"):
            start = body.find("[")
            if start != -1 and body.endswith("]"):
                chains = [
                    self.resolve(p, depth + 1)
                    for p in split_top_level(body[start + 1 : -1], ",", keep_empty=True)
                ]
                result = tuple(loc for c in chains for loc in c)
        elif m := _MLIR_NAME_LOC_RE.match(body):
            result = self.resolve(m.group(2), depth + 1)
        self._memo[body] = result
        return result


def mlir_line_locations(text: str) -> dict[int, Chain]:
    """1-based line -> locations for every op line of TTIR/TTGIR text."""
    locs = _MlirLocations(text)
    out: dict[int, Chain] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.startswith("#"):
            continue
        body = _trailing_loc(raw)
        if body is None:
            continue
        chain = locs.resolve(body)
        if chain:
            out[number] = chain
    return out


# ----------------------------------------------------------------- LLVM IR

# Example: "!19 = !DILocation(line: 23, column: 12, scope: !20, inlinedAt: !21)"
_LLVM_MD_RE = re.compile(r"^(!\d+)\s*=\s*(?:distinct\s+)?!(\w+)\((.*)\)\s*$")
# Example fields: line: 23, scope: !20, filename: "two_kernels.py"
_LLVM_FIELD_RE = re.compile(r'(\w+):\s*(!\d+|"(?:[^"\\]|\\.)*"|-?\d+)')
# Example: "  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !12"
_LLVM_DBG_ALL_RE = re.compile(r"!dbg (!\d+)[ \t]*$", re.MULTILINE)
_NEWLINE_RE = re.compile("\n")


def llvm_line_locations(text: str) -> dict[int, Chain]:
    """1-based line -> locations for every instruction with a !dbg attachment."""
    nodes: dict[str, tuple[str, dict[str, str]]] = {}
    for raw in text.splitlines():
        if raw.startswith("!"):
            m = _LLVM_MD_RE.match(raw)
            if m:
                nodes[m.group(1)] = (m.group(2), dict(_LLVM_FIELD_RE.findall(m.group(3))))

    def unquote(s: str) -> str:
        return s[1:-1] if s.startswith('"') else s

    def file_of(ref: str | None, depth: int = 0) -> str | None:
        if ref is None or ref not in nodes or depth > 32:
            return None
        kind, fields = nodes[ref]
        if kind == "DIFile":
            name, folder = unquote(fields.get("filename", "")), unquote(fields.get("directory", ""))
            return os.path.join(folder, name) if folder and not os.path.isabs(name) else name
        if "file" in fields:
            return file_of(fields["file"], depth + 1)
        return file_of(fields.get("scope"), depth + 1)

    memo: dict[str, Chain] = {}

    def chain(ref: str, depth: int = 0) -> Chain:
        if ref in memo:
            return memo[ref]
        if ref not in nodes or depth > 64:
            return ()
        kind, fields = nodes[ref]
        if kind != "DILocation":
            return ()
        file = file_of(fields.get("scope"))
        here: Chain = ()
        line = int(fields.get("line", "0"))
        if file and line > 0:
            column = int(fields["column"]) if fields.get("column", "0") != "0" else None
            here = (Location(file, line, column),)
        result = here + (chain(fields["inlinedAt"], depth + 1) if "inlinedAt" in fields else ())
        memo[ref] = result
        return result

    # One scan of the whole text for the attachments, line numbers from the newline
    # offsets: a per-line loop costs 3x more on a 10 MB LLVM IR.
    newlines = [m.start() for m in _NEWLINE_RE.finditer(text)]
    out: dict[int, Chain] = {}
    for m in _LLVM_DBG_ALL_RE.finditer(text):
        number = bisect.bisect_left(newlines, m.start()) + 1
        start = newlines[number - 2] + 1 if number > 1 else 0
        if text.startswith(("!", "define"), start):
            continue
        c = chain(m.group(1))
        if c:
            out[number] = c
    return out


# ----------------------------------------------------------------- PTX and AMDGCN

# Examples: '.file 1 "/k/two_kernels.py"', '.file 2 "/k/a.py", 1700000000, 1234',
#           '.file 1 "/work/main/fixtures/kernels" "two_kernels.py"' (AMDGCN: dir, name)
_ASM_FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?')
# Examples: ".loc 1 23 12, function_name $L__info_string0, inlined_at 1 31 36",
#           ".loc 1 31 5 is_stmt 1"
_ASM_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(.*)$")
_ASM_INLINED_RE = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+(\d+)")
# Older LLVM (Triton 3.6) writes the inline chain only in the comment; file names there
# are base names. Example: ".loc 1 23 15   // two_kernels.py:23:15 @[ two_kernels.py:31:43 ]"
_ASM_COMMENT_INLINED_RE = re.compile(r"@\[\s*([^:\s\[\]]+):(\d+):(\d+)")
# kx's own line in a CPU kernel's assembly (kx_core.cpu.assembly), where inlined code
# changes call site without a new .loc. Example: "\t# @[ rmsnorm_avx2.cpp:40:23 ] (kx: ...)"
_ASM_SITE_RE = re.compile(r"^\s*#\s*@\[")


def _is_asm_instruction(line: str) -> bool:
    s = line.strip()
    if not s or s.startswith(("//", ";", ".", "$", "{", "}", "@@")) or s.endswith(":"):
        # predicated PTX instructions start with "@%p1 ..."; keep those
        return s.startswith("@") and not s.startswith("@@")
    return True


def asm_line_locations(text: str) -> dict[int, Chain]:
    """PTX or AMDGCN: 1-based line -> locations, from `.file`/`.loc` directives."""
    lines = text.splitlines()
    files: dict[str, str] = {}
    for raw in lines:
        m = _ASM_FILE_RE.match(raw)
        if m:
            files[m.group(1)] = os.path.join(m.group(2), m.group(3)) if m.group(3) else m.group(2)
    # (file id, line, col) -> where that position was itself inlined, as last seen
    inlined_from: dict[tuple[str, int, int], tuple[str, int, int]] = {}

    def loc(fid: str, line: int, col: int) -> Location | None:
        if line <= 0 or fid not in files:
            return None
        return Location(files[fid], line, col or None)

    out: dict[int, Chain] = {}
    current: Chain = ()
    for number, raw in enumerate(lines, start=1):
        site = _ASM_SITE_RE.match(raw)
        if site and current:  # kx's CPU assembly: the same code now inlined from another call
            current = current[:1] + tuple(
                Location(f, int(line), int(col) or None)
                for f, line, col in _ASM_COMMENT_INLINED_RE.findall(raw)
            )
            continue
        m = _ASM_LOC_RE.match(raw)
        if m:
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            inl = _ASM_INLINED_RE.search(m.group(4))
            chain_keys = [key]
            if inl:
                parent = (inl.group(1), int(inl.group(2)), int(inl.group(3)))
                inlined_from[key] = parent
            seen = {key}
            while chain_keys[-1] in inlined_from and len(chain_keys) < 32:
                nxt = inlined_from[chain_keys[-1]]
                if nxt in seen:
                    break
                seen.add(nxt)
                chain_keys.append(nxt)
            current = tuple(x for x in (loc(*k) for k in chain_keys) if x is not None)
            if not inl and "@[" in m.group(4):
                current += tuple(
                    Location(f, int(line), int(col) or None)
                    for f, line, col in _ASM_COMMENT_INLINED_RE.findall(m.group(4))
                )
            if current:
                out[number] = current
            continue
        if current and _is_asm_instruction(raw):
            out[number] = current
    return out


# ----------------------------------------------------------------- SASS

# Example: '\t//## File "/k/two_kernels.py", line 23 inlined at "/k/two_kernels.py", line 31'
_SASS_FILE_RE = re.compile(r'File "([^"]+)", line (\d+)')
# Example: "        /*0070*/                   IMAD.SHL.U32 R17, R17, 0x400, RZ ;"
_SASS_INSTR_RE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/")


def sass_line_locations(text: str) -> dict[int, Chain]:
    """kx's SASS (nvdisasm -gi): 1-based line -> locations."""
    out: dict[int, Chain] = {}
    current: Chain = ()
    comment_run: list[int] = []  # consecutive //## lines describe one instruction's frames
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("//##"):
            here = tuple(Location(f, int(n)) for f, n in _SASS_FILE_RE.findall(raw))
            if comment_run:
                current = current + tuple(loc for loc in here if loc not in current)
            else:
                current = here
            comment_run.append(number)
            for n in comment_run:
                out[n] = current
            continue
        comment_run = []
        if current and _SASS_INSTR_RE.match(raw):
            out[number] = current
        elif raw.strip().startswith("//---") or raw.strip().startswith(".section"):
            current = ()
    return out


# Example: "add.cpp:14:14: vectorized (32-byte vectors): loop vectorized using 32 byte vectors"
_REMARK_LOC_RE = re.compile(r"^(.+?):(\d+):(\d+): ")


def remark_line_locations(text: str) -> dict[int, Chain]:
    """kx's Vectorization stage (kx_core.cpu.remarks): each remark names its line."""
    out: dict[int, Chain] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        m = _REMARK_LOC_RE.match(raw)
        if m:
            out[number] = (Location(m.group(1), int(m.group(2)), int(m.group(3))),)
    return out


def helion_line_locations(text: str) -> dict[int, Chain]:
    """Helion's generated Triton code: each code line at the Helion source lines its
    `# src[file.py:N]` comments name (kx_core.ir.helion_src)."""
    from kx_core.ir.helion_src import src_lines

    return {n: tuple(Location(name, line) for name, line in locs) for n, locs in src_lines(text).items()}


# by Stage.locations (kx_core.records.backends)
_PARSERS = {
    "helion": helion_line_locations,
    "mlir": mlir_line_locations,
    "llvm": llvm_line_locations,
    "asm": asm_line_locations,  # PTX, AMDGCN and GCC's x86 assembly: .file/.loc
    "sass": sass_line_locations,
    "remark": remark_line_locations,
}


def line_locations(stage: str, text: str) -> dict[int, Chain]:
    """Locations of every line of one stage's text (unknown stages and stages without
    links: none)."""
    descriptor = ALL_STAGES.get(stage)
    parser = _PARSERS.get(descriptor.locations) if descriptor else None
    return parser(text) if parser else {}


@dataclass(frozen=True)
class SourceMap:
    """For each stage, IR line -> location chain; and the inverse for one source file.

    `by_source[stage][source_line]` lists the stage's lines whose chain contains that
    line of `source_file` (sorted, 1-based)."""

    source_file: str
    stages: dict[str, dict[int, Chain]]
    by_source: dict[str, dict[int, tuple[int, ...]]] = field(default_factory=dict)
    # generated files whose lines are lines of `source_file` further down: path -> offset
    # (CompiledKernel.source_alias)
    aliases: dict[str, int] = field(default_factory=dict)
    # generated files made from lines of `source_file`: path -> those lines, which every
    # location in the file stands for (CompiledKernel.source_origins)
    origins: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # generated files each of whose lines stands for lines of a file: path -> that file
    # and {line: its lines} (CompiledKernel.source_line_map: Helion's generated Triton)
    line_maps: dict[str, LineMap] = field(default_factory=dict)
    # stage -> IR line -> the operation kx followed to another line than the stage's
    # debug info names (kx_core.ir.op_follow); both lines link to it
    followed: dict[str, dict[int, Followed]] = field(default_factory=dict)

    def line_in_source(self, loc: Location) -> int | None:
        """The line of `source_file` a location names, directly or through an alias (the
        first of a generated file's origin lines)."""
        lines = source_lines_of(loc, self.source_file, self.aliases, self.origins, self.line_maps)
        return lines[0] if lines else None

    def ir_lines(self, source_line: int) -> dict[str, tuple[int, ...]]:
        """stage -> the IR lines a source line became (stages without any omitted)."""
        return {s: m[source_line] for s, m in self.by_source.items() if source_line in m}

    def source_lines(self, stage: str, ir_line: int) -> tuple[int, ...]:
        """Lines of the source file an IR line came from, innermost first; for an
        operation kx followed elsewhere, the line it followed it to first."""
        chain = self.stages.get(stage, {}).get(ir_line, ())
        f = self.followed.get(stage, {}).get(ir_line)
        out: list[int] = [f.line] if f else []
        for loc in chain:
            for line in source_lines_of(loc, self.source_file, self.aliases, self.origins, self.line_maps):
                if line not in out:
                    out.append(line)
        return tuple(out)

    def counterparts(self, stage: str, ir_line: int) -> dict[str, tuple[int, ...]]:
        """For an IR line: the lines of every stage (its own included) that came from
        the same innermost source line (the statement itself, not its call sites)."""
        result: dict[str, set[int]] = defaultdict(set)
        for src in self.source_lines(stage, ir_line)[:1]:
            for s, lines in self.ir_lines(src).items():
                result[s].update(lines)
        return {s: tuple(sorted(v)) for s, v in result.items()}

    def disagreements(self, source_line: int) -> dict[str, tuple[tuple[int, Followed], ...]]:
        """stage -> (IR line, Followed) of the linked lines where the debug info and the
        followed operation name different lines, one of them `source_line`."""
        out: dict[str, tuple[tuple[int, Followed], ...]] = {}
        for stage, lines in self.followed.items():
            rows = tuple((n, f) for n, f in lines.items() if source_line in (f.line, f.claimed))
            if rows:
                out[stage] = rows
        return out

    def mapped_source_lines(self) -> list[int]:
        """Every source line that some stage maps to, sorted."""
        return sorted({line for m in self.by_source.values() for line in m})


def source_lines_of(
    loc: Location,
    source_file: str,
    aliases: dict[str, int] | None = None,
    origins: dict[str, tuple[int, ...]] | None = None,
    line_maps: dict[str, LineMap] | None = None,
) -> tuple[int, ...]:
    """loc's line in `source_file`, or in a generated file whose text stands in it
    `aliases[path]` lines down; or the lines a generated file was made from
    (`origins[path]`), or its line was made from (`line_maps[path][line]`); none for a
    location elsewhere."""
    for path, m in (line_maps or {}).items():
        if same_source(loc.file, path):
            return m.lines.get(loc.line, ()) if same_source(m.file, source_file) else ()
    if same_source(loc.file, source_file):
        return (loc.line,)
    for path, offset in (aliases or {}).items():
        if same_source(loc.file, path):
            return (loc.line + offset,)
    for path, lines in (origins or {}).items():
        if same_source(loc.file, path):
            return tuple(lines)
    return ()


def build_source_map(
    stages: dict[str, str],
    source_file: str,
    aliases: dict[str, int] | None = None,
    origins: dict[str, tuple[int, ...]] | None = None,
    line_maps: dict[str, LineMap] | None = None,
) -> SourceMap:
    """Parse every stage's locations and index them by lines of `source_file` (and of
    the generated files `aliases` puts in it, and `origins` and `line_maps` make from
    it: CompiledKernel.source_alias, .source_origins, .source_line_map)."""
    per_stage = {name: line_locations(name, text) for name, text in stages.items()}
    # the parsers hand out one chain object to every line it covers: resolve each once
    resolved: dict[int, list[int]] = {}

    def in_file(chain: Chain) -> list[int]:
        key = id(chain)
        if key not in resolved:
            wanted: list[int] = []
            for loc in chain:
                for line in source_lines_of(loc, source_file, aliases, origins, line_maps):
                    if line not in wanted:
                        wanted.append(line)
            resolved[key] = wanted
        return resolved[key]

    followed = follow_operations(stages, per_stage, lambda chain: next(iter(in_file(chain)), None))
    by_source: dict[str, dict[int, tuple[int, ...]]] = {}
    for name, lines in per_stage.items():
        index: dict[int, list[int]] = defaultdict(list)
        for ir_line, chain in lines.items():
            for src in in_file(chain):
                index[src].append(ir_line)
        # an operation followed to another line links there too (its claim stays linked)
        for ir_line, f in followed.get(name, {}).items():
            if ir_line not in index[f.line]:
                bisect.insort(index[f.line], ir_line)
        by_source[name] = {k: tuple(v) for k, v in index.items()}
    return SourceMap(
        source_file, per_stage, by_source, dict(aliases or {}), dict(origins or {}),
        line_maps=dict(line_maps or {}), followed=followed,
    )  # fmt: skip


def source_map_of(kernel, source_file: str) -> SourceMap:
    """A kernel record's source map over lines of `source_file`, through every generated
    file its record says stands for it (CompiledKernel.source_alias, .source_origins,
    .source_line_map)."""
    return build_source_map(
        kernel.stages, source_file, kernel.source_alias, kernel.source_origins,
        getattr(kernel, "source_line_map", None),
    )  # fmt: skip
