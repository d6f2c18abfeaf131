"""Blocked layouts (drill T2): re-derive Triton's coalesce pass, then map lanes to elements.

Triton's `tritongpu-coalesce` pass picks a BlockedEncoding for every load/store. Two
pieces of its code decide it, reimplemented here:

  1. getNumElementsPerThread (TritonGPU/Transforms/Utility.cpp):
        perThread = min(divisibility_bytes / elem_bytes, contiguity, shape[order[0]], 128 / elem_bits)
     then capped by max(numElems / numThreads, 1) (CoalesceUtils.cpp).
  2. The BlockedEncodingAttr builder: walk dims from the fastest (order[0]) handing out
     lanes, then warps; the slowest dim takes whatever is left.

With a layout in hand: which lane owns which coordinates, whether a warp's first load is
coalesced, and whether a convert_layout stays in registers, needs warp shuffles or goes
through shared memory. Names, signatures and return shapes are the drill's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from math import prod  # noqa: F401 - part of the drill module's surface


@dataclass(frozen=True)
class Blocked:
    size_per_thread: tuple
    threads_per_warp: tuple
    warps_per_cta: tuple
    order: tuple

    def __str__(self) -> str:
        f = lambda v: "[" + ", ".join(map(str, v)) + "]"
        return (
            f"#ttg.blocked<{{sizePerThread = {f(self.size_per_thread)}, threadsPerWarp = "
            f"{f(self.threads_per_warp)}, warpsPerCTA = {f(self.warps_per_cta)}, order = {f(self.order)}}}>"
        )


def parse_blocked(text: str) -> Blocked:
    """Parse '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], ...}>'.
    Raises ValueError naming the missing or malformed field."""

    def grab(key: str) -> tuple[int, ...]:
        # Example: "sizePerThread = [1, 4]"
        m = re.search(key + r"\s*=\s*\[([^\]]*)\]", text)
        if not m:
            raise ValueError(f"missing {key}")
        try:
            return tuple(int(x) for x in m.group(1).split(","))
        except ValueError as e:
            raise ValueError(f"{key} is not a list of integers: [{m.group(1)}]") from e

    return Blocked(grab("sizePerThread"), grab("threadsPerWarp"), grab("warpsPerCTA"), grab("order"))


def clamp(x: int, lo: int, hi: int) -> int:
    return max(lo, min(x, hi))


def build_blocked(shape, size_per_thread, order, num_warps, threads_per_warp=32) -> Blocked:
    """Port of the BlockedEncodingAttr::get(shape, sizePerThread, order, numWarps,
    numThreadsPerWarp) builder (one CTA)."""
    rank = len(shape)
    tpw = [1] * rank
    wpc = [1] * rank
    remaining_lanes, remaining_threads, remaining_warps = (
        threads_per_warp,
        num_warps * threads_per_warp,
        num_warps,
    )
    prev_lanes = prev_warps = 1
    for d in range(rank - 1):
        i = order[d]
        threads_per_cta = clamp(remaining_threads, 1, max(1, shape[i] // size_per_thread[i]))
        tpw[i] = clamp(threads_per_cta, 1, remaining_lanes)
        wpc[i] = clamp(threads_per_cta // tpw[i], 1, remaining_warps)
        remaining_warps //= wpc[i]
        remaining_lanes //= tpw[i]
        remaining_threads //= threads_per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    last = order[rank - 1]
    tpw[last] = threads_per_warp // prev_lanes
    wpc[last] = num_warps // prev_warps
    return Blocked(tuple(size_per_thread), tuple(tpw), tuple(wpc), tuple(order))


def elements_per_thread(
    shape, order, elem_bits, contiguity, divisibility_bytes, num_warps, threads_per_warp=32
) -> int:
    """getNumElementsPerThread + the numElems/numThreads cap from CoalesceUtils.cpp."""
    elem_bytes = max(1, elem_bits // 8)
    per_thread = min(
        max(1, divisibility_bytes // elem_bytes), contiguity, shape[order[0]], max(1, 128 // elem_bits)
    )
    return min(per_thread, max(prod(shape) // (num_warps * threads_per_warp), 1))


def coalesced_layout(shape, order, elem_bits, contiguity, divisibility_bytes=16, num_warps=4) -> Blocked:
    """The layout the coalesce pass gives a load/store whose pointer has this contiguity
    along order[0]."""
    spt = [1] * len(shape)
    spt[order[0]] = elements_per_thread(shape, order, elem_bits, contiguity, divisibility_bytes, num_warps)
    return build_blocked(shape, spt, order, num_warps)


# ---------------------------------------------------------------- who owns what
def _delinearize(idx, sizes, order):
    """Split a linear index into per-dim coordinates; order[0] varies fastest."""
    c = [0] * len(sizes)
    for d in order:
        c[d] = idx % sizes[d]
        idx //= sizes[d]
    return c


def tile(L: Blocked) -> tuple:
    return tuple(s * t * w for s, t, w in zip(L.size_per_thread, L.threads_per_warp, L.warps_per_cta))


def thread_elements(L: Blocked, shape, warp, lane) -> list[tuple]:
    """Coordinates held by (warp, lane), in register order (inside a chunk first, then
    repetitions, both linearized along `order`). A tensor smaller than the layout's tile
    wraps around: several threads then hold the same element (broadcast)."""
    rank = len(shape)
    lane_c = _delinearize(lane, L.threads_per_warp, L.order)
    warp_c = _delinearize(warp, L.warps_per_cta, L.order)
    t = tile(L)
    reps = [max(1, -(-shape[d] // t[d])) for d in range(rank)]
    base = [(warp_c[d] * L.threads_per_warp[d] + lane_c[d]) * L.size_per_thread[d] for d in range(rank)]
    out = []
    for r in range(prod(reps)):
        rep = _delinearize(r, reps, L.order)
        for e in range(prod(L.size_per_thread)):
            el = _delinearize(e, L.size_per_thread, L.order)
            out.append(tuple((rep[d] * t[d] + base[d] + el[d]) % shape[d] for d in range(rank)))
    return out


def owners(L: Blocked, shape) -> dict[tuple, set[tuple[int, int]]]:
    """coord -> set of (warp, lane) holding it (more than one = broadcast / duplication)."""
    own: dict[tuple, set[tuple[int, int]]] = {}
    for warp in range(prod(L.warps_per_cta)):
        for lane in range(prod(L.threads_per_warp)):
            for c in thread_elements(L, shape, warp, lane):
                own.setdefault(c, set()).add((warp, lane))
    return own


def lane_table(L: Blocked, shape, warp=0) -> list[tuple[int, list[tuple]]]:
    """[(lane, [coords...])] for one warp — the T2 deliverable."""
    return [(lane, thread_elements(L, shape, warp, lane)) for lane in range(prod(L.threads_per_warp))]


# ---------------------------------------------------------------- coalescing
def first_load_sectors(L: Blocked, shape, elem_bytes, strides=None) -> tuple[int, int, float]:
    """Simulate warp 0's first vectorized load instruction on a tensor with element strides
    `strides` (row-major contiguous by default). Each lane loads one vector of
    vec = min(spt[order[0]], 16 // elem_bytes) contiguous elements along order[0].
    Returns (bytes_requested, sectors_touched, efficiency = bytes / (sectors * 32))."""
    rank = len(shape)
    if strides is None:
        strides = [prod(shape[d + 1 :]) for d in range(rank)]
    fast = L.order[0]
    vec = max(1, min(L.size_per_thread[fast], 16 // elem_bytes))
    sectors = set()
    lanes = prod(L.threads_per_warp)
    for lane in range(lanes):
        first = thread_elements(L, shape, 0, lane)[0]
        for k in range(vec):
            coord = list(first)
            coord[fast] += k
            address = sum(c * s for c, s in zip(coord, strides)) * elem_bytes
            sectors.add(address // 32)
    requested = lanes * vec * elem_bytes
    return requested, len(sectors), requested / (len(sectors) * 32)


# ---------------------------------------------------------------- convert_layout cost
def classify_conversion(src: Blocked, dst: Blocked, shape) -> str:
    """'registers'      every element stays in the same thread(s): only registers are renamed
                      (Triton: cvtReordersRegisters)
    'warp_shuffle'   every element stays in the same warp: lanes exchange with shfl
                      (Triton: cvtNeedsWarpShuffle — the real check also limits the permutation)
    'shared_memory'  some element must cross warps: write to smem, barrier, read back
                      (Triton: cvtNeedsSharedMemory)"""
    a, b = owners(src, shape), owners(dst, shape)
    coords = list(product(*(range(n) for n in shape)))
    if all(a.get(c) == b.get(c) for c in coords):
        return "registers"
    warps = lambda s: {w for w, _ in s or ()}
    if all(warps(a.get(c)) == warps(b.get(c)) for c in coords):
        return "warp_shuffle"
    return "shared_memory"


def explain_elements_per_thread(
    shape, order, elem_bits, contiguity, divisibility_bytes, num_warps, threads_per_warp=32
) -> dict[str, int | list[str]]:
    """The terms that set sizePerThread[order[0]] in the coalesce pass, and which of them
    decided it: {'alignment': .., 'contiguity': .., 'shape': .., '128-bit limit': ..,
    'elements/threads cap': .., 'chosen': n, 'limited by': [term, ...]}."""
    elem_bytes = max(1, elem_bits // 8)
    terms = {
        "alignment": max(1, divisibility_bytes // elem_bytes),
        "contiguity": contiguity,
        "shape": shape[order[0]],
        "128-bit limit": max(1, 128 // elem_bits),
        "elements/threads cap": max(prod(shape) // (num_warps * threads_per_warp), 1),
    }
    chosen = min(terms.values())
    assert chosen == elements_per_thread(
        shape, order, elem_bits, contiguity, divisibility_bytes, num_warps, threads_per_warp
    )
    return {**terms, "chosen": chosen, "limited by": [k for k, v in terms.items() if v == chosen]}


def explain_load_layout(layout: Blocked, shape, elem_bits, threads_per_warp=32) -> dict[str, int | list[str]]:
    """For a load/store the coalesce pass already laid out (a TTGIR line), the terms that
    could have set sizePerThread[order[0]] and which of them did. Alignment and
    contiguity come from Triton's axis analysis, which the TTGIR does not keep: when the
    chosen width is below every term kx can see, they are what limited it, and their
    minimum is exactly the chosen width."""
    order = list(layout.order)
    chosen = layout.size_per_thread[order[0]]
    num_warps = prod(layout.warps_per_cta)
    visible = {
        "shape": shape[order[0]],
        "128-bit limit": max(1, 128 // elem_bits),
        "elements/threads cap": max(prod(shape) // (num_warps * threads_per_warp), 1),
    }
    limited = [k for k, v in visible.items() if v == chosen]
    terms: dict[str, int | list[str] | str] = dict(visible)
    if not limited and chosen < min(visible.values()):
        terms["alignment/contiguity"] = chosen
        limited = ["alignment/contiguity"]
    return {**terms, "chosen": chosen, "limited by": limited}
