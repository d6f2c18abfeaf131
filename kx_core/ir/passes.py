"""Pass-by-pass IR from Triton's dumps: MLIR_ENABLE_DUMP, MLIR_ENABLE_TIMING, LLVM_IR_ENABLE_DUMP.

(kx records the MLIR passes itself where Triton's bindings allow,
kx_core/compile/capturing/pass_recorder.py; it reads each pass's timing report and step
dumps with `step_output`. The dump parsed here is its fallback and its oracle.)

Triton prints, on stderr, for every MLIR pass of every pass-manager run:

  // -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation) //----- //
  <the IR>

per function for function passes (`('tt.func' operation: @add_kernel)`), then, with
timing on, one "Execution time report" per pass-manager run, and for LLVM's own passes
(print-after-all):

  ; *** IR Dump After InstCombinePass on add_kernel ***

`parse_pass_dump(text)` turns that into PassDumps in order: name, argument (the
triton-opt flag), options, the IR before the pass, whether the pass changed it, the
function for per-function dumps, which pipeline (pass-manager run) it belongs to and
its wall time where the timing report gives one. LLVM passes print the IR *after*
them; kx keeps only those that changed it (hundreds of passes otherwise, each with a
copy of the module), with the IR before each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kx_core.records.results import PassDump

# Example: "// -----// IR Dump Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation) //----- //"
# Example: "// -----// IR Dump Before CanonicalizerPass: canonicalize{max-iterations=10} ('tt.func' operation: @add) //----- //"
# Example (Triton 3.6 spelling): "// -----// IR Dump Before Inliner (inline) ('builtin.module' operation) //----- //"
_MLIR_HEADER_RE = re.compile(
    r"^// -----// IR Dump (?:Before|After) "
    r"(?:(?P<name>[^:(]+?): (?P<arg>[^{\s(]+)(?P<opts>\{.*\})?|(?P<name2>[^(]+?) \((?P<arg2>[^()]+)\))"
    r" \('(?P<op>[^']+)' operation(?:: @(?P<func>.+?))?\) //----- //\s*$"
)
# The software pipeliner dumps its own steps. Example:
#   "// -----// SoftwarePipeliner internal IR Dump After: LowerLoops"
_INTERNAL_HEADER_RE = re.compile(r"^// -----// (?P<owner>\w+) internal IR Dump After: (?P<step>[\w.-]+)\s*$")
# Example: "; *** IR Dump After InstCombinePass on add_kernel ***"
_LLVM_HEADER_RE = re.compile(r"^; \*\*\* IR Dump After (?P<name>.+?) on (?P<scope>.+?) \*\*\*\s*$")
# MLIR's timing report opens with a rule line, printed straight after the last dump of
# the pass-manager run (so it would end that pass's IR and make it, and the pass before
# it, look "changed"). Example:
#   "===-------------------------------------------------------------------------==="
_TIMING_RULE_RE = re.compile(r"^===-+===\s*$")
# Example: "                         ... Execution time report ..."
_TIMING_START_RE = re.compile(r"^\s*\.\.\. (?:Execution time report|Pass execution timing report) \.\.\.\s*$")
# Example: "    0.0054 ( 36.9%)  InlinerPass"   (nesting shows as extra indentation)
_TIMING_ROW_RE = re.compile(r"^\s+(?P<secs>\d+\.\d+) \(\s*[\d.]+%\)(?P<indent>\s+)(?P<name>\S.*?)\s*$")
# LLVM's pass manager narrates between dumps; not IR. Examples:
#   "Running pass: ForceFunctionAttrsPass on [module]"
#   "Running analysis: TargetLibraryAnalysis on llvm.nvvm.read.ptx.sreg.tid.x"
_LLVM_NARRATION_RE = re.compile(
    r"^(?:Running (?:pass|analysis)|Invalidating (?:analysis|all non-preserved analyses)|Skipping pass|"
    r"Clearing all analysis results)\b"
)
# Example: "#loc12 = loc("/k/a.py":31:29)"
_LOC_ALIAS_RE = re.compile(r"^#loc\w* = loc\(.*\)$")


class PassDumpError(ValueError):
    """Text that is not a pass dump where one was expected."""


@dataclass(frozen=True)
class _Section:
    kind: str  # "mlir" | "llvm"
    name: str
    argument: str
    options: str
    scope: str
    function: str | None
    pipeline: int
    lines: list[str]


def comparable_lines(ir: str) -> list[str]:
    """IR lines that matter for 'changed': stripped (a function printed alone is not
    indented as inside its module), location aliases and blank lines dropped."""
    return [
        line.strip() for line in ir.splitlines() if line.strip() and not _LOC_ALIAS_RE.match(line.strip())
    ]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    """Whether `needle` occurs as a contiguous run of lines in `haystack`."""
    if not needle:
        return True
    first = needle[0]
    n = len(needle)
    for i, line in enumerate(haystack):
        if line == first and haystack[i : i + n] == needle:
            return True
    return False


def _split(text: str) -> tuple[list[_Section], list[list[tuple[str, float, int]]]]:
    sections: list[_Section] = []
    timings: list[list[tuple[str, float, int]]] = []
    pipeline = 0
    current: _Section | None = None
    in_timing = False
    for raw in text.splitlines():
        if m := _MLIR_HEADER_RE.match(raw):
            in_timing = False
            current = _Section(
                "mlir",
                m.group("name") or m.group("name2"),
                m.group("arg") or m.group("arg2"),
                m.group("opts") or "",
                m.group("op"),
                m.group("func"),
                pipeline,
                [],
            )
            sections.append(current)
        elif m := _INTERNAL_HEADER_RE.match(raw):
            in_timing = False
            current = _Section(
                "internal",
                f"{m.group('owner')}: {m.group('step')}",
                m.group("step"),
                "",
                "builtin.module",
                None,
                pipeline,
                [],
            )
            sections.append(current)
        elif m := _LLVM_HEADER_RE.match(raw):
            in_timing = False
            scope = m.group("scope")
            current = _Section(
                "llvm",
                m.group("name"),
                m.group("name"),
                "",
                scope,
                None if scope.startswith("[") else scope,
                pipeline,
                [],
            )
            sections.append(current)
        elif _TIMING_RULE_RE.match(raw):
            current = None  # the report's rule: what follows, up to the next dump, is not IR
        elif _TIMING_START_RE.match(raw):
            in_timing = True
            current = None
            timings.append([])
            pipeline += 1
        elif in_timing:
            if m := _TIMING_ROW_RE.match(raw):
                timings[-1].append((m.group("name"), float(m.group("secs")), len(m.group("indent"))))
            elif raw.strip().startswith("//") or raw.startswith(";"):
                in_timing = False
        elif current is not None and not _LLVM_NARRATION_RE.match(raw):
            current.lines.append(raw)
    return sections, timings


def _mlir_changed(sections: list[_Section], i: int, irs: list[list[str]]) -> bool:
    """Did pass i change the IR? Compare with the next dump of the same pipeline: same
    scope, the texts must be equal; function dump followed by a module dump, the
    function must appear unchanged in the module."""
    me = sections[i]
    for j in range(i + 1, len(sections)):
        other = sections[j]
        if other.kind == "internal":
            continue  # a pass's own step dumps are not the next pass's input
        if other.kind != "mlir":
            break
        if other.pipeline != me.pipeline:
            # the last pass of a pipeline: compare with what the next pipeline started from
            return not _contains(irs[j], irs[i]) if me.function else irs[i] != irs[j]
        if other.function == me.function and other.scope == me.scope:
            return irs[i] != irs[j]
        if other.function is None:
            return not _contains(irs[j], irs[i]) if me.function else irs[i] != irs[j]
        # a dump of another function in between: keep looking for ours or the module
    return False  # the last dump of all: nothing after it to compare with


def _assign_times(sections: list[_Section], timings) -> list[float | None]:
    """Match each pipeline's timing rows to its passes, in order, by name."""
    times: list[float | None] = [None] * len(sections)
    by_pipeline: dict[int, list[int]] = {}
    for i, s in enumerate(sections):
        if s.kind == "mlir":
            by_pipeline.setdefault(s.pipeline, []).append(i)
    for pipeline, indices in by_pipeline.items():
        if pipeline >= len(timings):
            continue
        rows = [
            (n, t)
            for n, t, _ in timings[pipeline]
            if not n.startswith("(A)") and not n.endswith("' Pipeline") and n not in ("Rest", "Total")
        ]
        k = 0
        for i in indices:
            while k < len(rows) and rows[k][0] != sections[i].name:
                k += 1
            if k == len(rows):
                break
            times[i] = rows[k][1]
            k += 1
    return times


@dataclass(frozen=True)
class PassPipeline:
    """Every pass of one kernel's compile, in order."""

    passes: tuple[PassDump, ...]
    llvm_unchanged: int = 0  # LLVM passes dropped because they changed nothing


def step_output(text: str) -> tuple[list[str], tuple[PassDump, ...]]:
    """What one pass run in a pass manager of its own printed on fd 2 (kx's pass
    recorder): the passes its timing report names, in order (the nested pipelines'
    wrappers, analyses and totals left out), and the steps it dumped itself (the
    pipeliner's LowerLoops), as 'internal' PassDumps."""
    sections, timings = _split(text)
    names = [
        n
        for rows in timings
        for n, _, _ in rows
        if not n.startswith("(A)") and not n.endswith("' Pipeline") and n not in ("Rest", "Total")
    ]
    internal = tuple(
        PassDump(
            name=s.name,
            argument=s.argument,
            ir="\n".join(s.lines).strip("\n"),
            changed=True,
            kind="internal",
        )
        for s in sections
        if s.kind == "internal"
    )
    return names, internal


def parse_pass_dump(text: str) -> PassPipeline:
    """Parse Triton's dump output (stderr of a compile). Raises PassDumpError when the
    text holds no pass dump at all."""
    sections, timings = _split(text)
    if not sections:
        raise PassDumpError("no '// -----// IR Dump' or '*** IR Dump After' sections in the text")
    irs = [comparable_lines("\n".join(s.lines)) for s in sections]
    keep: list[int] = []
    changed: dict[int, bool] = {}
    before: dict[int, str] = {}
    llvm_unchanged = 0
    previous_llvm: int | None = None
    for i, s in enumerate(sections):
        if s.kind == "mlir":
            keep.append(i)
            changed[i] = _mlir_changed(sections, i, irs)
            before[i] = "\n".join(s.lines).strip("\n")
        elif s.kind == "internal":
            # a step inside a pass (the pipeliner's LowerLoops, ExpandLoops): its dump is
            # the IR *after* the step, kept as the step's text
            keep.append(i)
            changed[i] = True
            before[i] = "\n".join(s.lines).strip("\n")
        else:
            # LLVM prints after the pass: the IR before it is the previous LLVM dump. When
            # one of the two is a single function and the other the module, "unchanged"
            # means the function appears verbatim in the module.
            prior = previous_llvm
            if prior is None:
                same = False
            elif sections[prior].scope == s.scope:
                same = irs[prior] == irs[i]
            else:
                same = _contains(irs[i], irs[prior]) or _contains(irs[prior], irs[i])
            if not same:
                keep.append(i)
                changed[i] = prior is not None
                before[i] = "\n".join(sections[prior].lines).strip("\n") if prior is not None else ""
            else:
                llvm_unchanged += 1
            previous_llvm = i
    times = _assign_times(sections, timings)
    passes = tuple(
        PassDump(
            name=sections[i].name,
            argument=sections[i].argument,
            ir=before.get(i, ""),
            changed=changed.get(i, False),
            function=sections[i].function,
            pipeline=sections[i].pipeline,
            kind=sections[i].kind,
            options=sections[i].options,
            time_s=times[i],
        )
        for i in keep
    )
    return PassPipeline(passes=passes, llvm_unchanged=llvm_unchanged)


def ir_around(passes: tuple[PassDump, ...] | list[PassDump], index: int) -> tuple[str, str | None]:
    """(IR before, IR after) pass `index`. After = the IR before the next pass that sees
    the same scope (the same function, or the module); None when no later dump shows it
    (the last pass of the compile). A pass's internal step dump holds the IR after that
    step: its before is the IR the pass started from."""
    me = passes[index]
    if me.kind == "llvm":
        # LLVM prints the IR *after* each pass and kx keeps the passes that changed it: the
        # next kept pass's "before" is this pass's output (the passes between changed
        # nothing), whatever scope each printed (module, function, "(kernel)" CGSCC). The
        # last one's output is the LLVM IR stage, which the caller shows.
        after = next((p.ir for p in passes[index + 1 :] if p.kind == "llvm"), None)
        return me.ir, after
    if me.kind == "internal":
        start = next((p.ir for p in reversed(passes[:index]) if p.kind == "mlir"), "")
        return start, me.ir
    for other in passes[index + 1 :]:
        if other.kind != me.kind:
            if me.kind == "mlir" and other.kind == "internal":
                continue
            break
        if other.function == me.function or other.function is None:
            return me.ir, other.ir
    return me.ir, None
