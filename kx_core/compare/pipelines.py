"""The first pass where two pass pipelines diverge.

Both sides' passes (kx's pass capture, `--passes`) are aligned by what each is (kind,
pipeline, name, function), the IR before each compared with locations, debug metadata
and SSA numbering masked (an edited copy of a file has other paths and lines, not other
IR). Where the IR before aligned pass i first differs, pass i-1 is the one whose output
differs from equal inputs: the divergent pass; where it differs before the first pass,
the front end (the TTIR Triton's code generator made of the source) already differs.

    first_divergence(a.passes, b.passes)
      -> Divergence(index_a=41, index_b=41, name="TritonGPUPipeline", ...)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.ir.passes import ir_around
from kx_core.ir.textdiff import side_by_side
from kx_core.records.results import PassDump

# What an edited copy or another folder changes without changing the IR. Examples:
#   '#loc12 = loc("/k/a.py":31:29)', '... loc(#loc12)', '!12 = !DILocation(line: 3, ...)',
#   ', !dbg !27', 'source_filename = "LLVMDialectModule"', '; ModuleID = ...'
_LOC_ALIAS_RE = re.compile(r"^\s*#loc\w*\s*=\s*loc\(")
_TRAILING_LOC_RE = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)\s*$")
_DEBUG_META_RE = re.compile(r"^\s*(?:!\w+\s*=|source_filename\b|; ModuleID\b|!llvm\.)")
_DBG_REF_RE = re.compile(r",\s*!dbg\s+!\d+")
_RENUMBERED_RE = re.compile(r"(%[A-Za-z_][\w$.]*?_|%|#loc|\^bb|!)\d+")


def normalised(ir: str) -> tuple[str, ...]:
    """IR lines as compared across builds."""
    out = []
    for line in ir.splitlines():
        s = line.strip()
        if not s or _LOC_ALIAS_RE.match(s) or _DEBUG_META_RE.match(s):
            continue
        s = _DBG_REF_RE.sub("", _TRAILING_LOC_RE.sub("", s))
        out.append(_RENUMBERED_RE.sub(r"\1N", s))
    return tuple(out)


@dataclass(frozen=True)
class Divergence(Jsonable):
    """The first pass whose output differs between the two sides (index None: the input
    to the first pass already differs, i.e. the front end)."""

    index_a: int | None
    index_b: int | None
    name: str
    argument: str
    pipeline: int
    function: str | None
    aligned: int  # passes aligned before it, with equal input
    only_a: int  # passes of A with no counterpart in B (in the whole pipeline)
    only_b: int
    # the passes only one side ran between the last equal pair and the first unequal one:
    # the divergence is among them ('A: TritonGPUFoo', ...); empty when the pair is it
    unmatched: tuple[str, ...]
    # the pass's output on each side (the next pass's input), and how many of each
    # side's lines the diff of the two marks (locations and SSA numbering masked)
    after_a: str
    after_b: str
    differing_a: int
    differing_b: int

    def text(self) -> str:
        if self.index_a is None:
            return (
                "the pipelines' inputs differ: the front end (TTIR from the source) made "
                f"different IR ({self.differing_a} of A's lines, {self.differing_b} of B's)"
            )
        scope = f" on @{self.function}" if self.function else ""
        if self.unmatched:
            return (
                f"the pipelines diverge after {self.name}{scope} (#{self.index_a} in A, #{self.index_b} in B, "
                f"pipeline {self.pipeline}), in passes only one side runs: {', '.join(self.unmatched)}; "
                f"the next shared pass's input differs in {self.differing_a} of A's lines and "
                f"{self.differing_b} of B's"
            )
        return (
            f"first divergent pass: {self.name}{scope} (#{self.index_a} in A, #{self.index_b} in B, "
            f"pipeline {self.pipeline}), after {self.aligned} passes with equal IR: its outputs "
            f"differ in {self.differing_a} of A's lines and {self.differing_b} of B's"
        )


def _key(p: PassDump) -> tuple:
    return (p.kind, p.pipeline, p.name, p.function)


def first_divergence(a: tuple[PassDump, ...], b: tuple[PassDump, ...]) -> Divergence | None:
    """The first divergent pass of two pipelines; None when every aligned pass sees the
    same IR and neither ran a pass the other did not."""
    if not a or not b:
        return None
    matcher = difflib.SequenceMatcher(None, [_key(p) for p in a], [_key(p) for p in b], autojunk=False)
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += list(zip(range(i1, i2), range(j1, j2)))
    previous: tuple[int, int] | None = None
    for n, (i, j) in enumerate(pairs):
        if normalised(a[i].ir) != normalised(b[j].ir):
            unaligned = (len(a) - len(pairs), len(b) - len(pairs))
            if previous is None:
                return _divergence(None, None, a, b, a[i].ir, b[j].ir, n, i, unaligned, ())
            pi, pj = previous
            between = tuple(f"A: {a[x].name}" for x in range(pi + 1, i)) + tuple(
                f"B: {b[x].name}" for x in range(pj + 1, j)
            )
            return _divergence(pi, pj, a, b, a[i].ir, b[j].ir, n - 1, pi, unaligned, between)
        previous = (i, j)
    return None


def _divergence(
    index_a, index_b, a, b, after_a: str, after_b: str, aligned: int, i: int, unaligned, between
) -> Divergence:
    if index_a is not None and not between:
        # the pass's own output on each side (an LLVM pass's is the next kept pass's input)
        after_a = ir_around(a, index_a)[1] or after_a
        after_b = ir_around(b, index_b)[1] or after_b
    diff = side_by_side("\n".join(normalised(after_a)), "\n".join(normalised(after_b)))
    p = a[index_a] if index_a is not None else a[i]
    return Divergence(
        index_a=index_a,
        index_b=index_b,
        name=p.name if index_a is not None else "front end",
        argument=p.argument if index_a is not None else "",
        pipeline=p.pipeline,
        function=p.function if index_a is not None else None,
        aligned=aligned,
        only_a=unaligned[0],
        only_b=unaligned[1],
        unmatched=between,
        after_a=after_a,
        after_b=after_b,
        differing_a=len(diff.changed_left),
        differing_b=len(diff.changed_right),
    )
