"""What a sweep found, per shape: the measured winner, the regret of the model's pick and
of the kernel's default config (its first) against it, the model's rank accuracy
(Spearman's rho of modeled against measured, and whether the winner was in the model's
top 3), and the tables a user keeps: a tuned-config JSON (per GPU, each shape's winner in
`triton.Config(**value)` form, like vLLM's tuned-config files) and a CSV of every figure."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.base.jsonable import Jsonable
from kx_core.base.stats import spearman
from kx_core.sweep.rank import ConfigFigures
from kx_core.sweep.space import shape_label


@dataclass(frozen=True)
class CaseResult(Jsonable):
    kernel: str
    shape: dict[str, int]
    target: str
    model_gpu: str  # the GPU kx's model placed the configs on
    configs: tuple[ConfigFigures, ...]
    measured_on: str | None = None  # the device that measured them; None: nothing measured
    gpu_key: str | None = None
    worker: int | None = None  # the measuring worker's index (several may share a GPU key)
    simulated: bool = False  # measured by a simulated worker: the model's figures, no GPU
    winner: str | None = None  # the fastest measured config
    model_pick: str | None = None
    default: str | None = None  # the space's first config
    regret_model: float | None = None  # time(model's pick) / time(winner) - 1
    regret_default: float | None = None
    spearman: float | None = None
    winner_in_top3: bool | None = None
    compile_s: float = 0.0
    measure_s: float = 0.0
    triton_pick: str | None = None  # triton.autotune's own choice (--versus-autotune)
    triton_autotune_s: float | None = None  # its wall time, compiles included
    # the measured configs whose binary the measuring worker received from the compile
    # side (kx_core.sweep.binaries), and those it compiled itself (its Triton's cache key
    # not the compile side's, or nothing shipped); None: not measured
    shipped: int | None = None
    compiled_again: int | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None
    ranking: str = ""  # what ranked the configs (kx_core.model.learned_rank.ranking_note)
    # the file's function the shape was given to with tensors of its sizes
    # (kx_core.sweep.calls.WrapperCall as JSON); None: the entry function took the shape
    call: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return shape_label(self.shape)


def judged(
    case: CaseResult, measured: dict[str, float], rounds: dict[str, list[float]] | None = None
) -> CaseResult:
    """The case with its measured times and what follows from them."""
    rounds = rounds or {}
    configs = tuple(
        replace(f, measured_us=measured.get(f.label), rounds_us=tuple(rounds.get(f.label, ())))
        for f in case.configs
    )
    timed = [f for f in configs if f.measured_us is not None]
    notes = list(case.notes)
    pick = next((f for f in configs if f.model_rank == 1), None)
    first = configs[0] if configs else None
    if not timed:
        return replace(case, configs=configs, model_pick=pick.label if pick else None,
                       default=first.label if first else None)  # fmt: skip
    best = min(timed, key=lambda f: f.measured_us)
    regret_model = pick.measured_us / best.measured_us - 1 if pick and pick.measured_us else None
    regret_default = None
    if first is not None and first.measured_us is not None:
        regret_default = first.measured_us / best.measured_us - 1
    elif first is not None:
        notes.append(
            f"the default config ({first.label}) was {first.pruned and 'pruned: ' + first.pruned or 'not measured'}"
        )
    ranked = [f for f in timed if f.rank_us is not None]
    rho = spearman([f.rank_us for f in ranked], [f.measured_us for f in ranked])
    return replace(
        case,
        configs=configs,
        winner=best.label,
        model_pick=pick.label if pick else None,
        default=first.label if first else None,
        regret_model=regret_model,
        regret_default=regret_default,
        spearman=rho,
        winner_in_top3=best.model_rank is not None and best.model_rank <= 3,
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class SweepResult(Jsonable):
    file: str
    kernel: str
    cases: tuple[CaseResult, ...]
    wall_s: float = 0.0
    measured: str = "none"  # 'gpu' | 'simulated' | 'none'
    workers: tuple[str, ...] = ()  # each measuring worker's GPU key
    shares: dict[str, int] = field(default_factory=dict)  # GPU key -> configs it measured
    triton_autotune_s: float | None = None  # the reference's wall time over every case
    stopped: bool = False
    notes: tuple[str, ...] = ()

    def summary(self) -> dict:
        """Mean rho, the share of cases whose winner was in the model's top 3, mean regrets."""
        judged_cases = [c for c in self.cases if c.winner is not None]
        rhos = [c.spearman for c in judged_cases if c.spearman is not None]
        mean = lambda xs: sum(xs) / len(xs) if xs else None
        return {
            "cases": len(self.cases),
            "measured_cases": len(judged_cases),
            "mean_spearman": mean(rhos),
            "winner_in_top3": mean([1.0 if c.winner_in_top3 else 0.0 for c in judged_cases]),
            "mean_regret_model": mean([c.regret_model for c in judged_cases if c.regret_model is not None]),
            "mean_regret_default": mean(
                [c.regret_default for c in judged_cases if c.regret_default is not None]
            ),
            # configs the measuring workers got built from the compile side / built again
            "shipped": sum(c.shipped or 0 for c in self.cases),
            "compiled_again": sum(c.compiled_again or 0 for c in self.cases),
        }


def tuned_configs(result: SweepResult) -> list[dict]:
    """One table per GPU key: each measured shape's winner as triton.Config keywords."""
    tables: dict[str, dict] = {}
    for c in result.cases:
        if c.winner is None or c.gpu_key is None:
            continue
        spec = next(f.spec for f in c.configs if f.label == c.winner)
        t = tables.setdefault(
            c.gpu_key, {"kernel": result.kernel, "device": c.measured_on, "gpu_key": c.gpu_key,
                        "simulated": c.simulated, "shapes": {}},
        )  # fmt: skip
        t["shapes"][c.label] = spec.triton_kwargs()
    return list(tables.values())


CSV_COLUMNS = (
    "shape", "config", "pruned", "registers", "spills", "shared", "blocks_per_sm", "limiter",
    "modeled_us", "predicted_us", "rank_us", "model_rank", "measured_us", "winner", "measured_on",
)  # fmt: skip


def to_csv(result: SweepResult) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for c in result.cases:
        for f in c.configs:
            w.writerow([
                c.label, f.label, f.pruned or "", f.registers, f.spills, f.shared, f.blocks_per_sm, f.limiter,
                f.modeled_us, f.predicted_us, f.rank_us, f.model_rank, f.measured_us, f.label == c.winner, c.measured_on or "",
            ])  # fmt: skip
    return buf.getvalue()
