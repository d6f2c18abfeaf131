"""The compile side of a comparison: what differs between two compiled kernels, each
figure as A, B and their delta, with the reason where one follows from the other figures.

Figures come from each build's own artifacts: registers, spills and shared memory as
cuobjdump read them from the cubin (KernelMetadata), instruction classes from the PTX and
the SASS mix by family (kx_core.ir.summary), occupancy from the GPU table's limits
(kx_core.model.occupancy: a model, and said so). The reasons are rules over those
figures and the two builds' inputs (config, constexprs, target, Triton version):

    config changes  BLOCK_N 64 -> 128, num_stages 3 -> 4
    registers       90 -> 154 (+64)   occupancy 2 -> 1 CTA/SM (regs limit, model)
"""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.ir.display_filters import DisplayFilters, filter_stage
from kx_core.ir.summary import InstructionSummary, summarize
from kx_core.ir.textdiff import side_by_side
from kx_core.model.gpu import GPU
from kx_core.model.occupancy import occupancy
from kx_core.records.backends import ALL_STAGES
from kx_core.records.results import CompiledKernel


@dataclass(frozen=True)
class Delta(Jsonable):
    """One figure on both sides. `kind`: 'measured' (read from the artifacts) or 'model'
    (kx's model of them, `model` names it)."""

    name: str
    a: float | int | str | None
    b: float | int | str | None
    unit: str = ""
    kind: str = "measured"
    model: str = ""
    why: str = ""

    @property
    def changed(self) -> bool:
        return self.a != self.b

    @property
    def change(self) -> float | None:
        """b - a for numbers; None otherwise."""
        if isinstance(self.a, (int, float)) and isinstance(self.b, (int, float)):
            return self.b - self.a
        return None

    def text(self) -> str:
        """'registers 90 -> 154 (+64)'."""
        change = self.change
        shift = f" ({change:+g}{self.unit and ' ' + self.unit})" if change else ""
        model = f", {self.model}" if self.kind == "model" else ""
        why = f": {self.why}" if self.why else ""
        return f"{self.name} {_shown(self.a)} -> {_shown(self.b)}{shift}{model}{why}"


def _shown(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


@dataclass(frozen=True)
class StageChange(Jsonable):
    """How one stage's text differs: how many of each side's lines the diff marks (SSA
    numbering ignored)."""

    stage: str
    lines_a: int
    lines_b: int
    differing_a: int
    differing_b: int

    @property
    def identical(self) -> bool:
        return not (self.differing_a or self.differing_b)


def input_changes(a: CompiledKernel, b: CompiledKernel) -> tuple[Delta, ...]:
    """What was asked differently: target, config values, constexprs, options (the causes
    the figures below follow from)."""
    out: list[Delta] = []
    if a.target.spec != b.target.spec:
        out.append(Delta("target", a.target.spec, b.target.spec))
    if a.name != b.name:
        out.append(Delta("kernel", a.name, b.name))
    ca = dict(a.config.kwargs) if a.config else {}
    cb = dict(b.config.kwargs) if b.config else {}
    sa = a.specialization.constexprs if a.specialization else {}
    sb = b.specialization.constexprs if b.specialization else {}
    for key in dict.fromkeys([*ca, *cb, *sa, *sb]):
        va, vb = ca.get(key, sa.get(key)), cb.get(key, sb.get(key))
        if va != vb:
            out.append(Delta(key, va, vb))
    ma, mb = a.metadata, b.metadata
    for key in ("num_warps", "num_stages", "num_ctas"):
        va, vb = (getattr(ma, key) if ma else None), (getattr(mb, key) if mb else None)
        if va != vb:
            out.append(Delta(key, va, vb))
    ra, rb = (a.config.maxnreg if a.config else None), (b.config.maxnreg if b.config else None)
    if ra != rb:
        out.append(Delta("maxnreg", ra, rb))
    return tuple(out)


def _occupancy(k: CompiledKernel, gpu: GPU | None):
    md = k.metadata
    if gpu is None or md is None or md.registers is None:
        return None
    return occupancy(gpu, md.num_warps * gpu.warp_size, md.registers, md.shared)


def _limited(o) -> str:
    """'limited by registers (126 x 256 threads)'."""
    what = {
        "regs": f"registers ({o.regs} x {o.threads} threads)",
        "smem": f"shared memory ({o.smem} B)",
        "threads": f"threads ({o.threads} per CTA)",
        "blocks": "the CTA limit per SM",
    }.get(o.limiter, o.limiter)
    return f"limited by {what}"


def resource_deltas(
    a: CompiledKernel, b: CompiledKernel, gpu_a: GPU | None, gpu_b: GPU | None
) -> tuple[Delta, ...]:
    """Registers, spills, shared memory (cuobjdump), and the occupancy they give (model)."""
    ma, mb = a.metadata, b.metadata
    get = lambda m, f: getattr(m, f) if m is not None else None  # noqa: E731
    oa, ob = _occupancy(a, gpu_a), _occupancy(b, gpu_b)
    regs = Delta("registers", get(ma, "registers"), get(mb, "registers"), "per thread")
    spills = Delta("spills", get(ma, "spills"), get(mb, "spills"), "B")
    shared = Delta("shared memory", get(ma, "shared"), get(mb, "shared"), "B")
    out = [regs, spills, shared]
    if oa is not None and ob is not None:
        why = f"A {_limited(oa)}, B {_limited(ob)}" if oa.blocks != ob.blocks else ""
        model = (
            f"occupancy model, {gpu_b.name if gpu_b.name == gpu_a.name else f'{gpu_a.name} / {gpu_b.name}'}"
        )
        out.append(Delta("CTAs per SM", oa.blocks, ob.blocks, kind="model", model=model, why=why))
        out.append(Delta("occupancy limiter", oa.limiter, ob.limiter, kind="model", model=model))
        out.append(
            Delta("occupancy", round(oa.fraction, 3), round(ob.fraction, 3), kind="model", model=model)
        )
    return tuple(out)


def instruction_deltas(sa: InstructionSummary, sb: InstructionSummary) -> tuple[Delta, ...]:
    """MMA by shape, ldmatrix, cp.async, bulk (TMA) copies, barriers, vector widths (PTX)
    and the SASS mix by family."""
    out = [
        Delta(f"MMA {shape}", sa.mma_shapes.get(shape, 0), sb.mma_shapes.get(shape, 0))
        for shape in sorted({*sa.mma_shapes, *sb.mma_shapes})
    ]
    out += [
        Delta("ldmatrix", sa.ldmatrix, sb.ldmatrix),
        Delta("cp.async", sa.cp_async, sb.cp_async),
        Delta("bulk copies (TMA)", sa.bulk_copies, sb.bulk_copies),
        Delta("barriers", sa.barriers, sb.barriers),
    ]
    for label, da, db in (
        ("vector loads", sa.global_vector_loads, sb.global_vector_loads),
        ("vector stores", sa.global_vector_stores, sb.global_vector_stores),
    ):
        out += [Delta(f"{label} {w} b", da.get(w, 0), db.get(w, 0)) for w in sorted({*da, *db})]
    out.append(Delta("SASS instructions", sa.sass_total, sb.sass_total))
    families = sorted(
        {*sa.sass_mix, *sb.sass_mix}, key=lambda f: -max(sa.sass_mix.get(f, 0), sb.sass_mix.get(f, 0))
    )
    out += [Delta(f"SASS {f}", sa.sass_mix.get(f, 0), sb.sass_mix.get(f, 0)) for f in families]
    return tuple(out)


def stage_changes(a: CompiledKernel, b: CompiledKernel) -> tuple[StageChange, ...]:
    """Each stage both sides have, diffed with SSA numbering ignored."""
    out = []
    lowered = [s for s in a.stages if s in b.stages and (s not in ALL_STAGES or ALL_STAGES[s].lowering)]
    for stage in lowered:  # not the ELF: a dump of the binary, not a step
        ta, tb = a.stages[stage], b.stages[stage]
        if ta == tb:
            n = ta.count("\n") + 1
            out.append(StageChange(stage, n, n, 0, 0))
            continue
        diff = side_by_side(ta, tb, ignore_numbering=True)
        out.append(
            StageChange(
                stage, ta.count("\n") + 1, tb.count("\n") + 1, len(diff.changed_left), len(diff.changed_right)
            )
        )
    return tuple(out)


def stages_differing_as_shown(
    a: CompiledKernel, b: CompiledKernel, stages: list[str], filters: DisplayFilters, ignore_numbering: bool
) -> list[str]:
    """Which of `stages` (in their order) differ between a and b as a diff view shows
    them: through the display filters (a stage whose only change is in its `loc` lines
    reads identical with locations hidden) and, with `ignore_numbering`, SSA renumbering
    ignored. A stage one side lacks is left out."""
    out = []
    for stage in stages:
        if stage not in a.stages or stage not in b.stages or stage not in ALL_STAGES:
            continue
        syntax = ALL_STAGES[stage].syntax
        ta = filter_stage(a.stages[stage], syntax, filters, a.demangled).text
        tb = filter_stage(b.stages[stage], syntax, filters, b.demangled).text
        if ta != tb and not side_by_side(ta, tb, ignore_numbering).identical:
            out.append(stage)
    return out


def compile_deltas(
    a: CompiledKernel, b: CompiledKernel, gpu_a: GPU | None, gpu_b: GPU | None
) -> tuple[tuple[Delta, ...], tuple[Delta, ...], tuple[Delta, ...]]:
    """(inputs, resources, instructions) of a pair."""
    return (
        input_changes(a, b),
        resource_deltas(a, b, gpu_a, gpu_b),
        instruction_deltas(summarize(a), summarize(b)),
    )
