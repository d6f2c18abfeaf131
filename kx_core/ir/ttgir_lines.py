"""What one TTGIR line holds, read from its text: the (layout, shape) of every tensor type
with an encoding, the pointer tensors of a load/store/async copy, the register and shared
layouts of a local load/store/alloc, and element sizes. One parser of tensor types for the
Layout pane, the session's line clicks and the coalesce views."""

from __future__ import annotations

import re

from kx_core.ir.tensor_type import first_tensor, tensor_types


def element_bytes(tensor_body: str) -> int | None:
    """Bytes of a tensor type's element: '64x32xf16, ...' -> 2; the pointee for a tensor
    of pointers (what a load through it reads)."""
    t = first_tensor(f"tensor<{tensor_body}>")
    return t.element_bytes if t else None


def tensor_layouts_in_line(line: str) -> list[tuple[str, list[int]]]:
    """(layout, shape) of every ranked tensor type with an encoding on an IR line."""
    return [(t.encoding, list(t.shape)) for t in tensor_types(line) if t.encoding and t.shape]


def loads_in_line(line: str) -> list[tuple[str, list[int], int]]:
    """For a tt.load / tt.store / async copy line: (layout, shape, element bytes) of its
    tensor of pointers."""
    if not re.search(r"\b(?:tt\.load|tt\.store|ttg\.async_copy_global_to_local)\b", line):
        return []
    return [
        (t.encoding, list(t.shape), t.element_bytes)
        for t in tensor_types(line)
        if t.pointer and t.encoding and t.element_bytes
    ]


# Example: "!ttg.memdesc<64x16xf16, #shared, #smem, mutable, 64x32>": a 64x16 view of a
# 64x32 allocation (the trailing shape, when present, is the allocation's)
_MEMDESC_RE = re.compile(
    r"!ttg\.memdesc<((?:\d+x)+)(\w+), (#[\w.]+(?:<\{[^}]*\}>)?)([^>]*?)(?:, (\d+(?:x\d+)+))?>"
)


def shared_accesses_in_line(line: str) -> list[tuple[str, str, list[int], int, list[int]]]:
    """For a ttg.local_load / local_store / local_alloc of a tensor: (register layout,
    shared layout, tensor shape, element bits, allocation shape)."""
    if not re.search(r"\bttg\.local_(?:load|store|alloc)\b", line):
        return []
    mem = _MEMDESC_RE.search(line)
    tensors = tensor_layouts_in_line(line)
    if not mem or not tensors:
        return []
    reg, shape = tensors[0]
    bits = re.search(r"(\d+)", mem.group(2).replace("f8E", "f8:"))
    alloc = [int(x) for x in mem.group(5).split("x")] if mem.group(5) else list(shape)
    return [(reg, mem.group(3), shape, int(bits.group(1)), alloc[-len(shape) :])] if bits else []
