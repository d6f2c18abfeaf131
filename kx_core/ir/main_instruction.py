"""Which of a source line's linked IR lines is its main one, and the linked blocks.

A Python line such as `acc += tl.dot(a, b)` becomes, in SASS, a few uniform-register
shifts and moves, then the HGMMA that does the work: the view should land on the HGMMA,
not on the first USHF. Lines are ranked by what their instruction does: matrix units
first, then global memory traffic, shared memory, floating-point math, other arithmetic,
and moves, address and control last (an instruction predicated never to run, after all). A linked block is a run of consecutive linked lines; the stage
view steps through them (next / previous linked block).

    main_line("sass", (40, 41, 42), lines)  ->  42   # "HGMMA.64x128x16.F32 ..."
    blocks((3, 4, 5, 9, 12, 13))            ->  ((3, 5), (9, 9), (12, 13))
"""

from __future__ import annotations

import re

# Each syntax's ranks, most important first; the first pattern a line matches gives its
# rank (a lower number is more important); a line matching none ranks after them all.
_RANKS: dict[str, tuple[re.Pattern, ...]] = {
    # Example: "/*0470*/  HGMMA.64x128x16.F32 gdesc[UR4], RZ, !UPT ;"
    "sass": (
        re.compile(r"\b(?:HGMMA|HMMA|IMMA|DMMA|QGMMA|IGMMA|UTCHMMA|UTCQMMA|UTCIMMA)\b"),
        re.compile(r"\b(?:LDG|STG|LDGSTS|UTMALDG|UTMASTG|UBLKCP|ATOMG|RED|ATOM)\b"),
        re.compile(r"\b(?:LDS|STS|LDSM|STSM|LD|ST)\b"),
        re.compile(r"\b(?:FFMA|FADD|FMUL|FMNMX|MUFU|HFMA2|HADD2|HMUL2|DFMA|DADD|DMUL|F2F|F2FP)\b"),
        re.compile(r"\b(?:IMAD|IADD3|ISETP|FSETP|LEA|LOP3|SHF|SEL|FSEL|I2F|F2I)\b"),
    ),
    # Example: "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 ...", "\tld.global.v4.b32 ..."
    "ptx": (
        re.compile(r"\b(?:wgmma\.mma_async|mma\.sync|tcgen05\.mma)"),
        re.compile(r"\b(?:ld\.global|st\.global|cp\.async\.(?:cg|ca|bulk)|atom\.|red\.)"),
        re.compile(r"\b(?:ld\.shared|st\.shared|ldmatrix|stmatrix)"),
        re.compile(r"^\s*(?:@\S+\s+)?(?:fma|add|mul|sub|max|min|ex2|rcp|div|cvt)\.(?:rn\.)?(?:f|bf|e)"),
        re.compile(r"^\s*(?:@\S+\s+)?(?:mad|add|mul|sub|setp|selp|shl|shr|and|or|xor)\."),
    ),
    # Example: "  tail call ... asm sideeffect \"wgmma.mma_async...", "  %9 = load <4 x float>, ptr addrspace(1) %8"
    "llvm": (
        re.compile(r"wgmma\.mma_async|mma\.sync|tcgen05\.mma|@llvm\.nvvm\.wgmma\.mma"),
        re.compile(r"addrspace\(1\)|ld\.global|st\.global|cp\.async|atomicrmw|cmpxchg"),
        re.compile(r"=\s*load\b|^\s*store\b|ld\.shared|st\.shared|ldmatrix|stmatrix"),
        re.compile(r"=\s*(?:fadd|fmul|fsub|fdiv|fneg)\b|@llvm\.(?:fma|fmuladd|exp2|maxnum|minnum)"),
        re.compile(r"=\s*(?:add|mul|sub|shl|lshr|ashr|and|or|xor|icmp|fcmp|select)\b"),
    ),
    # Example: "%acc = tt.dot %a, %b, %c ...", "%x = tt.load %ptrs, %mask ..."
    "mlir": (
        re.compile(r"\b(?:tt\.dot|tt\.dot_scaled|ttng\.warp_group_dot|ttng\.tc_gen5_mma)\b"),
        re.compile(
            r"\b(?:tt\.load|tt\.store|tt\.descriptor_load|tt\.descriptor_store|tt\.atomic_\w+|"
            r"ttg\.async_copy_global_to_local|ttng\.async_tma_\w+)\b"
        ),
        re.compile(r"\b(?:ttg\.local_load|ttg\.local_store|ttg\.local_alloc)\b"),
        re.compile(r"\b(?:arith\.(?:addf|mulf|subf|divf|maximumf|minimumf)|math\.\w+|tt\.reduce|tt\.scan)\b"),
        re.compile(r"\b(?:arith\.\w+|tt\.addptr|ttg\.convert_layout)\b"),
    ),
}
# Example: "/*0490*/  @!PT LDS RZ, [RZ] ;" (never executed: ptxas's placeholder), and a
# comment line ("\t//## File \"k.py\", line 40", "; Function Attrs: nounwind"): never the main one
_NEVER_RE = re.compile(r"@!PT\b|^\s*(?://|;)")


def rank(syntax: str, text: str) -> int:
    """0 for the most important kind of instruction, len(ranks) for the least."""
    patterns = _RANKS.get(syntax, ())
    if _NEVER_RE.search(text):
        return len(patterns) + 1
    return next((i for i, p in enumerate(patterns) if p.search(text)), len(patterns))


def main_line(syntax: str, lines, text_lines: list[str]) -> int | None:
    """The most important of `lines` (1-based, into text_lines); the first on a tie."""
    lines = [n for n in lines if 0 < n <= len(text_lines)]
    if not lines:
        return None
    return min(lines, key=lambda n: (rank(syntax, text_lines[n - 1]), n))


def blocks(lines) -> tuple[tuple[int, int], ...]:
    """Runs of consecutive line numbers, as (first, last), in order."""
    out: list[list[int]] = []
    for n in sorted(set(lines)):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return tuple((a, b) for a, b in out)
