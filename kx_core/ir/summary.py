"""Instruction summaries per kernel, comparable across configs and targets.

PTX classes (tensor-core MMAs with their shapes, ldmatrix, cp.async and bulk copies,
barriers, vectorized global loads and stores with their widths) from the PTX, the SASS
instruction mix by opcode family, and the resources ptxas reported.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable
from kx_core.ir.anatomy import mma_shape, ptx_instructions
from kx_core.records.results import CompiledKernel

# Example: "        /*0190*/                   FMUL R5, R4, R4 ;"
#          "        /*0220*/              @!P0 STG.E.128 desc[UR4][R16.64], R12 ;"
_SASS_OPCODE_RE = re.compile(
    r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)"
)
# Example: "st.global.v4.b32" -> vector of 4 x 32 bits
_VEC_RE = re.compile(r"\.v(\d)\.[a-z]*(\d+)$")

# SASS opcodes grouped the way a performance engineer reads a mix.
SASS_FAMILIES: dict[str, tuple[str, ...]] = {
    "tensor": ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "DMMA", "BMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA"),
    "global memory": ("LDG", "STG", "LDGSTS", "LDGDEPBAR", "RED", "ATOMG", "UBLKCP", "UTMALDG", "UTMASTG"),
    "shared memory": ("LDS", "STS", "LDSM", "STSM", "ATOMS"),
    "local memory": ("LDL", "STL"),
    "fp32": ("FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSEL", "FCHK", "MUFU", "FSET", "FRND"),
    "fp16/bf16": ("HFMA2", "HADD2", "HMUL2", "HMNMX2", "HSETP2", "F2FP"),
    "integer": (
        "IMAD",
        "IADD3",
        "IADD",
        "LOP3",
        "SHF",
        "LEA",
        "ISETP",
        "IMNMX",
        "IABS",
        "POPC",
        "FLO",
        "SEL",
        "PRMT",
        "BMSK",
        "SGXT",
        "IMUL",
        "LOP",
        "UIMAD",
        "UIADD3",
        "ULOP3",
        "USHF",
        "ULEA",
        "UISETP",
        "USEL",
        "VIADD",
        "VIMNMX",
        "USGXT",
        "UPRMT",
        "UFLO",
        "UPOPC",
        "UBMSK",
    ),
    "conversion": ("F2F", "F2I", "I2F", "I2FP", "F2IP", "I2I"),
    "data movement": (
        "MOV",
        "UMOV",
        "S2R",
        "S2UR",
        "CS2R",
        "LDC",
        "ULDC",
        "SHFL",
        "R2UR",
        "MOVM",
        "R2P",
        "P2R",
    ),
    "synchronization": (
        "BAR",
        "DEPBAR",
        "MEMBAR",
        "WARPSYNC",
        "SYNCS",
        "ERRBAR",
        "WARPGROUP",
        "FENCE",
        "ARRIVES",
    ),
    "control": (
        "BRA",
        "EXIT",
        "BSSY",
        "BSYNC",
        "CALL",
        "RET",
        "NOP",
        "YIELD",
        "PLOP3",
        "VOTE",
        "VOTEU",
        "WARPSYNC",
        "ELECT",
        "ACQBULK",
        "ENDCOLLECTIVE",
        "UPLOP3",
    ),
}
_FAMILY_OF = {op: fam for fam, ops in SASS_FAMILIES.items() for op in ops}


def sass_opcodes(text: str) -> Counter:
    """Counter of full SASS opcodes ('HMMA.16816.F32', 'LDG.E.128', ...)."""
    out: Counter = Counter()
    for line in text.splitlines():
        m = _SASS_OPCODE_RE.match(line)
        if m:
            out[m.group(1) + m.group(2)] += 1
    return out


def sass_family(opcode: str) -> str:
    """The family of a SASS opcode ('LDG.E.128' -> 'global memory'); 'other' if unknown."""
    return _FAMILY_OF.get(opcode.split(".", 1)[0], "other")


def sass_mix(text: str) -> Counter:
    """Counter family -> number of SASS instructions."""
    mix: Counter = Counter()
    for op, n in sass_opcodes(text).items():
        mix[sass_family(op)] += n
    return mix


@dataclass(frozen=True)
class InstructionSummary(Jsonable):
    """What one compiled kernel is made of. Widths in bits."""

    kernel: str
    target: str
    mma: dict[str, int] = field(default_factory=dict)  # PTX MMA instruction -> count
    mma_shapes: dict[str, int] = field(default_factory=dict)  # 'm16n8k16' -> count
    ldmatrix: int = 0
    cp_async: int = 0  # cp.async copies (not their commit and wait)
    bulk_copies: int = 0  # cp.async.bulk copies (TMA among them)
    barriers: int = 0
    global_vector_loads: dict[int, int] = field(default_factory=dict)  # width in bits -> count
    global_vector_stores: dict[int, int] = field(default_factory=dict)
    sass_total: int = 0
    sass_mix: dict[str, int] = field(default_factory=dict)
    registers: int | None = None
    spills: int | None = None
    shared: int | None = None


def summarize(kernel: CompiledKernel) -> InstructionSummary:
    """The summary of one kernel from its PTX (or LLVM IR) and SASS."""
    ptx = kernel.stages.get("ptx") or kernel.stages.get("llir") or ""
    classes = ptx_instructions(ptx)
    shapes: Counter = Counter()
    for name, n in classes["mma"].items():
        shape = mma_shape(name)
        if shape:
            shapes["m{}n{}k{}".format(*shape)] += n
    loads: Counter = Counter()
    stores: Counter = Counter()
    for name, n in classes["global_vec"].items():
        m = _VEC_RE.search(name)
        if m:
            (loads if name.startswith("ld") else stores)[int(m.group(1)) * int(m.group(2))] += n
    # copies only: a group's commit and wait (cp.async.commit_group, .wait_group,
    # cp.async.bulk.wait_group) move nothing
    copies = {
        name: n for name, n in classes["cp_async"].items() if not re.search(r"\.(?:commit|wait)_", name)
    }
    bulk = sum(n for name, n in copies.items() if ".bulk" in name)
    mix = sass_mix(kernel.stages.get("sass", ""))
    md = kernel.metadata
    return InstructionSummary(
        kernel=kernel.display_name,
        target=kernel.target.spec,
        mma=dict(classes["mma"]),
        mma_shapes=dict(shapes),
        ldmatrix=sum(classes["ldmatrix"].values()),
        cp_async=sum(copies.values()) - bulk,
        bulk_copies=bulk,
        barriers=sum(classes["barrier"].values()),
        global_vector_loads=dict(loads),
        global_vector_stores=dict(stores),
        sass_total=sum(mix.values()),
        sass_mix=dict(mix),
        registers=md.registers if md else None,
        spills=md.spills if md else None,
        shared=md.shared if md else None,
    )


def summary_rows(summaries: list[InstructionSummary]) -> list[tuple[str, list[str]]]:
    """(row label, one cell per kernel) for comparing summaries side by side; SASS
    families come last, the most used first. Used by `kx summary` and the Summary pane."""

    def widths(d: dict[int, int]) -> str:
        return ", ".join(f"{w} b ×{n}" for w, n in sorted(d.items())) or "-"

    rows = [
        ("registers", [str(s.registers) for s in summaries]),
        ("spills", [str(s.spills) for s in summaries]),
        ("shared B", [str(s.shared) for s in summaries]),
        ("MMA shapes", [", ".join(f"{k} ×{v}" for k, v in s.mma_shapes.items()) or "-" for s in summaries]),
        ("ldmatrix", [str(s.ldmatrix) for s in summaries]),
        ("cp.async", [str(s.cp_async) for s in summaries]),
        ("bulk copies", [str(s.bulk_copies) for s in summaries]),
        ("barriers", [str(s.barriers) for s in summaries]),
        ("vector loads", [widths(s.global_vector_loads) for s in summaries]),
        ("vector stores", [widths(s.global_vector_stores) for s in summaries]),
        ("SASS instructions", [str(s.sass_total) for s in summaries]),
    ]
    families = sorted(
        {f for s in summaries for f in s.sass_mix},
        key=lambda f: -max(s.sass_mix.get(f, 0) for s in summaries),
    )
    rows += [(f"  {f}", [str(s.sass_mix.get(f, 0)) for s in summaries]) for f in families]
    return rows


def format_summaries(summaries: list[InstructionSummary]) -> str:
    """A table with one column per kernel/config, for comparing them."""
    if not summaries:
        return "no compiled kernels"
    return format_rows([s.kernel for s in summaries], summary_rows(summaries))


def format_rows(names: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """Rows of (label, one cell per name) as a text table, a column per name."""
    if not names:
        return "no compiled kernels"
    width = max(len(r[0]) for r in rows)
    cols = [max([len(name)] + [len(r[1][i]) for r in rows]) for i, name in enumerate(names)]
    lines = [" " * width + "  " + "  ".join(name.ljust(c) for name, c in zip(names, cols))]
    lines += [
        name.ljust(width) + "  " + "  ".join(v.ljust(c) for v, c in zip(vals, cols)) for name, vals in rows
    ]
    return "\n".join(lines)
