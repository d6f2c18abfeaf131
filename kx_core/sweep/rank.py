"""One shape's configs as the compile side sees them: each compiled config's figures
(registers, spills, shared memory, occupancy) and kx's predicted time, the configs the
GPU would refuse pruned with the reason, the rest ranked by the model; and which of them
go to the GPU."""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.model.gpu import GPU
from kx_core.model.kernel import gpu_for, model_kernel
from kx_core.model.matrix import row_of
from kx_core.model.ranking import config_time
from kx_core.records.results import CompileResult
from kx_core.sweep.space import ConfigSpec

# configs whose modeled time is within this of the k-th's are measured too: the model
# cannot tell them apart, so cutting at k would be a coin toss
UNCERTAIN = 0.10


@dataclass(frozen=True)
class ConfigFigures(Jsonable):
    label: str
    spec: ConfigSpec
    registers: int | None = None
    spills: int | None = None
    shared: int = 0
    blocks_per_sm: int | None = None
    limiter: str | None = None
    modeled_us: float | None = None  # the roofline model's time without the launch floor
    predicted_us: float | None = None
    rank_us: float | None = None  # what ranks configs (kx_core.model.ranking)
    pruned: str | None = None  # why the GPU would refuse it; None: it launches
    model_rank: int | None = None  # 1: the model's pick
    measured_us: float | None = None
    rounds_us: tuple[float, ...] = ()


def spec_of(config) -> ConfigSpec:
    """A record's AutotuneConfig as a ConfigSpec."""
    return ConfigSpec(dict(config.kwargs), config.num_warps, config.num_stages, config.maxnreg)


def figures(result: CompileResult, kernel: str, gpu: GPU | None, learned: bool = True) -> list[ConfigFigures]:
    """Every config of `kernel` in the result, in the kernel's order, ranked (learned: with
    the GPU's learned correction where kx has one, kx_core.model.learned_rank)."""
    records = [k for k in result.kernels if k.name == kernel and k.config is not None]
    compiled = [k for k in records if k.status == "compiled" and k.launch is not None]
    rows, ranked = {}, {}
    for k in compiled:  # one model per config: its matrix row and its ranking time
        on = gpu or gpu_for(k)
        m = model_kernel(k, on)
        rows[k.config.label] = row_of(m)
        ranked[k.config.label] = config_time(m, k, on, learned) * 1e6
    out = []
    for k in records:
        label = k.config.label
        row = rows.get(label)
        if k.status != "compiled" or row is None:
            why = k.message or (f"did not compile ({k.status})" if k.status != "compiled" else "not launched")
            meta = k.metadata  # a config refused for its resources still has its figures
            out.append(
                ConfigFigures(
                    label, spec_of(k.config), meta.registers if meta else None, meta.spills if meta else None,
                    meta.shared if meta else 0, pruned=why.splitlines()[0],
                )
            )  # fmt: skip
            continue
        pruned = None
        if row.blocks_per_sm == 0:  # the occupancy model: not even one CTA fits an SM
            pruned = f"no CTA fits an SM (limited by {row.limiter})"
        out.append(
            ConfigFigures(
                label, spec_of(k.config), row.registers, row.spills, row.shared, row.blocks_per_sm,
                row.limiter, row.modeled_us, row.predicted_us, ranked.get(label), pruned,
            )
        )  # fmt: skip
    alive = sorted((i for i, f in enumerate(out) if f.pruned is None), key=lambda i: (out[i].rank_us, i))
    from dataclasses import replace

    for rank, i in enumerate(alive, 1):
        out[i] = replace(out[i], model_rank=rank)
    return out


def to_measure(figs: list[ConfigFigures], top_k: int | None) -> list[ConfigFigures]:
    """The configs the GPU times: every live one (top_k None), or the model's top k and
    those within UNCERTAIN of the k-th's modeled time; the first config of the space
    (what the kernel runs untuned) is always among them, so its regret is measured."""
    alive = sorted((f for f in figs if f.pruned is None), key=lambda f: f.model_rank)
    if top_k is None or top_k >= len(alive):
        return alive
    cut = alive[top_k - 1].rank_us * (1 + UNCERTAIN)
    chosen = [f for i, f in enumerate(alive) if i < top_k or f.rank_us <= cut]
    first = next((f for f in figs if f.pruned is None), None)
    if first is not None and first not in chosen:
        chosen.append(first)
    return chosen
