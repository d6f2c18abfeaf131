"""PC samples on lines of every stage: a sampled SASS offset is a line of the SASS text;
kx's source map carries it on to the Python line and to the TTIR, TTGIR, LLVM IR and PTX
lines of the same statement.

SASS lines get exactly their instruction's samples, so they sum to the kernel's total.
A source line gets the samples of the instructions whose innermost location is that line
(an inlined helper's line, not its call site), so source lines sum to the total less the
samples on instructions without a location (`unattributed`). An IR line of another stage
gets the samples of the statement it belongs to: the IR has no per-instruction samples of
its own, and several IR lines share one statement, so those do not sum to the total."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable
from kx_core.ir.sourcemap import build_source_map, same_source
from kx_core.records.backends import CUDA

# the IR stages a CUDA profile's SASS heat is carried to through the source lines
_IR_STAGES = tuple(s.name for s in CUDA.stages if s.triton_ir)

# Example: "        /*0070*/                   IMAD.SHL.U32 R17, R17, 0x400, RZ ;"
_OFFSET_RE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/")


@dataclass(frozen=True)
class LineHeat(Jsonable):
    samples: int
    stalled: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def top_reason(self) -> str:
        return max(self.reasons, key=self.reasons.get) if self.reasons else ""

    def plus(self, other: LineHeat) -> LineHeat:
        reasons = dict(self.reasons)
        for k, v in other.reasons.items():
            reasons[k] = reasons.get(k, 0) + v
        return LineHeat(self.samples + other.samples, self.stalled + other.stalled, reasons)


@dataclass(frozen=True)
class HotLines(Jsonable):
    """stage -> line -> heat; `source` is the Python file's lines."""

    kernel: str
    total: int
    by_stage: dict[str, dict[int, LineHeat]]
    unattributed: int = 0  # samples on SASS without a source location
    unmatched: int = 0  # samples at offsets the SASS text does not have (should be 0)


def _heat(counts: dict[str, int]) -> LineHeat:
    reasons = {k: v for k, v in counts.items() if k not in ("samples", "stalled")}
    return LineHeat(counts.get("samples", 0), counts.get("stalled", 0), reasons)


def sass_offsets(sass: str) -> dict[int, int]:
    """SASS offset -> 1-based line of the SASS text."""
    out = {}
    for number, raw in enumerate(sass.splitlines(), start=1):
        m = _OFFSET_RE.match(raw)
        if m:
            out[int(m.group(1), 16)] = number
    return out


def attribute(profile) -> HotLines:
    """A KernelProfile's samples on the lines of its own stages; a Proton profile's (its
    samples per source line, no PCs: `by_line_heat`) on its source lines."""
    if not profile.by_pc and getattr(profile, "by_line", None):
        return by_line_heat(profile)
    stages = profile.stages
    sass = stages.get("sass", "")
    offsets = sass_offsets(sass)
    smap = build_source_map({k: v for k, v in stages.items() if k != "sass_error"}, profile.source_file)
    by_sass: dict[int, LineHeat] = {}
    unmatched = 0
    for key, counts in profile.by_pc.items():
        line = offsets.get(int(key, 16))
        if line is None:
            unmatched += counts.get("samples", 0)
            continue
        heat = _heat(counts)
        by_sass[line] = by_sass[line].plus(heat) if line in by_sass else heat
    by_source: dict[int, LineHeat] = {}
    unattributed = 0
    chains = smap.stages.get("sass", {})
    for line, heat in by_sass.items():
        inner = next(
            (loc.line for loc in chains.get(line, ()) if same_source(loc.file, profile.source_file)), None
        )
        if inner is None:
            unattributed += heat.samples
            continue
        by_source[inner] = by_source[inner].plus(heat) if inner in by_source else heat
    by_stage: dict[str, dict[int, LineHeat]] = {"sass": by_sass, "source": by_source}
    for stage in _IR_STAGES:
        by_stage[stage] = _statement_heat(by_source, smap.by_source.get(stage, {}))
    return HotLines(profile.kernel, profile.samples, by_stage, unattributed, unmatched)


def by_line_heat(profile) -> HotLines:
    """A profile that has samples per "file:line" (Proton's frames), not per PC, as hot
    lines: its source file's lines as sampled (lines of another file, an inlined helper's,
    are `unattributed`); a stage's lines get theirs from a build's source map (heat_for)."""
    by_source: dict[int, LineHeat] = {}
    for key, counts in profile.by_line.items():
        file, _, line = key.rpartition(":")
        if not line.isdigit() or not same_source(file, profile.source_file):
            continue
        heat = _heat(counts)
        n = int(line)
        by_source[n] = by_source[n].plus(heat) if n in by_source else heat
    total = profile.samples or sum(h.samples for h in by_source.values())
    unattributed = max(0, total - sum(h.samples for h in by_source.values()))
    return HotLines(profile.kernel, total, {"source": by_source}, unattributed, 0)


def _statement_heat(by_source: dict[int, LineHeat], index: dict[int, tuple[int, ...]]) -> dict[int, LineHeat]:
    """Each IR line (index: source line -> its IR lines) with its statement's heat; an IR
    line of two statements (rare: a fused location) gets the hotter one's."""
    lines: dict[int, LineHeat] = {}
    for src, heat in by_source.items():
        for ir_line in index.get(src, ()):
            if ir_line not in lines or lines[ir_line].samples < heat.samples:
                lines[ir_line] = heat
    return lines


@dataclass(frozen=True)
class HotRow(Jsonable):
    stage: str
    line: int
    samples: int
    share: float  # of the kernel's samples
    top_reason: str
    text: str


def hottest(hot: HotLines, texts: dict[str, str], stages=("source", "sass"), n: int = 20) -> list[HotRow]:
    """The n hottest lines of the given stages, hottest first (the Hot lines table)."""
    rows = []
    for stage in stages:
        lines = (texts.get(stage) or "").splitlines()
        for line, heat in hot.by_stage.get(stage, {}).items():
            text = " ".join(lines[line - 1].split()) if 0 < line <= len(lines) else ""
            share = heat.samples / hot.total if hot.total else 0.0
            rows.append(HotRow(stage, line, heat.samples, share, heat.top_reason(), text))
    rows.sort(key=lambda r: (-r.samples, r.stage, r.line))
    return rows[:n]


def heat_for(
    hot: HotLines, stages: dict[str, str], source_map, profiled_sass: str
) -> dict[str, dict[int, LineHeat]]:
    """A profile's heat on the lines of a kernel as kx shows it (its own compile of the
    same file): the source lines as sampled; each stage's lines with their statement's
    heat through the shown kernel's source map; SASS exactly, per instruction, when the
    shown SASS is the SASS that was sampled (else by statement, as the other stages)."""
    source = hot.by_stage.get("source", {})
    out: dict[str, dict[int, LineHeat]] = {"source": source}
    for stage, index in (source_map.by_source if source_map is not None else {}).items():
        if stage == "sass" and stages.get("sass") == profiled_sass:
            out["sass"] = hot.by_stage.get("sass", {})
            continue
        out[stage] = _statement_heat(source, index)
    return out


def heat_tip(heat: LineHeat, total: int) -> str:
    """A line's hover text: its samples, share and leading stall reasons."""
    share = 100.0 * heat.samples / total if total else 0.0
    top = sorted(heat.reasons.items(), key=lambda kv: -kv[1])[:3]
    reasons = ", ".join(
        f"{r.removeprefix('stalled_')} {100.0 * n / heat.stalled:.0f}%" for r, n in top if heat.stalled
    )
    return f"{heat.samples:,} samples ({share:.1f}% of the kernel)" + (
        f"; stalled on {reasons}" if reasons else ""
    )
