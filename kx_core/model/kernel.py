"""The model of one captured kernel on one GPU: its work (from the TTIR and the launch),
its roofline, its occupancy from the real compiled numbers (registers from the cubin,
shared memory from the metadata, threads from num_warps) next to K1's estimate, its
waves and tail, and a predicted time; a measured time when one is given."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from math import ceil
from typing import Any

from kx_core.base.jsonable import Jsonable
from kx_core.base.stats import spearman  # noqa: F401 - part of this module's surface
from kx_core.model import gemm
from kx_core.model.gpu import GPU, for_arch, local_gpu
from kx_core.model.occupancy import Occupancy, occupancy
from kx_core.model.roofline import Roofline, roofline
from kx_core.model.work import WorkEstimate, estimate
from kx_core.records.backends import backend_of
from kx_core.records.results import CompiledKernel


@dataclass(frozen=True)
class KernelModel(Jsonable):
    kernel: str  # display name: 'matmul_kernel[BLOCK_M=64,...]'
    config: str | None
    gpu: str
    work: WorkEstimate
    roofline: Roofline  # with the bytes the programs request (no L2 reuse: the drills' convention)
    occupancy: Occupancy | None  # None where the register count is unknown
    k1_occupancy: dict[str, Any] | None  # K1's estimate, for GEMM-shaped constexprs
    programs: int
    per_wave: int | None
    waves: int | None
    tail_fill: float | None
    predicted_s: float
    measured_s: float | None = None
    registers: int | None = None
    spills: int | None = None
    shared: int = 0
    # compulsory DRAM bytes (each tensor argument read or written once: perfect L2
    # reuse), its roofline, and the prediction it gives: a best case next to predicted_s
    unique_bytes: float | None = None
    roofline_unique: Roofline | None = None
    predicted_min_s: float | None = None
    # the model's time without the launch floor (predicted_s = max(modeled_s, floor)):
    # configs that all sit on the floor still rank by it
    modeled_s: float = 0.0
    launch_floor_s: float = 0.0


_ELEMENT_BYTES = {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2, "int16": 2}


def unique_bytes(kernel: CompiledKernel) -> float | None:
    """Bytes of the launch's tensor arguments: what a kernel touching each tensor once
    moves from DRAM. None without tensor arguments."""
    launch = kernel.launch
    sizes = []
    for a in launch.args if launch else ():
        if a.kind == "tensor" and a.shape is not None:
            n = 1
            for d in a.shape:
                n *= d
            dtype = (a.dtype or "float32").replace("torch.", "")
            sizes.append(n * _ELEMENT_BYTES.get(dtype, 1 if "8" in dtype else 4))
    return float(sum(sizes)) if sizes else None


def gpu_for(kernel: CompiledKernel) -> GPU:
    """The GPU a kernel is modelled on: the local GPU (with its measured ceilings when
    cached) when the kernel was compiled for its architecture, else the table's GPU for
    the target."""
    t = kernel.target
    arch = backend_of(t).arch_name(t.arch)
    local = local_gpu()
    if local is not None and local.arch == arch:
        return local
    return for_arch(arch)


def _tile(constexprs: dict[str, Any], num_warps: int, num_stages: int) -> gemm.TileConfig | None:
    """BLOCK_M/BLOCK_N/BLOCK_K (or BLOCK_SIZE_M, ...) as a K1 tile, when all three exist."""
    found = {}
    for key, value in constexprs.items():
        if m := re.fullmatch(r"BLOCK(?:_SIZE)?_([MNK])", key):
            found[m.group(1)] = int(value)
    if set(found) != {"M", "N", "K"}:
        return None
    return gemm.TileConfig(found["M"], found["N"], found["K"], num_warps, num_stages)


def _launch_work(kernel: CompiledKernel):
    """The TTIR work estimate, evaluated with the launch's integer arguments and grid."""
    launch = kernel.launch
    grid = launch.grid if launch else (1, 1, 1)
    args = launch.args if launch else ()
    scalars = {a.name: a.value for a in args if a.kind == "int" and a.value is not None}
    order = [n for n, t in kernel.signature.items() if t != "constexpr"]
    return estimate(kernel.stages.get("ttir", ""), scalars, grid, order)


def _occupancies(kernel: CompiledKernel, gpu: GPU):
    """(occupancy from registers and shared memory, K1's occupancy of the GEMM tile)."""
    launch, meta = kernel.launch, kernel.metadata
    num_warps = meta.num_warps if meta else (launch.num_warps if launch else 4)
    num_stages = meta.num_stages if meta else (launch.num_stages if launch else 3)
    threads = num_warps * gpu.warp_size
    occ = occupancy(gpu, threads, meta.registers, meta.shared) if meta and meta.registers else None
    constexprs = dict(launch.constexprs) if launch else {}
    if kernel.config:
        constexprs.update(kernel.config.kwargs)
    tile = _tile(constexprs, num_warps, num_stages)
    return occ, (gemm.occupancy(gpu, tile) if tile else None)


def model_kernel(
    kernel: CompiledKernel,
    gpu: GPU | None = None,
    flops: float | None = None,
    nbytes: float | None = None,
    measured_s: float | None = None,
    measured_roofs: bool = False,
) -> KernelModel:
    """Model a compiled, launched kernel. `flops`/`nbytes` override the estimate."""
    gpu = gpu or gpu_for(kernel)
    work = _launch_work(kernel)
    f = flops if flops is not None else work.flops
    b = nbytes if nbytes is not None else work.bytes
    meta = kernel.metadata
    occ, k1 = _occupancies(kernel, gpu)
    roof = roofline(gpu, f, b, work.precision, measured_roofs, measured_s)
    ub = unique_bytes(kernel) if nbytes is None else None
    ub = min(ub, b) if ub else None
    work = replace(work, dram_bytes=int(ub) if ub else None)
    roof_unique = roofline(gpu, f, ub, work.precision, measured_roofs, measured_s) if ub else None
    programs = work.programs
    per_wave = waves = tail = None
    modeled = max(f / roof.peak_flops, b / roof.peak_bw)
    predicted_min = roof_unique.time_s if roof_unique else None
    if occ and occ.valid:
        per_wave = gpu.sm_count * occ.blocks
        waves = ceil(programs / per_wave)
        tail = (programs - (waves - 1) * per_wave) / per_wave
        # T3's wave quantization: a partly empty last wave costs a whole one
        t_compute = f / roof.peak_flops * (waves * per_wave / programs)
        modeled = max(t_compute, b / roof.peak_bw)
        if ub:
            predicted_min = max(t_compute, ub / roof.peak_bw, gpu.launch_overhead)
    predicted = max(modeled, gpu.launch_overhead)
    return KernelModel(
        kernel=kernel.display_name,
        config=kernel.config.label if kernel.config else None,
        gpu=gpu.name,
        work=work,
        roofline=roof,
        occupancy=occ,
        k1_occupancy=k1,
        programs=programs,
        per_wave=per_wave,
        waves=waves,
        tail_fill=tail,
        predicted_s=predicted,
        measured_s=measured_s,
        registers=meta.registers if meta else None,
        spills=meta.spills if meta else None,
        shared=meta.shared if meta else 0,
        unique_bytes=ub,
        roofline_unique=roof_unique,
        predicted_min_s=predicted_min,
        modeled_s=modeled,
        launch_floor_s=gpu.launch_overhead,
    )


def bandwidth_text(m: KernelModel, seconds: float) -> str:
    """Achieved bandwidth of a run as words: the DRAM figure (compulsory bytes) and the
    requested one; requested traffic above the DRAM roof is L2 reuse, never DRAM speed."""
    requested = m.work.bytes / seconds
    parts = []
    if m.work.dram_bytes:
        parts.append(f"{m.work.dram_bytes / seconds / 1e9:.0f} GB/s DRAM (each tensor once)")
    text = f"{requested / 1e9:.0f} GB/s requested"
    if requested > m.roofline.peak_bw:
        text += f" (above the {m.roofline.peak_bw / 1e12:.2f} TB/s DRAM roof: served by L2 reuse)"
    parts.append(text)
    return ", ".join(parts)
