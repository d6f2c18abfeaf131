"""The autotune config matrix of one kernel: one row per compiled config (or per
specialization for a kernel without configs), from the kernel model, with measured
times where there are any; Spearman's rho between predicted and measured; CSV. The
Autotune pane, the Roofline pane and `kx autotune`/`kx roofline` share these rows."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.model.gpu import GPU
from kx_core.model.kernel import KernelModel, model_kernel, spearman
from kx_core.records.results import CompiledKernel

COLUMNS = (
    "config",
    "registers",
    "spills",
    "shared",
    "blocks_per_sm",
    "limiter",
    "occupancy",
    "k1_blocks",
    "waves",
    "tail",
    "gflop",
    "mbytes",
    "intensity",
    "bound",
    "modeled_us",
    "floor_us",
    "predicted_us",
    "best_case_us",
    "measured_us",
    "pct_of_roof",
)


# The column headers shown (panes, CLI, CSV): every figure with its unit.
HEADERS = {
    "config": "config",
    "registers": "registers/thread",
    "spills": "spills (B)",
    "shared": "shared (B)",
    "blocks_per_sm": "CTAs/SM",
    "limiter": "limited by",
    "occupancy": "occupancy (fraction)",
    "k1_blocks": "K1 CTAs/SM",
    "waves": "waves",
    "tail": "tail (fraction of a wave)",
    "gflop": "GFLOP",
    "mbytes": "MB requested",
    "intensity": "FLOP/B",
    "bound": "bound",
    "modeled_us": "modeled (us)",
    "floor_us": "launch floor (us)",
    "predicted_us": "predicted (us)",
    "best_case_us": "best case (us)",
    "measured_us": "measured (us)",
    "pct_of_roof": "% of roof",
}


@dataclass(frozen=True)
class ConfigRow(Jsonable):
    kernel: str
    config: str
    registers: int | None
    spills: int | None
    shared: int
    blocks_per_sm: int | None
    limiter: str | None
    occupancy: float | None
    k1_blocks: int | None
    waves: int | None
    tail: float | None
    gflop: float
    mbytes: float
    intensity: float
    bound: str
    modeled_us: float  # the model's time without the launch floor: what ranks configs
    floor_us: float  # the GPU's launch overhead, the least any launch takes
    predicted_us: float  # max(modeled, floor)
    best_case_us: float | None  # with perfect L2 reuse (compulsory DRAM bytes)
    measured_us: float | None
    pct_of_roof: float | None  # measured, against the compulsory-bytes roofline

    def cells(self) -> list:
        return [getattr(self, c) for c in COLUMNS]


def row_of(m: KernelModel) -> ConfigRow:
    occ = m.occupancy
    return ConfigRow(
        kernel=m.kernel.split("[")[0],
        config=m.config or "(no config)",
        registers=m.registers,
        spills=m.spills,
        shared=m.shared,
        blocks_per_sm=occ.blocks if occ else None,
        limiter=occ.limiter if occ else None,
        occupancy=occ.fraction if occ else None,
        k1_blocks=m.k1_occupancy["blocks"] if m.k1_occupancy else None,
        waves=m.waves,
        tail=m.tail_fill,
        gflop=m.work.flops / 1e9,
        mbytes=m.work.bytes / 1e6,
        intensity=m.roofline.intensity,
        bound=m.roofline.bound,
        modeled_us=m.modeled_s * 1e6,
        floor_us=m.launch_floor_s * 1e6,
        predicted_us=m.predicted_s * 1e6,
        best_case_us=m.predicted_min_s * 1e6 if m.predicted_min_s else None,
        measured_us=m.measured_s * 1e6 if m.measured_s else None,
        pct_of_roof=m.roofline_unique.percent_of_roof if m.roofline_unique else m.roofline.percent_of_roof,
    )


def modelled(kernel: CompiledKernel) -> bool:
    """Whether kx's model places this kernel: compiled, launched, and with Triton's TTIR,
    which the work estimate reads (a TileLang or CuTe DSL kernel has none: it is left off
    rather than placed at zero work)."""
    return kernel.status == "compiled" and kernel.launch is not None and bool(kernel.stages.get("ttir"))


def models(
    kernels: list[CompiledKernel], gpu: GPU | None = None, measured: dict[str, float] | None = None
) -> list[KernelModel]:
    """Models of every compiled, launched kernel; `measured` maps display names to seconds."""
    measured = measured or {}
    return [model_kernel(k, gpu, measured_s=measured.get(k.display_name)) for k in kernels if modelled(k)]


def config_matrix(
    kernels: list[CompiledKernel], name: str, gpu: GPU | None = None, measured: dict[str, float] | None = None
) -> list[ConfigRow]:
    """Rows of one kernel (by name), in config order."""
    return [row_of(m) for m in models([k for k in kernels if k.name == name], gpu, measured)]


def rho(rows: list[ConfigRow]) -> float | None:
    """Spearman's rho of the modeled (floor-free) against the measured time, over rows
    measured: the floor would tie every launch-bound config."""
    pairs = [(r.modeled_us, r.measured_us) for r in rows if r.measured_us is not None]
    return spearman([p for p, _ in pairs], [m for _, m in pairs]) if pairs else None


def to_csv(rows: list[ConfigRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(("kernel",) + tuple(HEADERS[c] for c in COLUMNS))
    for r in rows:
        w.writerow([r.kernel] + ["" if v is None else v for v in r.cells()])
    return buf.getvalue()
