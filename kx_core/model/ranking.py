"""The time kx ranks autotune configs by: the roofline's compute and bandwidth floors,
plus what a config's shape of work adds to them on a real GPU, from the compiled records
alone.

- Programs per SM: the busiest SM runs ceil(programs / SMs) programs, `blocks` of them at
  once (the occupancy of the cubin's registers and shared memory), in ceil(per SM /
  blocks) rounds. A round costs the longer of its compute and its memory waits, plus
  OVERLAP_LEFT of the shorter (the overlap is never whole).
- Compute: the programs of one round share the SM's tensor throughput for their dots (a
  lone program gets the whole SM, what T3's waves model misses when a small problem
  leaves SMs idle); the rest of their FLOPs (exp, max, sums, scaling) run on the CUDA
  cores, at the longer of the SM's FP32 rate and each thread's own chain of
  CYCLES_PER_OP cycles an operation (a program of few threads does its elementwise work
  serially: 128 threads for a 128x64 tile of softmax is slow however idle the SM is).
- Memory waits: each program waits for its global loads one after another
  (WorkEstimate.loads_per_program) unless the loop is pipelined: a loop with dots and
  num_stages s keeps s - 1 loads in flight; many loads overlap more than few (the
  warp scheduler and ptxas's unrolling issue independent ones together), so the chain
  grows as the square root of its length. A thread's stack (spilled registers and local
  arrays, cuobjdump's STACK) is stored and read back through local memory at
  LOCAL_S_PER_BYTE: a softmax row of 16k floats in one warp spills 12 KB a thread and
  runs 20x slower than in eight warps.
- The total is the round time over the busiest SM or the compulsory DRAM bytes (each
  tensor once; requested bytes where the launch has no tensors) over the DRAM roof,
  whichever is longer, plus FLOOR_LEFT of the other (configs on the bandwidth floor
  still differ by their rounds), plus the launch floor.

The constants are fitted on the recorded H200 sweeps (benchmarks/sweep_rerank.py: 50
shapes of five kernels, every config measured): LATENCY_S and OVERLAP_LEFT as before,
CYCLES_PER_OP, LOCAL_S_PER_BYTE, FLOOR_LEFT and the square root from a grid over those
recordings; NOTES.md gives the fit and how the model did on shapes it was not fitted on.
"""

from __future__ import annotations

from math import ceil, sqrt

from kx_core.model.gpu import GPU
from kx_core.model.kernel import KernelModel
from kx_core.records.results import CompiledKernel

LATENCY_S = 0.8e-6
OVERLAP_LEFT = 0.5
CYCLES_PER_OP = 16
LOCAL_S_PER_BYTE = 36e-9
FLOOR_LEFT = 0.25
_CLOCK_HZ = 1.5e9  # where the GPU's table entry has no boost clock


def config_time(m: KernelModel, kernel: CompiledKernel, gpu: GPU) -> float:
    """Seconds the model ranks this config by (lower is better)."""
    occ = m.occupancy
    meta = kernel.metadata
    if occ is None or not occ.valid or not occ.blocks or meta is None:
        return m.modeled_s
    w = m.work
    per_sm = ceil(max(1, m.programs) / gpu.sm_count)
    resident = min(occ.blocks, per_sm)
    rounds = ceil(per_sm / occ.blocks)
    dot_per_program = w.dot_flops / max(1, w.programs)
    other_per_program = max(0.0, w.flops_per_program - dot_per_program)
    tensor = dot_per_program * resident / (m.roofline.peak_flops / gpu.sm_count)
    clock = gpu.sm_clock_khz * 1e3 or _CLOCK_HZ
    threads = meta.num_warps * gpu.warp_size
    cuda = max(
        other_per_program / threads * CYCLES_PER_OP / clock,
        other_per_program * resident / (gpu.peak("fp32") / gpu.sm_count),
    )
    in_flight = max(1, meta.num_stages - 1) if w.dot_flops else 1
    waits = sqrt(w.loads_per_program / in_flight) * LATENCY_S + (meta.stack or 0) * LOCAL_S_PER_BYTE
    compute = tensor + cuda
    per_round = max(compute, waits) + OVERLAP_LEFT * min(compute, waits)
    busiest = rounds * per_round
    floor = (w.dram_bytes or w.bytes) / m.roofline.peak_bw
    return max(busiest, floor) + FLOOR_LEFT * min(busiest, floor) + gpu.launch_overhead
