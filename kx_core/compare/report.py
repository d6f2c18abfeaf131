"""A comparison of two builds: every paired kernel's deltas, stage diffs and first
divergent pass, and the short explained summary the command line prints first.

    A  matmul_autotune.py#0  cuda:90, triton 3.8.0: matmul_kernel[BLOCK_M=128,...]
    B  matmul_autotune.py#1  cuda:90, triton 3.8.0: matmul_kernel[BLOCK_M=64,...]
    asked differently: BLOCK_M 128 -> 64, num_warps 8 -> 4
    registers 154 -> 90 (-64 per thread)
    CTAs per SM 1 -> 2 (+1), occupancy model, H100 SXM: regs limit (...)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kx_core.base.jsonable import Jsonable
from kx_core.compare.deltas import Delta, StageChange, compile_deltas, stage_changes
from kx_core.compare.pipelines import Divergence, first_divergence
from kx_core.compare.sides import Side, pairs, pick
from kx_core.model.gpu import GPU, spec
from kx_core.model.kernel import gpu_for
from kx_core.records.backends import ALL_STAGES
from kx_core.records.results import CompiledKernel, CompileResult


@dataclass(frozen=True)
class PairComparison(Jsonable):
    kernel_a: str
    kernel_b: str
    inputs: tuple[Delta, ...]
    resources: tuple[Delta, ...]
    instructions: tuple[Delta, ...]
    stages: tuple[StageChange, ...]
    divergence: Divergence | None = None
    # why there is no divergence to show: '' (shown, or none), 'no pass capture' ...
    divergence_note: str = ""
    timing: dict | None = None  # the GPU side (kx_core.compare.timing), when measured

    def changed(self) -> list[Delta]:
        return [d for d in (*self.resources, *self.instructions) if d.changed]


@dataclass(frozen=True)
class Comparison(Jsonable):
    side_a: str
    side_b: str
    build_a: str  # 'cuda:90, triton 3.8.0'
    build_b: str
    pairs: tuple[PairComparison, ...]
    unpaired: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def _gpu(kernel: CompiledKernel, name: str | None) -> GPU | None:
    try:
        return spec(name) if name else gpu_for(kernel)
    except KeyError:
        return None


def compare_pair(
    a: CompiledKernel, b: CompiledKernel, gpu_a: GPU | None, gpu_b: GPU | None
) -> PairComparison:
    inputs, resources, instructions = compile_deltas(a, b, gpu_a, gpu_b)
    divergence, note = None, ""
    if a.passes and b.passes:
        divergence = first_divergence(a.passes, b.passes)
        if divergence is None:
            note = "every aligned pass saw the same IR"
    else:
        note = "no pass capture (compare with --passes)"
    return PairComparison(
        a.display_name,
        b.display_name,
        inputs,
        resources,
        instructions,
        stage_changes(a, b),
        divergence,
        note,
    )


def compare_results(ra: CompileResult, rb: CompileResult, side_a: Side, side_b: Side) -> Comparison:
    """Pair the kernels each side names and compare each pair."""
    ka, kb = pick(ra, side_a.kernel), pick(rb, side_b.kernel)
    paired, unpaired = pairs(ka, kb)
    out = []
    for a, b in paired:
        out.append(compare_pair(a, b, _gpu(a, side_a.gpu), _gpu(b, side_b.gpu)))
    notes = []
    if not paired:
        notes.append("no kernel pairs: name one on each side (FILE#N or FILE#NAME)")
    return Comparison(
        side_a.label,
        side_b.label,
        f"{ra.target.spec}, triton {ra.triton_version}",
        f"{rb.target.spec}, triton {rb.triton_version}",
        tuple(out),
        tuple(unpaired),
        tuple(notes),
    )


# the figures the short summary names first when they changed, in this order
_HEADLINE = ("registers", "spills", "shared memory", "CTAs per SM", "occupancy limiter")


def summary_lines(pair: PairComparison, top: int = 6) -> list[str]:
    """The explained summary of one pair: what was asked differently, then what changed
    because of it (resources first, then the biggest instruction-count changes), the
    stages that differ and the first divergent pass."""
    lines = []
    if pair.inputs:
        lines.append("asked differently: " + ", ".join(f"{d.name} {d.a} -> {d.b}" for d in pair.inputs))
    by_name = {d.name: d for d in pair.resources}
    for name in _HEADLINE:
        d = by_name.get(name)
        if d is not None and d.changed:
            lines.append(d.text())
    moved = sorted(
        (d for d in pair.instructions if d.changed and d.change is not None),
        key=lambda d: -abs(d.change),
    )
    for d in moved[:top]:
        lines.append(d.text())
    if len(moved) > top:
        lines.append(
            f"... and {len(moved) - top} more instruction counts changed (--json, or the table below)"
        )
    if not pair.changed():
        lines.append("no resource or instruction count differs")
    differing = [s for s in pair.stages if not s.identical]
    if differing:
        lines.append(
            "stages that differ: "
            + ", ".join(
                f"{ALL_STAGES[s.stage].display_name if s.stage in ALL_STAGES else s.stage} "
                f"({s.differing_a} / {s.differing_b} lines)"
                for s in differing
            )
        )
    elif pair.stages:
        lines.append("every stage's text is the same (SSA numbering ignored)")
    if pair.divergence is not None:
        lines.append(pair.divergence.text())
    elif pair.divergence_note:
        lines.append(f"passes: {pair.divergence_note}")
    return lines


def hot_lines_text(hot: dict | None, n: int = 4) -> list[str]:
    """The lines whose time per call changed most (B minus A), source then SASS."""
    if not hot:
        return []
    out = [f"  hot lines: {hot['call_us_a']:.1f} -> {hot['call_us_b']:.1f} us per call (PC samples)"]
    for stage in ("source", "sass"):
        for kind in ("slower", "faster"):
            for x in hot[kind].get(stage, [])[:n]:
                line = x["line_b"] if x["line_b"] is not None else x["line_a"]
                out.append(
                    f"    {kind:<6} {stage}:{line:<5} {x['us_a']:8.2f} -> {x['us_b']:8.2f} us  {x['text'][:60]}"
                )
    return out


def format_comparison(c: Comparison) -> str:
    out = [f"A  {c.side_a}  ({c.build_a})", f"B  {c.side_b}  ({c.build_b})"]
    for pair in c.pairs:
        same = pair.kernel_a == pair.kernel_b
        out.append("")
        out.append(f"{pair.kernel_a}" if same else f"{pair.kernel_a}  vs  {pair.kernel_b}")
        out += ["  " + line for line in summary_lines(pair)]
        if pair.timing:
            out.append("  " + pair.timing.get("verdict_text", ""))
            for tag in ("a", "b"):
                r = pair.timing.get(f"roofline_{tag}")
                if r:
                    pct = f", {r['percent_of_roof']:.0f}% of the roof" if r.get("percent_of_roof") else ""
                    out.append(
                        f"  {tag.upper()} on the roofline ({r['gpu']}): {r['intensity_flop_per_byte']:.1f} FLOP/B "
                        f"(bytes: {r.get('bytes', 'requested')}), {r['achieved_tflops']:.1f} TFLOP/s achieved{pct}"
                    )
            out += hot_lines_text(pair.timing.get("hot_lines"))
    for name in c.unpaired:
        out.append(f"unpaired: {name}")
    out += [f"note: {n}" for n in c.notes]
    if c.pairs:
        out.append("")
        out.append(
            format_table(c.pairs[0]) if len(c.pairs) == 1 else "(--json for every figure of every pair)"
        )
    return "\n".join(out)


def format_table(pair: PairComparison) -> str:
    """Every figure of one pair, A, B and delta in columns."""
    rows = [("", "A", "B", "delta")]
    for d in (*pair.resources, *pair.instructions):
        change = d.change
        rows.append(
            (
                d.name + (" (model)" if d.kind == "model" else ""),
                "-" if d.a is None else str(d.a),
                "-" if d.b is None else str(d.b),
                f"{change:+g}" if change else ("" if not d.changed else "changed"),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(
        f"{r[0].ljust(widths[0])}  {r[1].rjust(widths[1])}  {r[2].rjust(widths[2])}  {r[3].rjust(widths[3])}"
        for r in rows
    )
