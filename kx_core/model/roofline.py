"""The roofline of any kernel: FLOPs and DRAM bytes against a GPU's roofs for one
precision. Ridge point = peak FLOP/s / bandwidth (FLOP/byte); a kernel left of it is
memory-bound. Datasheet roofs by default, the GPU's measured ceilings on request."""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.model.gpu import GPU


@dataclass(frozen=True)
class Roofline(Jsonable):
    flops: float
    bytes: float
    intensity: float  # FLOP per DRAM byte
    precision: str
    peak_flops: float  # the compute roof used
    peak_bw: float  # the memory roof used (bytes/s)
    ridge: float  # FLOP/byte where the two roofs meet
    bound: str  # "compute" | "memory" | "launch"
    time_s: float  # the lower-bound time (launch overhead at least)
    attainable: float  # FLOP/s the roofs allow at this intensity
    achieved: float | None = None  # FLOP/s of a measured run
    percent_of_roof: float | None = None  # achieved / attainable, in percent
    measured_roofs: bool = False


def roofs(gpu: GPU, precision: str = "fp16", measured: bool = False) -> tuple[float, float]:
    """(peak FLOP/s, bytes/s): datasheet, or the measured ceilings where present."""
    peak, bw = gpu.peak(precision), gpu.peak_bw
    if measured:
        peak = gpu.ceiling(precision) or peak
        bw = gpu.ceiling("bw") or bw
    return peak, bw


def roofs_text(gpu: GPU, measured: bool = False) -> str:
    """Every roof on one line, each saying where it comes from, e.g.
    `DRAM 4.25 TB/s measured; fp32 51.1 TFLOP/s measured (ridge 12 FLOP/B), tf32 494.7
    TFLOP/s datasheet (ridge 116 FLOP/B)`: with --measured a GPU may have measured some
    ceilings and not others, and a header that mixed them silently would mislead."""

    def source(what: str) -> str:
        return "measured" if measured and gpu.ceiling(what) else "datasheet"

    bw = roofs(gpu, "fp32", measured)[1]
    parts = []
    for precision, _ in gpu.peaks:
        peak = roofs(gpu, precision, measured)[0]
        parts.append(
            f"{precision} {peak / 1e12:.1f} TFLOP/s {source(precision)} (ridge {peak / bw:.0f} FLOP/B)"
        )
    return f"DRAM {bw / 1e12:.2f} TB/s {source('bw')}; " + ", ".join(parts)


def roofline(
    gpu: GPU,
    flops: float,
    nbytes: float,
    precision: str = "fp16",
    measured: bool = False,
    time_s: float | None = None,
) -> Roofline:
    """Where a kernel of `flops` and `nbytes` sits; with `time_s` (a measurement), how
    much of the attainable FLOP/s it reached."""
    peak, bw = roofs(gpu, precision, measured)
    intensity = flops / nbytes if nbytes else float("inf")
    t_compute, t_memory = flops / peak, nbytes / bw
    t = max(t_compute, t_memory)
    bound = "compute" if t_compute >= t_memory else "memory"
    if t < gpu.launch_overhead:
        bound, t = "launch", gpu.launch_overhead
    attainable = min(peak, intensity * bw)
    achieved = flops / time_s if time_s else None
    return Roofline(
        flops=flops,
        bytes=nbytes,
        intensity=intensity,
        precision=precision,
        peak_flops=peak,
        peak_bw=bw,
        ridge=peak / bw,
        bound=bound,
        time_s=t,
        attainable=attainable,
        achieved=achieved,
        percent_of_roof=100.0 * achieved / attainable if achieved is not None and attainable else None,
        measured_roofs=measured,
    )
