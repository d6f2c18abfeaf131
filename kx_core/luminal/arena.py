"""L4 · Backend trace: from the selected plan to launches and one memory slab.

Once search picked a genome, the backend turns the plan into a DAG of kernels and
library calls, buffer lifetimes (the DAG nodes at which each buffer is used), one device
slab with an offset per buffer (luminal's arena.rs `plan_slab`: transitive closure of
the DAG; two buffers share bytes only if every use of one happens before every use of
the other; first fit in request order, sizes rounded up to the alignment), and an
execution timeline split into phases. Names and semantics are the drill's.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass


@dataclass
class SlabBuffer:
    id: str
    bytes: int
    uses: list  # DAG node names


def toposort(dag):
    """dag: {node: [successors]}. Kahn's algorithm, ties broken by name."""
    nodes = set(dag) | {s for succ in dag.values() for s in succ}
    indeg = {n: 0 for n in nodes}
    for succ in dag.values():
        for s in succ:
            indeg[s] += 1
    ready = [n for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        n = heapq.heappop(ready)
        order.append(n)
        for s in dag.get(n, []):
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, s)
    if len(order) != len(nodes):
        raise ValueError("the DAG has a cycle")
    return order


def reachability(dag):
    """after[u] = the nodes strictly reachable from u."""
    after = {}
    for n in reversed(toposort(dag)):
        reach = set()
        for s in dag.get(n, []):
            reach |= {s} | after[s]
        after[n] = reach
    return after


def aligned(n, a):
    return -(-max(n, 1) // a) * a  # empty buffers still reserve one aligned unit


def _ordered(a: SlabBuffer, b: SlabBuffer, after) -> bool:
    """Every use of a strictly before every use of b, or the other way round."""
    a_first = all(v in after[u] for u in a.uses for v in b.uses)
    b_first = all(v in after[u] for u in b.uses for v in a.uses)
    return a_first or b_first


def plan_slab(dag, buffers, capacity, alignment=256):
    """arena.rs plan_slab (first fit). {buffer id: offset}; MemoryError past capacity."""
    if alignment <= 0:
        raise ValueError("alignment must be positive")
    after = reachability(dag)
    offsets: dict[str, int] = {}
    placed: list[SlabBuffer] = []
    for buf in buffers:
        size = aligned(buf.bytes, alignment)
        busy = sorted(
            (offsets[p.id], offsets[p.id] + aligned(p.bytes, alignment))
            for p in placed
            if not _ordered(p, buf, after)
        )
        offset = 0
        for lo, hi in busy:  # lowest gap that fits
            if offset + size <= lo:
                break
            offset = max(offset, hi)
        if offset + size > capacity:
            raise MemoryError(
                f"buffer {buf.id} ({size} B at {offset}) exceeds the slab capacity {capacity} B"
            )
        offsets[buf.id] = offset
        placed.append(buf)
    return offsets


def slab_bytes(buffers, offsets, alignment=256):
    """High-water mark: what finalists.rs compares with the device budget."""
    return max((offsets[b.id] + aligned(b.bytes, alignment) for b in buffers), default=0)


def naive_bytes(buffers, alignment=256):
    """One allocation per buffer, no reuse."""
    return sum(aligned(b.bytes, alignment) for b in buffers)


def check_no_overlap(dag, buffers, offsets, alignment=256):
    """Buffers whose lifetimes are not ordered never share a byte."""
    after = reachability(dag)
    for i, a in enumerate(buffers):
        for b in buffers[i + 1 :]:
            if _ordered(a, b, after):
                continue
            a0, a1 = offsets[a.id], offsets[a.id] + aligned(a.bytes, alignment)
            b0, b1 = offsets[b.id], offsets[b.id] + aligned(b.bytes, alignment)
            if a0 < b1 and b0 < a1:
                return False
    return True


# ---------------------------------------------------------------- the MLP plan
def mlp_plan(M=64, K=256, N=64, fused=True, elem=4):
    """The selected plan for relu(x @ w + b) as (dag, buffers, launches).
    fused=True : one cuBLASLt call with the RELU_BIAS epilogue.
    fused=False: cuBLASLt matmul, then an add-bias kernel, then a relu kernel."""
    if fused:
        dag = {"upload": ["lt_matmul_relu_bias"], "lt_matmul_relu_bias": ["readback"], "readback": []}
        bufs = [
            SlabBuffer("x", M * K * elem, ["upload", "lt_matmul_relu_bias"]),
            SlabBuffer("w", K * N * elem, ["upload", "lt_matmul_relu_bias"]),
            SlabBuffer("b", N * elem, ["upload", "lt_matmul_relu_bias"]),
            SlabBuffer("workspace", 1 << 20, ["lt_matmul_relu_bias"]),
            SlabBuffer("y", M * N * elem, ["lt_matmul_relu_bias", "readback"]),
        ]
        launches = [("lt_matmul_relu_bias", "cublasLtMatmul", 2 * M * N * K)]
    else:
        dag = {
            "upload": ["lt_matmul"],
            "lt_matmul": ["add_bias"],
            "add_bias": ["relu"],
            "relu": ["readback"],
            "readback": [],
        }
        bufs = [
            SlabBuffer("x", M * K * elem, ["upload", "lt_matmul"]),
            SlabBuffer("w", K * N * elem, ["upload", "lt_matmul"]),
            SlabBuffer("b", N * elem, ["upload", "add_bias"]),
            SlabBuffer("workspace", 1 << 20, ["lt_matmul"]),
            SlabBuffer("t0", M * N * elem, ["lt_matmul", "add_bias"]),
            SlabBuffer("t1", M * N * elem, ["add_bias", "relu"]),
            SlabBuffer("y", M * N * elem, ["relu", "readback"]),
        ]
        launches = [
            ("lt_matmul", "cublasLtMatmul", 2 * M * N * K),
            ("add_bias", "kernel", M * N),
            ("relu", "kernel", M * N),
        ]
    return dag, bufs, launches


# ---------------------------------------------------------------- phases
PHASES = ("graph_compile", "search", "prepare", "execute")


def phase_breakdown(events):
    """events: [(phase, seconds)], phases may repeat. {phase: total, 'share': {phase: fraction}}."""
    totals = {p: 0.0 for p in PHASES}
    for phase, seconds in events:
        if phase not in totals:
            raise ValueError(f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
        totals[phase] += seconds
    whole = sum(totals.values())
    return {**totals, "share": {p: (t / whole if whole else 0.0) for p, t in totals.items()}}


def achieved(flops, seconds, peak_flops):
    """Achieved FLOP/s and the fraction of peak."""
    f = flops / seconds
    return f, f / peak_flops
