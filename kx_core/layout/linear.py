"""Ownership of every layout kind through Triton's own linear layouts.

A TTGIR layout attribute (`#ttg.blocked<...>`, `#ttg.slice<...>`, `#ttg.nvidia_mma<...>`,
`#ttg.dot_op<...>`, `#ttg.amd_mfma<...>`, `#ttg.linear<...>`) is turned into Triton's
Gluon layout object and converted with `GluonOpBuilder.to_linear_layout(layout, shape)`.
A linear layout maps (register, lane, warp) to a tensor coordinate as the XOR of the
bases of the set bits of each index; a zero basis is a broadcast (several owners).

Works without a GPU (it is Triton's C++ layout code, not a device query). Imports triton
lazily: the rest of kx_core.layout stays importable anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kx_core.base.jsonable import Jsonable
from kx_core.ir.anatomy import parse_layout


class LayoutError(ValueError):
    """A layout kx cannot read or Triton cannot convert; the message says which."""


@dataclass(frozen=True)
class LinearBases(Jsonable):
    """Triton's linear layout of one distributed layout at one shape."""

    layout: str
    shape: tuple[int, ...]
    reg: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()

    @property
    def num_registers(self) -> int:
        return 1 << len(self.reg)

    @property
    def num_lanes(self) -> int:
        return 1 << len(self.lane)

    @property
    def num_warps(self) -> int:
        return 1 << len(self.warp)


def _resolve(value: Any, aliases: dict[str, str]) -> dict[str, Any]:
    text = aliases.get(value, value) if isinstance(value, str) else value
    layout = parse_layout(text) if isinstance(text, str) else None
    if layout is None:
        raise LayoutError(
            f"cannot read layout {value!r}"
            + (" (an alias without --from?)" if str(value).startswith("#") else "")
        )
    return layout


def _bool(v: Any) -> bool:
    return v is True or str(v).lower() == "true"


def gluon_layout(layout: dict[str, Any], aliases: dict[str, str], shape: list[int]):
    """Triton's Gluon layout object for a parsed layout dict (from parse_layout)."""
    from triton.experimental.gluon.language import _layouts as gl

    kind = layout["kind"]
    try:
        if kind == "blocked":
            return gl.BlockedLayout(
                layout["sizePerThread"], layout["threadsPerWarp"], layout["warpsPerCTA"], layout["order"]
            )
        if kind == "slice":
            parent_shape = list(shape)
            parent_shape.insert(int(layout["dim"]), 1)
            parent = gluon_layout(_resolve(layout["parent"], aliases), aliases, parent_shape)
            return gl.SliceLayout(int(layout["dim"]), parent)
        if kind == "nvidia_mma":
            return gl.NVMMADistributedLayout(
                version=[layout["versionMajor"], layout.get("versionMinor", 0)],
                warps_per_cta=layout["warpsPerCTA"],
                instr_shape=layout["instrShape"],
            )
        if kind == "dot_op":
            parent = gluon_layout(_resolve(layout["parent"], aliases), aliases, shape)
            return gl.DotOperandLayout(int(layout["opIdx"]), parent, int(layout.get("kWidth", 0)))
        if kind == "linear":
            return gl.DistributedLinearLayout(
                reg_bases=layout.get("register", []),
                lane_bases=layout.get("lane", []),
                warp_bases=layout.get("warp", []),
                block_bases=layout.get("block", []),
                shape=list(shape),
            )
        if kind == "amd_mfma":
            from triton.experimental.gluon.language.amd._layouts import AMDMFMALayout

            return AMDMFMALayout(
                version=int(layout["version"]),
                instr_shape=layout["instrShape"],
                transposed=_bool(layout.get("isTransposed", False)),
                warps_per_cta=layout["warpsPerCTA"],
            )
    except KeyError as e:
        raise LayoutError(f"{kind} layout without {e.args[0]}") from e
    raise LayoutError(f"layout kind {kind!r} has no distributed ownership kx can compute")


# The most elements a layout is computed for: 2^24 (4096x4096) fills a heatmap many times
# over; beyond it Triton's C++ and kx's arrays grow without bound.
MAX_ELEMENTS = 1 << 24


def check_shape(shape: list[int], rank: int | None = None) -> None:
    """Refuse what Triton would abort on or what cannot be drawn: non-powers of two,
    sizes past MAX_ELEMENTS, a rank that differs from the layout's."""
    if not shape or any(int(n) <= 0 or int(n) & (int(n) - 1) for n in shape):
        raise LayoutError(f"shape {list(shape)}: every dimension must be a positive power of two")
    if np.prod([int(n) for n in shape], dtype=np.float64) > MAX_ELEMENTS:
        raise LayoutError(f"shape {list(shape)}: over {MAX_ELEMENTS:,} elements")
    if rank is not None and rank != len(shape):
        raise LayoutError(f"the layout has rank {rank} but the shape {list(shape)} has rank {len(shape)}")


def layout_rank(layout: dict[str, Any]) -> int | None:
    """The rank a layout attribute declares (its per-dimension lists), if it says."""
    for key in ("warpsPerCTA", "order", "sizePerThread", "threadsPerWarp"):
        value = layout.get(key)
        if isinstance(value, (list, tuple)):
            return len(value)
    return None


def linear_bases(attr: str, shape: list[int], aliases: dict[str, str] | None = None) -> LinearBases:
    """Triton's linear layout of a layout attribute (text, or an alias found in
    `aliases`: alias -> attribute text) at `shape`, computed in kx's layout service (a
    child process: Triton aborts on some inputs). Raises LayoutError."""
    from kx_core.base import service

    aliases = aliases or {}
    layout = _resolve(attr.strip(), aliases)
    check_shape(list(shape), layout_rank(layout) if layout.get("kind") != "linear" else None)
    try:
        return service.call("layout", linear_bases_here, attr, list(shape), aliases)
    except service.ServiceDied as e:
        raise LayoutError(f"Triton's layout code {e} on {attr.strip()} at {list(shape)}") from e


def linear_bases_here(attr: str, shape: list[int], aliases: dict[str, str] | None = None) -> LinearBases:
    """linear_bases in this process (the layout service runs it)."""
    aliases = aliases or {}
    check_shape(list(shape))
    layout = _resolve(attr.strip(), aliases)
    try:
        from triton._C.libtriton import gluon_ir, ir
    except ImportError as e:  # pragma: no cover - triton is a dependency
        raise LayoutError(f"Triton's layout bindings are not available: {e}") from e
    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    obj = gluon_layout(layout, aliases, list(shape))
    attr_ir = None
    try:
        attr_ir = obj._to_ir(builder)
        ll = builder.to_linear_layout(attr_ir, list(shape))
    except Exception as e:  # noqa: BLE001 - Triton's own message, made a declared error
        raise LayoutError(f"Triton could not convert {attr.strip()} at {shape}: {e}") from e
    to_t = lambda bases: tuple(tuple(int(x) for x in b) for b in bases)
    result = LinearBases(
        layout=aliases.get(attr.strip(), attr.strip()),
        shape=tuple(shape),
        reg=to_t(ll.reg_bases),
        lane=to_t(ll.lane_bases),
        warp=to_t(ll.warp_bases),
        block=to_t(ll.block_bases),
    )
    return result


def _span(bases: tuple[tuple[int, ...], ...], rank: int) -> np.ndarray:
    """(2**len(bases), rank) coordinates of every index: XOR of the bases of its set bits."""
    n = 1 << len(bases)
    out = np.zeros((n, rank), dtype=np.int64)
    idx = np.arange(n)
    for j, basis in enumerate(bases):
        on = ((idx >> j) & 1).astype(bool)
        out[on] ^= np.asarray(basis, dtype=np.int64)
    return out


@dataclass(frozen=True)
class Ownership:
    """Who holds every element. `coords[w, l, r]` is the coordinate (warp w, lane l,
    register r) holds; `first_*` give, per element (in `shape`), the lowest owner;
    `count` the number of (warp, lane, register) triples holding it (> 1: broadcast)."""

    shape: tuple[int, ...]
    coords: np.ndarray  # (warps, lanes, registers, rank)
    first_warp: np.ndarray
    first_lane: np.ndarray
    first_register: np.ndarray
    count: np.ndarray

    def owners_of(self, coord: tuple[int, ...]) -> list[tuple[int, int, int]]:
        """Every (warp, lane, register) holding one element."""
        hit = np.all(self.coords == np.asarray(coord), axis=-1)
        return [tuple(int(x) for x in t) for t in np.argwhere(hit)]

    def owners_row_major(self) -> list[list[list[int]]]:
        """For every element in row-major order, its [warp, lane, register] triples."""
        rank = len(self.shape)
        flat = np.ravel_multi_index(tuple(self.coords[..., d] for d in range(rank)), self.shape)
        order = np.argsort(flat, axis=None, kind="stable")
        triples = np.stack(np.unravel_index(order, flat.shape), axis=-1)
        keys = flat.ravel()[order]
        out: list[list[list[int]]] = [[] for _ in range(int(np.prod(self.shape)))]
        for key, triple in zip(keys.tolist(), triples.tolist()):
            out[key].append(triple)
        return out


def ownership(bases: LinearBases) -> Ownership:
    """Numpy ownership arrays of a linear layout (vectorised: a 256x256 tensor in any
    layout takes milliseconds)."""
    rank = len(bases.shape)
    reg, lane, warp = _span(bases.reg, rank), _span(bases.lane, rank), _span(bases.warp, rank)
    coords = warp[:, None, None, :] ^ lane[None, :, None, :] ^ reg[None, None, :, :]
    flat = np.ravel_multi_index(tuple(coords[..., d] for d in range(rank)), bases.shape)
    size = int(np.prod(bases.shape))
    # the lowest (warp, lane, register) owning each element: scatter the flat triple
    # index in reverse order, so the lowest one is written last, then split it
    keys = flat.ravel()
    first = np.full(size, -1, dtype=np.int64)
    first[keys[::-1]] = np.arange(keys.size - 1, -1, -1)
    nw, nl, nr = coords.shape[:3]
    first_w, rest = np.divmod(first, nl * nr)
    first_l, first_r = np.divmod(rest, nr)
    count = np.bincount(flat.ravel(), minlength=size)
    shape = bases.shape
    return Ownership(
        shape=shape,
        coords=coords,
        first_warp=first_w.reshape(shape),
        first_lane=first_l.reshape(shape),
        first_register=first_r.reshape(shape),
        count=count.reshape(shape),
    )


def _owner_sets(own: Ownership) -> dict[int, frozenset[tuple[int, int]]]:
    rank = len(own.shape)
    flat = np.ravel_multi_index(tuple(own.coords[..., d] for d in range(rank)), own.shape)
    sets: dict[int, set[tuple[int, int]]] = {}
    nw, nl, nr = flat.shape
    for w in range(nw):
        for lane in range(nl):
            for key in set(flat[w, lane].tolist()):
                sets.setdefault(key, set()).add((w, lane))
    return {k: frozenset(v) for k, v in sets.items()}


def conversion_class(src: Ownership, dst: Ownership) -> str:
    """What a convert_layout between two layouts of one tensor costs, from the two
    ownership maps (the drill's classes, for every layout kind):
    'registers' (every element stays with the same threads), 'warp_shuffle' (with the
    same warps), else 'shared_memory'."""
    if src.shape != dst.shape:
        raise LayoutError(f"shapes differ: {src.shape} vs {dst.shape}")
    a, b = _owner_sets(src), _owner_sets(dst)
    if a == b:
        return "registers"
    warps = lambda s: frozenset(w for w, _ in s)
    if all(warps(a[k]) == warps(b[k]) for k in a):
        return "warp_shuffle"
    return "shared_memory"


@dataclass(frozen=True)
class Coalescing(Jsonable):
    """Warp 0's first vectorized access: bytes asked for, 32-byte sectors touched and
    efficiency = bytes / (sectors * 32); `vector` is elements per lane per access."""

    vector: int
    bytes_requested: int
    sectors: int
    efficiency: float


def first_access(
    own: Ownership, elem_bytes: int, strides: list[int] | None = None, vector_dim: int | None = None
) -> Coalescing:
    """Simulate warp 0's first vectorized load/store for any distributed layout: each lane
    accesses its registers 0.. while they step by one element along `vector_dim` (default:
    the dimension contiguous in memory), at most 16 bytes, on a tensor with element
    `strides` (row-major by default)."""
    shape = own.shape
    rank = len(shape)
    if strides is None:
        strides = [int(np.prod(shape[d + 1 :])) for d in range(rank)]
    if vector_dim is None:
        vector_dim = int(np.argmin(strides))
    unit = np.zeros(rank, dtype=np.int64)
    unit[vector_dim] = 1
    regs = own.coords[0]  # (lanes, registers, rank)
    vec = 1
    while (
        vec < regs.shape[1]
        and vec < max(1, 16 // elem_bytes)
        and np.array_equal(regs[0, vec] - regs[0, vec - 1], unit)
    ):
        vec += 1
    addresses = (regs[:, :vec, :] * np.asarray(strides)).sum(axis=-1) * elem_bytes
    sectors = len(np.unique(addresses // 32))
    requested = regs.shape[0] * vec * elem_bytes
    return Coalescing(vec, int(requested), sectors, requested / (sectors * 32))
