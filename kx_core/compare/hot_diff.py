"""The hot-line difference of two builds: per source line and per stage line, the time of
each call spent there on side A and on side B (PC samples, kx_core.ir.hot_lines), with
the stall reasons' change, so the lines that got slower are marked.

A line's time per call is its share of the kernel's samples times the kernel's measured
time per call (the profile's window over its calls): PC sampling takes a sample every so
many cycles, so samples divide a call's time, and two builds whose calls take different
times compare in microseconds, not in shares. Lines are paired across the two builds by
their text: source lines through the files' matching lines (kx_core.base.line_shift),
stage lines through difflib on the text with SSA numbers, registers and offsets masked
(an added line, or one only one side has, pairs with nothing and is listed alone).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable
from kx_core.base.line_shift import LineShift
from kx_core.ir.hot_lines import HotLines, LineHeat

# Examples: "%12 = arith.addf %9, %11 : f32", "/*0070*/  LDG.E R2, desc[UR4][R2.64] ;"
_MASKS = (
    re.compile(r"/\*[0-9a-f]{4,}\*/"),  # SASS offsets
    re.compile(r"\b[RPU]R?\d+\b"),  # SASS registers: R12, P0, UR4, UP1
    re.compile(r"%[A-Za-z_]*\d+"),  # SSA values and PTX registers: %12, %r5, %rd3
    re.compile(r"(#loc|\^bb|!)\d+"),  # locations, blocks, metadata
)


def _masked(line: str) -> str:
    s = line.strip()
    for rx in _MASKS:
        s = rx.sub("#", s)
    return s


def stage_pairs(text_a: str, text_b: str) -> dict[int, int]:
    """Line of A -> line of B (1-based) for the lines the two stage texts share, masked."""
    a = [_masked(x) for x in text_a.splitlines()]
    b = [_masked(x) for x in text_b.splitlines()]
    out: dict[int, int] = {}
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.a + k + 1] = block.b + k + 1
    return out


@dataclass(frozen=True)
class LineDelta(Jsonable):
    """One line's time per call on each side (microseconds) and the change of its stalls."""

    stage: str
    line_a: int | None
    line_b: int | None
    us_a: float
    us_b: float
    samples_a: int
    samples_b: int
    text: str
    # stall reason -> its change in time per call (us), B minus A
    reasons: dict[str, float] = field(default_factory=dict)

    @property
    def delta_us(self) -> float:
        return self.us_b - self.us_a


@dataclass(frozen=True)
class HotDiff(Jsonable):
    call_us_a: float
    call_us_b: float
    lines: tuple[LineDelta, ...]  # every line with samples on either side, biggest change first

    def slower(self, stage: str = "source", n: int = 10) -> list[LineDelta]:
        """The lines of `stage` that got slower, most first."""
        return [d for d in self.lines if d.stage == stage and d.delta_us > 0][:n]


def _per_call_us(heat: LineHeat, total: int, call_us: float) -> float:
    return heat.samples / total * call_us if total else 0.0


def hot_diff(
    hot_a: HotLines,
    hot_b: HotLines,
    call_us_a: float,
    call_us_b: float,
    texts_a: dict[str, str],
    texts_b: dict[str, str],
) -> HotDiff:
    """Each stage's lines (source included: its text under 'source') paired across the
    two builds, with their time per call on each side. `texts_*`: stage -> the text the
    profile's line numbers are of (the source file's text for 'source')."""
    out: list[LineDelta] = []
    for stage in sorted(set(hot_a.by_stage) | set(hot_b.by_stage)):
        a_heat, b_heat = hot_a.by_stage.get(stage, {}), hot_b.by_stage.get(stage, {})
        ta, tb = texts_a.get(stage, ""), texts_b.get(stage, "")
        if stage == "source" or ta == tb:
            shift = LineShift.between(ta, tb)
            forward, back = shift.new_line, shift.old_line
        else:
            pairs = stage_pairs(ta, tb)
            forward, back = pairs.get, {b: a for a, b in pairs.items()}.get
        lines_b = tb.splitlines()
        lines_a = ta.splitlines()
        seen_b: set[int] = set()
        for la, ha in a_heat.items():
            lb = forward(la)
            hb = b_heat.get(lb) if lb else None
            if lb:
                seen_b.add(lb)
            out.append(_delta(stage, la, lb, ha, hb, hot_a, hot_b, call_us_a, call_us_b, lines_a, lines_b))
        for lb, hb in b_heat.items():
            if lb in seen_b:
                continue
            la = back(lb)
            out.append(_delta(stage, la, lb, None, hb, hot_a, hot_b, call_us_a, call_us_b, lines_a, lines_b))
    out.sort(key=lambda d: -abs(d.delta_us))
    return HotDiff(call_us_a, call_us_b, tuple(out))


def _delta(stage, la, lb, ha, hb, hot_a, hot_b, call_us_a, call_us_b, lines_a, lines_b) -> LineDelta:
    empty = LineHeat(0)
    ha, hb = ha or empty, hb or empty
    us_a = _per_call_us(ha, hot_a.total, call_us_a)
    us_b = _per_call_us(hb, hot_b.total, call_us_b)
    reasons = {}
    for r in set(ha.reasons) | set(hb.reasons):
        ra = ha.reasons.get(r, 0) / hot_a.total * call_us_a if hot_a.total else 0.0
        rb = hb.reasons.get(r, 0) / hot_b.total * call_us_b if hot_b.total else 0.0
        if ra != rb:
            reasons[r] = rb - ra
    text = (
        lines_b[lb - 1] if lb and lb <= len(lines_b) else lines_a[la - 1] if la and la <= len(lines_a) else ""
    )
    return LineDelta(stage, la, lb, us_a, us_b, ha.samples, hb.samples, text.strip(), reasons)
