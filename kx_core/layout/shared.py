"""Shared-memory layouts: where each element lives in shared memory, and the bank each
lane hits when a warp reads or writes a distributed tensor there.

A shared layout (`#ttg.swizzled_shared<...>`, `#ttg.nvmma_shared<...>`,
`#ttg.shared_linear<...>`) is turned into Triton's Gluon object and converted with
`GluonOpBuilder.to_linear_layout`: its bases map a shared-memory *offset* (in elements)
to a tensor coordinate. kx inverts that map and simulates one ld.shared/st.shared of
warp 0:

- the vector: the longest run of registers that are also consecutive in shared memory,
  at most 128 bits (what Triton's lowering vectorises);
- a wavefront serves 32 banks x 4 bytes = 128 bytes, so it holds 1024 / (vector bits)
  lanes' vectors (all 32 lanes for <= 32-bit vectors, 8 lanes for 128-bit ones);
- within the first wavefront's lanes, vectors in the same bank slot but a different
  128-byte row serialise: conflicts = (most distinct rows in one bank slot) - 1.
  Lanes reading the same word are a broadcast, not a conflict.

That is the quantity Gluon's `bank_conflicts` reports ("the excess number of memory
accesses each wavefront needs"); tests/layout/test_shared.py checks the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kx_core.base.jsonable import Jsonable
from kx_core.layout.linear import LayoutError, Ownership, _bool, _resolve, _span

SHARED_KINDS = ("swizzled_shared", "nvmma_shared", "shared_linear")
BANKS = 32
BANK_BYTES = 4


@dataclass(frozen=True)
class SharedBases(Jsonable):
    """Triton's linear layout of a shared layout at one shape: offset bit -> coordinate."""

    layout: str
    shape: tuple[int, ...]
    offset: tuple[tuple[int, ...], ...]


def gluon_shared_layout(layout: dict[str, Any], shape: list[int]):
    """Triton's Gluon object for a parsed shared layout dict (from parse_layout)."""
    from triton.experimental.gluon.language import _layouts as gl

    kind = layout["kind"]
    try:
        if kind == "swizzled_shared":
            return gl.SwizzledSharedLayout(
                int(layout["vec"]), int(layout["perPhase"]), int(layout["maxPhase"]), list(layout["order"])
            )
        if kind == "nvmma_shared":
            return gl.NVMMASharedLayout(
                swizzle_byte_width=int(layout["swizzlingByteWidth"]),
                element_bitwidth=int(layout["elementBitWidth"]),
                rank=len(shape),
                transposed=_bool(layout.get("transposed", False)),
                fp4_padded=_bool(layout.get("fp4Padded", False)),
            )
        if kind == "shared_linear":
            return gl.SharedLinearLayout(layout["offset"])
    except KeyError as e:
        raise LayoutError(f"{kind} layout without {e.args[0]}") from e
    raise LayoutError(f"{kind!r} is not a shared layout kx can place (one of {', '.join(SHARED_KINDS)})")


def is_shared(attr: str, aliases: dict[str, str] | None = None) -> bool:
    try:
        return _resolve(attr.strip(), aliases or {})["kind"] in SHARED_KINDS
    except LayoutError:
        return False


def shared_bases(attr: str, shape: list[int], aliases: dict[str, str] | None = None) -> SharedBases:
    """Offset bases of a shared layout (text or alias) at `shape`, from Triton in kx's
    layout service (a child process). Raises LayoutError."""
    from kx_core.base import service

    try:
        return service.call("layout", shared_bases_here, attr, list(shape), aliases or {})
    except service.ServiceDied as e:
        raise LayoutError(f"Triton's layout code {e} on {attr.strip()} at {list(shape)}") from e


def shared_bases_here(attr: str, shape: list[int], aliases: dict[str, str] | None = None) -> SharedBases:
    """shared_bases in this process (the layout service runs it)."""
    aliases = aliases or {}
    if any(n <= 0 or n & (n - 1) for n in shape):
        raise LayoutError(f"shape {shape}: every dimension must be a power of two")
    layout = _resolve(attr.strip(), aliases)
    from triton._C.libtriton import gluon_ir, ir

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    obj = gluon_shared_layout(layout, list(shape))
    try:
        ll = builder.to_linear_layout(obj._to_ir(builder), list(shape))
    except Exception as e:  # noqa: BLE001 - Triton's own message, made a declared error
        raise LayoutError(f"Triton could not place {attr.strip()} at {shape}: {e}") from e
    return SharedBases(
        layout=aliases.get(attr.strip(), attr.strip()),
        shape=tuple(shape),
        offset=tuple(tuple(int(x) for x in b) for b in ll.offset_bases),
    )


def offsets(bases: SharedBases) -> np.ndarray:
    """Shared-memory offset (in elements) of every element, an array of `shape`, from
    Triton's linear layout. Offsets whose coordinates repeat keep the lowest."""
    rank = len(bases.shape)
    coords = _span(bases.offset, rank)
    flat = np.ravel_multi_index(tuple(coords[:, d] for d in range(rank)), bases.shape)
    out = np.full(int(np.prod(bases.shape)), -1, dtype=np.int64)
    out[flat[::-1]] = np.arange(len(flat) - 1, -1, -1)
    if (out < 0).any():
        raise LayoutError(f"{bases.layout} does not place every element of {bases.shape}")
    return out.reshape(bases.shape)


def _swizzled(shape: list[int], order: list[int], vec: int, per_phase: int, max_phase: int, tile_cols: int):
    """Offsets of a swizzled placement: dim order[0] is contiguous, cut into tiles of
    `tile_cols` columns stored one after another; inside a tile, row r's column groups
    of `vec` are XORed with the phase (r // per_phase) % max_phase."""
    rank = len(shape)
    grids = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    col, row = grids[order[0]], grids[order[1]] if rank > 1 else np.zeros_like(grids[0])
    cols, rows = shape[order[0]], (shape[order[1]] if rank > 1 else 1)
    tile_cols = min(tile_cols, cols)
    groups = max(1, tile_cols // vec)
    tile, c = np.divmod(col, tile_cols)
    phase = (row // per_phase) % max_phase
    swz = (((c // vec) ^ phase) % groups) * vec + c % vec
    out = tile * (rows * tile_cols) + row * tile_cols + swz
    stride = rows * cols
    for d in order[2:]:
        out = out + grids[d] * stride
        stride *= shape[d]
    return out


def placement(attr: str, shape: list[int], aliases: dict[str, str] | None = None) -> np.ndarray:
    """kx's own model of where a shared layout puts each element: offsets (in elements),
    an array of `shape`. Works on every triton kx supports (3.6's to_linear_layout aborts
    on shared layouts); tests check it against Triton's linear layout where it runs."""
    from kx_core.layout.linear import check_shape

    check_shape(list(shape))
    layout = _resolve(attr.strip(), aliases or {})
    kind = layout["kind"]
    rank = len(shape)
    try:
        return _placement(layout, kind, attr, shape, rank)
    except (KeyError, ValueError, TypeError, IndexError) as e:
        raise LayoutError(f"{kind} layout kx cannot place at {list(shape)}: {e}") from e


def _placement(layout: dict, kind: str, attr: str, shape: list[int], rank: int) -> np.ndarray:
    for field in ("vec", "perPhase", "maxPhase", "elementBitWidth"):
        if field in layout and int(layout[field]) <= 0:
            raise LayoutError(f"{field} = {layout[field]}: it must be positive")
        # numpy's int64 arithmetic below would overflow; no real layout comes near this
        if field in layout and int(layout[field]) > 1 << 30:
            raise LayoutError(f"{field} = {layout[field]}: too large (at most 2^30)")
    if "swizzlingByteWidth" in layout and int(layout["swizzlingByteWidth"]) not in (0, 32, 64, 128):
        raise LayoutError(f"swizzlingByteWidth = {layout['swizzlingByteWidth']}: one of 0, 32, 64, 128")
    if "order" in layout and sorted(int(x) for x in layout["order"]) != list(range(rank)):
        raise LayoutError(f"order {layout['order']} is not a permutation of the shape's {rank} dims")
    if kind == "swizzled_shared":
        order = [int(x) for x in layout["order"]]
        return _swizzled(
            shape,
            order,
            int(layout["vec"]),
            int(layout["perPhase"]),
            int(layout["maxPhase"]),
            shape[order[0]],
        )
    if kind == "nvmma_shared":
        bits = int(layout["elementBitWidth"])
        swizzle = int(layout["swizzlingByteWidth"])
        order = list(range(rank))[::-1]
        if _bool(layout.get("transposed", False)):
            order[0], order[1] = order[1], order[0]
        vec = 128 // bits
        if swizzle == 0:
            return _swizzled(shape, order, vec, 1, 1, shape[order[0]])
        return _swizzled(shape, order, vec, 128 // swizzle, swizzle // 16, swizzle * 8 // bits)
    if kind == "shared_linear":
        return offsets(SharedBases(attr, tuple(shape), tuple(tuple(b) for b in layout["offset"])))
    raise LayoutError(f"{kind!r} is not a shared layout kx can place (one of {', '.join(SHARED_KINDS)})")


@dataclass(frozen=True)
class BankAccess(Jsonable):
    """Warp 0's first ld.shared/st.shared of a distributed tensor in a shared layout.

    `vector`: elements per lane per instruction; `lanes_per_wavefront`: lanes one
    128-byte wavefront serves; `offsets`/`banks`: per lane, the element offset and the
    4-byte bank of its vector's first word; `conflicts`: extra wavefronts each
    wavefront needs (0 = conflict-free)."""

    vector: int
    bits: int
    lanes_per_wavefront: int
    offsets: tuple[int, ...]
    banks: tuple[int, ...]
    conflicts: int


def _vector(off: np.ndarray, bits: int) -> int:
    """Elements per lane per instruction: the longest run of registers that sits at
    consecutive, aligned shared offsets in register order for *every* lane and warp, at
    most 128 bits. `off` is (warps, lanes, registers) offsets. A swizzle that XORs a
    row's phase into the low offset bits breaks the run (a lane's registers 0..3 would
    sit at 130, 131, 128, 129), so it limits the vector to the swizzle's `vec`."""
    regs = np.arange(off.shape[-1])
    vec, chosen = 1, 0
    while vec * 2 * bits <= 128:
        # the register basis (a power-of-two index) that moves vec elements further on
        cand = [
            b
            for b in (1 << i for i in range(off.shape[-1].bit_length() - 1))
            if off[0, 0, b] ^ off[0, 0, 0] == vec
        ]
        if not cand:
            break
        step = cand[0]
        lo = regs[(regs & step) == 0]
        starts = regs[(regs & (chosen | step)) == 0]
        if (
            not np.array_equal(off[..., lo ^ step], off[..., lo] + vec)
            or (off[..., starts] % (2 * vec)).any()
        ):
            break
        vec, chosen = vec * 2, chosen | step
    return vec


def bank_access(reg: Ownership, off: np.ndarray, bits: int) -> BankAccess:
    """Simulate warp 0's first vectorised access of `reg` (a distributed layout's
    ownership) to shared memory where element e lives at offset `off[e]` (from
    `placement`), with `bits`-bit elements."""
    if tuple(reg.shape) != tuple(off.shape):
        raise LayoutError(f"shapes differ: registers {reg.shape}, shared {off.shape}")
    rank = len(reg.shape)
    coords = reg.coords[0]  # (lanes, registers, rank)
    lane_reg_off = off[tuple(coords[..., d] for d in range(rank))]  # (lanes, registers)
    all_off = off[tuple(reg.coords[..., d] for d in range(rank))]  # (warps, lanes, registers)
    vec = _vector(all_off, bits)
    total = int(np.prod(reg.shape))
    slot_bits = vec * bits
    # a wavefront is 32 banks x 32 bits; vectors narrower than a bank pack several per
    # bank, so count in "slots" of one vector: 1024 / slot_bits of them per 128 bytes
    bank_slots = min(BANKS * BANK_BYTES * 8 // slot_bits, max(1, total // vec))
    lanes = min(coords.shape[0], bank_slots)
    first = lane_reg_off[:lanes, 0]
    slot = first // vec
    row, bank_slot = np.divmod(slot, bank_slots)
    rows_per_slot = [len(np.unique(row[bank_slot == b])) for b in np.unique(bank_slot)]
    conflicts = max(rows_per_slot) - 1
    banks = (first * bits // 8 // BANK_BYTES) % BANKS
    return BankAccess(
        vector=vec,
        bits=bits,
        lanes_per_wavefront=int(lanes),
        offsets=tuple(int(x) for x in first),
        banks=tuple(int(x) for x in banks),
        conflicts=int(conflicts),
    )
