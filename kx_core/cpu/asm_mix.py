"""What a C++ kernel's x86 assembly is made of, for the Summary pane and `kx summary`:
instructions by vector register width, FMAs, packed and scalar floating point, vector
loads and stores, gathers, masked (AVX-512 k-register) instructions and calls.

The counterpart of kx_core/ir/summary.py's SASS mix for a CPU build: a GPU summary's
rows (registers, shared memory, MMA shapes) have no meaning for g++'s output, and an
empty table of them said nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable

# Example: "\tvfmadd231ps\t(%rdi,%rax,4), %ymm1, %ymm0"  (AT&T syntax, as g++ -S writes)
#          "        vmovups ymm0, YMMWORD PTR [rdi+rax*4]"  (Intel syntax)
_INSN_RE = re.compile(r"^\s+([a-z][a-z0-9]*)(?:\s+(.*))?$")
# a memory operand: "(%rdi,%rax,4)", "16(%rsp)", "PTR [rdi+rax*4]"
_MEMORY_RE = re.compile(r"\(%|\bPTR\b|\[")
_WIDTH_RE = {512: re.compile(r"%?\bzmm\d+"), 256: re.compile(r"%?\bymm\d+"), 128: re.compile(r"%?\bxmm\d+")}
_MASK_RE = re.compile(r"\{%?k[1-7]\}")  # "{%k1}": an AVX-512 write mask
_MOVES = re.compile(r"^v?mov(?:[ua]p[sd]|dq[au](?:8|16|32|64)?|ntp[sd]|ntdq|s[sd]|[dq])$")


@dataclass(frozen=True)
class AsmMix(Jsonable):
    """One function's instruction counts (a function's body as g++ emitted it)."""

    function: str
    instructions: int = 0
    by_width: dict[int, int] = field(default_factory=dict)  # vector register bits -> instructions
    fma: int = 0
    packed_fp: int = 0  # ...ps / ...pd arithmetic
    scalar_fp: int = 0  # ...ss / ...sd arithmetic
    vector_loads: int = 0  # a vector move from memory
    vector_stores: int = 0  # a vector move to memory
    gathers: int = 0
    masked: int = 0
    calls: int = 0
    mnemonics: dict[str, int] = field(default_factory=dict)


def asm_mix(function: str, asm: str) -> AsmMix:
    """The counts of one function's assembly text (directives and labels skipped)."""
    widths: Counter = Counter()
    mnemonics: Counter = Counter()
    n = fma = packed = scalar = loads = stores = gathers = masked = calls = 0
    for line in asm.splitlines():
        m = _INSN_RE.match(line)
        if m is None or line.lstrip().startswith("."):
            continue
        op, operands = m.group(1), m.group(2) or ""
        n += 1
        mnemonics[op] += 1
        width = next((w for w, r in _WIDTH_RE.items() if r.search(operands)), None)
        if width:
            widths[width] += 1
        if op.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")):
            fma += 1
        if _MOVES.match(op) and width and _MEMORY_RE.search(operands):
            # AT&T puts the destination last: memory last is a store
            memory_last = bool(_MEMORY_RE.search(operands.split(",")[-1]))
            intel = "PTR" in operands or "[" in operands
            store = (not memory_last) if intel else memory_last
            stores += store
            loads += not store
        elif re.search(r"(?:add|sub|mul|div|max|min|sqrt|fmadd\d*|fmsub\d*|rcp|rsqrt)(p[sd])$", op):
            packed += 1
        elif re.search(r"(?:add|sub|mul|div|max|min|sqrt|fmadd\d*|fmsub\d*|rcp|rsqrt)(s[sd])$", op):
            scalar += 1
        if "gather" in op:
            gathers += 1
        if _MASK_RE.search(operands):
            masked += 1
        if op.startswith("call"):
            calls += 1
    return AsmMix(
        function,
        n,
        dict(widths),
        fma,
        packed,
        scalar,
        loads,
        stores,
        gathers,
        masked,
        calls,
        dict(mnemonics),
    )


def mix_rows(mixes: list[AsmMix]) -> list[tuple[str, list[str]]]:
    """(row label, one cell per function), the most used mnemonics last."""
    rows = [
        ("instructions", [str(m.instructions) for m in mixes]),
        ("512-bit (zmm)", [str(m.by_width.get(512, 0)) for m in mixes]),
        ("256-bit (ymm)", [str(m.by_width.get(256, 0)) for m in mixes]),
        ("128-bit (xmm)", [str(m.by_width.get(128, 0)) for m in mixes]),
        ("FMA", [str(m.fma) for m in mixes]),
        ("packed fp", [str(m.packed_fp) for m in mixes]),
        ("scalar fp", [str(m.scalar_fp) for m in mixes]),
        ("vector loads", [str(m.vector_loads) for m in mixes]),
        ("vector stores", [str(m.vector_stores) for m in mixes]),
        ("gathers", [str(m.gathers) for m in mixes]),
        ("masked (k)", [str(m.masked) for m in mixes]),
        ("calls", [str(m.calls) for m in mixes]),
    ]
    top = Counter()
    for m in mixes:
        top.update(m.mnemonics)
    rows += [(f"  {op}", [str(m.mnemonics.get(op, 0)) for m in mixes]) for op, _ in top.most_common(12)]
    return rows


# Example: "kx_cpu::avx2::rmsnorm(float const*, long) [clone ._omp_fn.0]" -> "rmsnorm [omp_fn.0]"
_CLONE_RE = re.compile(r"\[clone \.?([^\]]+)\]")


def short_function_name(name: str) -> str:
    """A demangled C++ name as a column title has room for: the unqualified name, without
    parameters, with its clone (an OpenMP region's body) kept."""
    head = name.split("(", 1)[0].split("::")[-1] or name
    clone = _CLONE_RE.search(name)
    return f"{head} [{clone.group(1)}]" if clone else head
