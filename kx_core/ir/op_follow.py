"""Links that follow operations down the stages, beside the ones each stage's line table claims.

A stage's debug info does not always name the line an instruction's operation came from:

- LLVM gives every line of a multi-line inline asm its own `.loc`, the call's line plus
  the asm line's index (Triton 3.8's PTX). The `ld.global` of `x = tl.load(...)` on line
  11 is then "line 14", the fourth line of its asm, whatever line 14 holds:

      .loc 1 11 9          <- the asm call's own location (its LLVM `!dbg`)
      // begin inline asm
      .loc 1 11 9
      mov.u32 %r1, 0x0;
      .loc 1 14 9          <- not line 14's: the same call's fourth asm line
      @%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];

- ptxas schedules across statements and its line table names a neighbour: 2 of a
  `tl.dot`'s 4 HGMMAs "on" the load line above it.

So each operation kx can recognise at every stage (a *family*: global loads, stores, async
and TMA copies, matrix-unit instructions, atomics) is followed from the stage above: an
instruction whose claimed line has no operation of its family in the stage above is the
operation of the line that has one (the only one; else the one its nearest same-family
neighbour in this stage honestly belongs to; else the nearest by line). The MLIR stages
are the truth the first lowered stage is checked against: their locations are the AST's.
The claim is kept: kx shows both, and says which one the debug info makes.

    follow_operations({"ttgir": ..., "llir": ..., "ptx": ..., "sass": ...}, chains, in_file)
      -> {"ptx": {60: Followed(claimed=14, line=11, family="global load", via="inline asm")}, ...}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.records.backends import ALL_STAGES

# family -> stage syntax -> pattern, matched against a line's *key* (_key): the op name
# in MLIR, the opcode in PTX, SASS and AMDGCN, the whole line in LLVM IR (where the
# instruction is an inline asm's text). Examples of the lines and their keys:
#   mlir "%x = tt.load %ptrs, %mask : tensor<1024x!tt.ptr<f32>, #blocked>"   -> "tt.load"
#   llvm "%19 = tail call { i32, i32 } asm sideeffect \"... ld.global.v4.b32 ...\""  (the line)
#   ptx  "@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];"      -> "ld.global.v4.b32"
#   sass "/*0120*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"                  -> "LDG.E.128"
#   gas  "global_load_dwordx4 v[0:3], v[4:5], off"  (AMDGCN)                -> "global_load_dwordx4"
_FAMILY_TEXT: dict[str, dict[str, str]] = {
    "mma": {
        "mlir": r"^(?:tt\.dot|tt\.dot_scaled|ttng\.warp_group_dot|ttng\.tc_gen5_mma\w*)$",
        "llvm": r"wgmma\.mma_async|mma\.sync|tcgen05\.mma|@llvm\.nvvm\.wgmma|@llvm\.amdgcn\.(?:mfma|wmma)",
        "ptx": r"^(?:wgmma\.mma_async|mma\.sync|tcgen05\.mma)\b",
        "sass": r"^(?:HGMMA|HMMA|IMMA|DMMA|QGMMA|IGMMA|UTCHMMA|UTCQMMA|UTCIMMA|UTCOMMA)\b",
        "gas": r"^v_(?:mfma|wmma|smfmac)",
    },
    "global load": {
        "mlir": r"^tt\.load$",
        "llvm": r"\bld\.global\b|=\s*load\b.*addrspace\(1\)|@llvm\.amdgcn\.raw\.(?:ptr\.)?buffer\.load",
        "ptx": r"^ld\.global\b",
        "sass": r"^LDG\b",
        "gas": r"^(?:global_load|buffer_load)_",
    },
    "global store": {
        "mlir": r"^tt\.store$",
        "llvm": r"\bst\.global\b|^\s*store\b.*addrspace\(1\)|@llvm\.amdgcn\.raw\.(?:ptr\.)?buffer\.store",
        "ptx": r"^st\.global\b",
        "sass": r"^STG\b",
        "gas": r"^(?:global_store|buffer_store)_",
    },
    "async copy": {
        "mlir": r"^ttg\.async_copy_global_to_local$",
        "llvm": r"\bcp\.async\.c[ag]\.shared",
        "ptx": r"^cp\.async\.c[ag]\.shared",
        "sass": r"^LDGSTS\b",
    },
    "TMA load": {
        "mlir": (
            r"^(?:tt\.descriptor_load|tt\.descriptor_gather|ttng\.async_tma_copy_global_to_local"
            r"|ttng\.async_tma_gather)$"
        ),
        "llvm": r"cp\.async\.bulk\.tensor\.\w+\.shared::cluster\.global|@llvm\.nvvm\.cp\.async\.bulk\.tensor\.g2s",
        "ptx": r"^cp\.async\.bulk\.tensor\.\w+\.shared::cluster\.global",
        "sass": r"^UTMALDG\b",
    },
    "TMA store": {
        "mlir": r"^(?:tt\.descriptor_store|ttng\.async_tma_copy_local_to_global)$",
        "llvm": r"cp\.async\.bulk\.tensor\.\w+\.global\.shared|@llvm\.nvvm\.cp\.async\.bulk\.tensor\.s2g",
        "ptx": r"^cp\.async\.bulk\.tensor\.\w+\.global\.shared",
        "sass": r"^UTMASTG\b",
    },
    "atomic": {
        "mlir": r"^tt\.atomic_(?:rmw|cas)$",
        "llvm": r"\b(?:atom|red)\.(?:global|gpu|cta|sys|relaxed|acquire|release|acq_rel)|\batomicrmw\b|\bcmpxchg\b",
        "ptx": r"^(?:atom|red)\.",
        "sass": r"^(?:ATOMG|ATOM|RED|REDG|ATOMS)\b",
        "gas": r"^(?:global|buffer)_atomic_",
    },
}
_FAMILIES: dict[str, tuple[tuple[str, re.Pattern], ...]] = {
    syntax: tuple(
        (family, re.compile(by_syntax[syntax]))
        for family, by_syntax in _FAMILY_TEXT.items()
        if syntax in by_syntax
    )
    for syntax in {s for by in _FAMILY_TEXT.values() for s in by}
}
# A line's key. Examples: "%x = tt.load %p" -> "tt.load"; "@%p1 ld.global.v4.b32 {...}" ->
# "ld.global.v4.b32"; "/*0120*/  @!P0 LDG.E.128 R4, ..." -> "LDG.E.128"; "\tv_mfma_f32_32x32x8f16 a[0:15]" -> "v_mfma_f32_32x32x8f16"
_KEY_RE = {
    "mlir": re.compile(r'^\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?"?([a-z_]+\.[a-z_][\w.]*)'),
    "ptx": re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)"),
    "sass": re.compile(r"^\s*/\*[0-9a-f]+\*/\s*(?:@!?U?P\w+\s+)?([A-Z][\w.]*)"),
    "gas": re.compile(r"^\s*([a-z][\w]*)"),
}
# LLVM IR: only a line with one of these can hold an operation of a family (the test is
# a substring search, far cheaper than the patterns)
_LLVM_HINTS = ("asm", "addrspace(1)", "@llvm.nvvm.", "@llvm.amdgcn.", "atomicrmw", "cmpxchg")


def _key(syntax: str, text: str) -> str | None:
    if syntax == "llvm":
        return text if any(h in text for h in _LLVM_HINTS) else None
    pattern = _KEY_RE.get(syntax)
    m = pattern.match(text) if pattern is not None else None
    return m.group(1) if m else None


# a comment or directive line is never an operation: "; Function Attrs: ...", "// begin inline asm"
_NOT_CODE_RE = re.compile(r"^\s*(?://|;|#|\.loc\b|\.file\b)")
# Example: "/*0490*/  @!PT LDS RZ, [RZ] ;" (ptxas's placeholder: never executed)
_NEVER_RE = re.compile(r"@!PT\b")
# Example: "\t// begin inline asm" ... "\t// end inline asm" (PTX)
_ASM_BEGIN_RE = re.compile(r"^\s*// begin inline asm")
_ASM_END_RE = re.compile(r"^\s*// end inline asm")
# Example: "\t.loc\t1 11 9 // reassign.py:11:9"
_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")


@dataclass(frozen=True)
class Followed(Jsonable):
    """An instruction whose operation is another source line's than its debug info says."""

    claimed: int  # the line the stage's debug info names (innermost, in the source file)
    line: int  # the line whose operation it is, followed from the stage above
    # 'global load', 'mma', ...; an inline asm's every line has its block's family
    family: str
    # how it was followed: 'inline asm' (the asm call's own location), 'only' (the only
    # line with an operation of its family), 'neighbour' (its nearest same-family
    # instruction's line), 'nearest' (the nearest line with one)
    via: str

    def words(self, stage_name: str) -> str:
        """'debug info names line 14; the global load is line 11's (inline asm)'."""
        how = {
            "inline asm": "the inline asm's own location",
            "only": f"the only {self.family} in the stage above",
            "neighbour": f"as its neighbouring {self.family}s",
            "nearest": f"the nearest line with a {self.family} in the stage above",
        }.get(self.via, self.via)
        named = f"line {self.claimed}" if self.claimed else "no line of this file"
        return f"{stage_name}'s debug info names {named}; this {self.family} is line {self.line}'s ({how})"


def family_of(syntax: str, text: str) -> str | None:
    """The family of an instruction or op line in `syntax`, or None."""
    key = _key(syntax, text)
    if key is None or _NOT_CODE_RE.match(text) or _NEVER_RE.search(text):
        return None
    return next((family for family, p in _FAMILIES.get(syntax, ()) if p.search(key)), None)


def inline_asm_blocks(text: str) -> list[tuple[int, tuple[int, ...]]]:
    """PTX: (line of the `.loc` that holds for the whole block, the block's lines) of each
    inline asm block: the first `.loc` inside it, else the last one before it. The asm is
    one LLVM call with one location, whatever `.loc`s LLVM put between its lines."""
    out: list[tuple[int, tuple[int, ...]]] = []
    last_loc: int | None = None
    block: list[int] | None = None
    block_loc: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if block is None:
            if _ASM_BEGIN_RE.match(raw):
                block, block_loc = [], None
            elif _LOC_RE.match(raw):
                last_loc = number
            continue
        if _ASM_END_RE.match(raw):
            owner = block_loc or last_loc
            if owner is not None and block:
                out.append((owner, tuple(block)))
            last_loc = block_loc or last_loc
            block = None
            continue
        if _LOC_RE.match(raw):
            block_loc = block_loc or number
            continue
        block.append(number)
    return out


def follow_operations(
    stages: dict[str, str],
    chains: dict[str, dict[int, tuple]],
    in_file: Callable[[tuple], int | None],
) -> dict[str, dict[int, Followed]]:
    """stage -> IR line -> Followed, for the lines whose operation kx followed to another
    source line than the stage's line table names. `chains` are each stage's parsed
    locations (kx_core.ir.sourcemap.line_locations); `in_file(chain)` is the chain's
    innermost line in the file shown, or None."""
    order = sorted(
        (s for s in stages if s in ALL_STAGES and ALL_STAGES[s].links and s in chains),
        key=lambda s: ALL_STAGES[s].order,
    )
    # family -> source lines holding an operation of it, in the latest stage that has it
    truth: dict[str, set[int]] = {}
    out: dict[str, dict[int, Followed]] = {}
    for stage in order:
        syntax = ALL_STAGES[stage].syntax
        text_lines = stages[stage].splitlines()
        stage_chains = chains[stage]
        asm_blocks = inline_asm_blocks(stages[stage]) if syntax == "ptx" else []
        # (ir line, family, claimed line) of every recognised operation, in order
        ops: list[tuple[int, str, int]] = []
        for ir_line, chain in stage_chains.items():
            if not 0 < ir_line <= len(text_lines):
                continue
            family = family_of(syntax, text_lines[ir_line - 1])
            claimed = in_file(chain) if family else None
            if family and claimed is not None:
                ops.append((ir_line, family, claimed))
            elif family and chain and truth.get(family):
                # located, but at no line of the file (a generated module's line past its
                # code: the inline asm offsets above, through ptxas's line table): an
                # operation the stage above has, followed like any other; 0 names no line
                ops.append((ir_line, family, 0))
        followed: dict[int, Followed] = {}
        if syntax != "mlir":
            # the inline asm block's own location first (exact), then the family rule
            for owner, members in asm_blocks:
                line = in_file(stage_chains[owner]) if owner in stage_chains else None
                families = (family_of(syntax, text_lines[n - 1]) for n in members)
                family = next((f for f in families if f), "inline asm")
                for ir_line in members:
                    claimed = in_file(stage_chains.get(ir_line, ()))
                    # an asm line "at" a line the file does not have (past a generated
                    # module's code: Helion's) is the block's too; 0 names no line
                    if line is not None and claimed != line and ir_line in stage_chains:
                        followed[ir_line] = Followed(claimed or 0, line, family, "inline asm")
            honest = {
                n: (followed[n].line if n in followed else c)
                for n, f, c in ops
                if n in followed or c in truth.get(f, {c})
            }
            for ir_line, family, claimed in ops:
                if ir_line in honest:
                    continue
                line, via = _follow(ir_line, family, claimed, truth[family], ops, honest)
                followed[ir_line] = Followed(claimed, line, family, via)
            if followed:
                out[stage] = dict(sorted(followed.items()))
        here: dict[str, set[int]] = {}
        for ir_line, family, claimed in ops:
            f = followed.get(ir_line)
            here.setdefault(family, set()).add(f.line if f else claimed)
        truth.update(here)
    return out


def _follow(
    ir_line: int,
    family: str,
    claimed: int,
    candidates: set[int],
    ops: list[tuple[int, str, int]],
    honest: dict[int, int],
) -> tuple[int, str]:
    """The source line an operation claimed at a line without one of its family belongs to."""
    if len(candidates) == 1:
        return next(iter(candidates)), "only"
    # the nearest same-family instruction of this stage whose line is honest (earlier on a tie)
    near = [
        (abs(n - ir_line), n > ir_line, honest[n])
        for n, f, _c in ops
        if f == family and n in honest and honest[n] in candidates
    ]
    if near:
        return min(near)[2], "neighbour"
    return min(candidates, key=lambda c: (abs(c - claimed), c)), "nearest"
