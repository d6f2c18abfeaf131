"""The time kx ranks autotune configs by: the roofline's compute and bandwidth floors,
plus what a config's shape of work adds to them on a real GPU, from the compiled records
alone.

- Programs per SM: the busiest SM runs ceil(programs / SMs) programs, `blocks` of them at
  once (the occupancy of the cubin's registers and shared memory), in ceil(per SM /
  blocks) rounds. The programs of one round share the SM's tensor or FP32 throughput, so a
  round costs its resident programs' FLOPs at the SM's peak: a lone program gets the
  whole SM (what T3's waves model misses when a small problem leaves SMs idle).
- Memory latency: each program waits for its global loads one after another
  (WorkEstimate.loads_per_program) unless the loop is pipelined: a loop with dots and
  num_stages s keeps s - 1 loads in flight. A round costs the longer of its compute and
  its loads' round trips, plus OVERLAP_LEFT of the shorter (the overlap is never whole).
- The total is at least the bytes the programs request over the DRAM roof (kx's drills'
  convention) and the launch floor.

LATENCY_S is the order of a global load's round trip on an HBM GPU under load (H100/H200:
0.5 to 0.8 us unloaded by microbenchmarks, more under load). Both constants were chosen on
the recorded H200 sweeps (benchmarks/sweep_rerank.py, a grid of 0.4 to 1.0 us by 0 to 1):
mean Spearman over 32 shapes 0.62 to 0.79, this pair 0.78; they are fitted, and NOTES.md
says on what.
"""

from __future__ import annotations

from math import ceil

from kx_core.model.gpu import GPU
from kx_core.model.kernel import KernelModel
from kx_core.records.results import CompiledKernel

LATENCY_S = 0.8e-6
OVERLAP_LEFT = 0.5


def config_time(m: KernelModel, kernel: CompiledKernel, gpu: GPU) -> float:
    """Seconds the model ranks this config by (lower is better)."""
    occ = m.occupancy
    if occ is None or not occ.valid or not occ.blocks:
        return m.modeled_s
    w = m.work
    per_sm = ceil(max(1, m.programs) / gpu.sm_count)
    resident = min(occ.blocks, per_sm)
    rounds = ceil(per_sm / occ.blocks)
    compute = w.flops_per_program * resident / (m.roofline.peak_flops / gpu.sm_count)
    stages = kernel.metadata.num_stages if kernel.metadata else 1
    in_flight = max(1, stages - 1) if w.dot_flops else 1
    latency = w.loads_per_program * LATENCY_S / in_flight
    per_round = max(compute, latency) + OVERLAP_LEFT * min(compute, latency)
    return max(rounds * per_round, w.bytes / m.roofline.peak_bw, gpu.launch_overhead)
