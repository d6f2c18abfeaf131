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
- The memory floor: the compulsory DRAM bytes (each tensor once; requested bytes where
  the launch has no tensors) over the DRAM roof; bytes a dot-free program reads again
  come from DRAM for the share of them the L2 cannot hold (the rows of all programs
  resident at once: more programs per SM can be slower) and from L2 for the rest; and
  every requested byte passes L2 at L2_OVER_DRAM times the DRAM roof (a GEMM's small
  tiles re-read their operands many times).
- The total is the round time over the busiest SM or the memory floor, whichever is
  longer, plus FLOOR_LEFT of the other (configs on the bandwidth floor still differ by
  their rounds), plus the launch floor.

On a GPU kx has recordings of (the H200), config_time adds learned_rank's correction to
this total's log: trees fitted on how the recordings ordered the configs, for what these
terms miss (kx_core.model.learned_rank). The terms stay the explanation.

The constants are fitted on the recorded H200 sweeps (benchmarks/sweep_rerank.py: 50
shapes of five kernels, every config measured): LATENCY_S and OVERLAP_LEFT as before,
CYCLES_PER_OP, LOCAL_S_PER_BYTE, FLOOR_LEFT and the square root from a grid over those
recordings; L2_OVER_DRAM on a grid over the same recordings (2.5-6, the L2's capacity
taken from the GPU's spec, not fitted); NOTES.md gives the fit and how the model did on
shapes it was not fitted on.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, exp, sqrt

from kx_core.model.gpu import GPU
from kx_core.model.kernel import KernelModel
from kx_core.model.learned_rank import applies, features, trees_for
from kx_core.records.results import CompiledKernel

LATENCY_S = 0.8e-6
OVERLAP_LEFT = 0.5
CYCLES_PER_OP = 16
LOCAL_S_PER_BYTE = 36e-9
FLOOR_LEFT = 0.25
L2_OVER_DRAM = 4  # L2's bandwidth over DRAM's, as the ranking sees it
_CLOCK_HZ = 1.5e9  # where the GPU's table entry has no boost clock


@dataclass(frozen=True)
class RankTerms:
    """What a config's ranking time is made of (seconds, per the busiest SM's round)."""

    rounds: int  # rounds of resident programs on the busiest SM
    resident: int  # programs at once on one SM
    tensor: float  # one round's dots on the tensor cores
    cuda: float  # one round's other FLOPs on the CUDA cores
    waits: float  # one program's chain of global loads and its stack traffic
    floor: float  # the compulsory DRAM bytes over the DRAM roof
    launch: float

    @property
    def per_round(self) -> float:
        compute = self.tensor + self.cuda
        return max(compute, self.waits) + OVERLAP_LEFT * min(compute, self.waits)

    @property
    def total(self) -> float:
        busiest = self.rounds * self.per_round
        return max(busiest, self.floor) + FLOOR_LEFT * min(busiest, self.floor) + self.launch


def rank_terms(m: KernelModel, kernel: CompiledKernel, gpu: GPU) -> RankTerms | None:
    """The terms of config_time; None where the occupancy or the metadata is unknown."""
    occ = m.occupancy
    meta = kernel.metadata
    if occ is None or not occ.valid or not occ.blocks or meta is None:
        return None
    w = m.work
    per_sm = ceil(max(1, m.programs) / gpu.sm_count)
    resident = min(occ.blocks, per_sm)
    rounds = ceil(per_sm / occ.blocks)
    # the busiest program's work: a persistent kernel's program 0 may take one tile more
    # (144 tiles on 132 programs: two tiles' time, as 72 tiles of twice the size)
    flops, dot_per_program, loads = w.busiest or (w.flops_per_program, w.dot_flops / max(1, w.programs),
                                                  w.loads_per_program)  # fmt: skip
    other_per_program = max(0.0, flops - dot_per_program)
    tensor = dot_per_program * resident / (m.roofline.peak_flops / gpu.sm_count)
    clock = gpu.sm_clock_khz * 1e3 or _CLOCK_HZ
    threads = meta.num_warps * gpu.warp_size
    cuda = max(
        other_per_program / threads * CYCLES_PER_OP / clock,
        other_per_program * resident / (gpu.peak("fp32") / gpu.sm_count),
    )
    in_flight = max(1, meta.num_stages - 1) if w.dot_flops else 1
    waits = sqrt(loads / in_flight) * LATENCY_S + (meta.stack or 0) * LOCAL_S_PER_BYTE
    floor = _memory_floor(m, resident, gpu)
    return RankTerms(rounds, resident, tensor, cuda, waits, floor, gpu.launch_overhead)


def _memory_floor(m: KernelModel, resident: int, gpu: GPU) -> float:
    """Seconds the memory system needs at the least: the compulsory DRAM bytes, plus the
    bytes a dot-free program reads again (a layer norm's passes over its row) from DRAM
    for the part of them the L2 cannot hold (the rows of every program resident at once),
    from L2 for the rest; and never less than every requested byte at L2's bandwidth."""
    w = m.work
    bw = m.roofline.peak_bw
    dram = w.dram_bytes or w.bytes
    floor = dram / bw
    reread = max(0, w.bytes - dram) if w.dram_bytes else 0
    if reread and not w.dot_flops and m.programs and gpu.l2_bytes:
        # measured (layer norm, 2048 rows of 16k halves): 8 rows an SM at once run at 53 us,
        # 16 at 74 us: 132 x 16 rows of 64 KB are 135 MB against 50 MB of L2
        working = min(m.programs, resident * gpu.sm_count) * dram / m.programs
        miss = max(0.0, 1 - gpu.l2_bytes / working)
        floor = (dram + miss * reread) / bw + (1 - miss) * reread / (bw * L2_OVER_DRAM)
    # a GEMM's small tiles re-read A and B through L2 many times over
    return max(floor, w.bytes / (bw * L2_OVER_DRAM))


def config_time(m: KernelModel, kernel: CompiledKernel, gpu: GPU, learned: bool = True) -> float:
    """Seconds the model ranks this config by (lower is better): the terms' total, times
    the learned correction where kx ships one for this GPU (kx_core.model.learned_rank)."""
    terms = rank_terms(m, kernel, gpu)
    if terms is None:
        return m.modeled_s
    trees = trees_for(gpu) if learned else None
    if not applies(trees, kernel):  # no trees for this GPU, or none for this kind of kernel
        return terms.total
    return terms.total * exp(trees.correction(features(m, kernel, gpu, terms)))
