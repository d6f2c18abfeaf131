"""What one TTGIR line holds, read from its text: the (layout, shape) of every tensor type
with an encoding, the pointer tensors of a load/store/async copy, the register and shared
layouts of a local load/store/alloc, and element sizes. One parser of tensor types for the
Layout pane, the session's line clicks and the coalesce views."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class LineView:
    """What a click on a TTGIR line asks the Layout pane to show: `kind` is 'bank' (a
    shared-memory access: its bank conflicts), 'access' (a load/store: its coalescing),
    'conversion' (a convert_layout: its cost), or 'layout' (a tensor's or a layout
    alias's ownership); `args` are that view's arguments."""

    kind: str
    args: tuple


def view_of_line(lines: list[str], line: int) -> LineView | None:
    """The view a click on 1-based `line` of a TTGIR text asks for, or None."""
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    found = tensor_layouts_in_line(here)
    # Example: "#blocked = #ttg.blocked<{sizePerThread = [1, 4], ...}>"
    alias = re.match(r"^(#\w+) = #(?:ttg|triton_gpu)\.", here)
    if shared := shared_accesses_in_line(here):
        return LineView("bank", shared[0])
    if accesses := loads_in_line(here):
        return LineView("access", accesses[0])
    if "convert_layout" in here and len(found) >= 2 and found[0][1] == found[1][1]:
        return LineView("conversion", (found[0][0], found[1][0], found[0][1]))
    if found:
        return LineView("layout", found[0])
    if alias:
        # a layout alias line: show it at the shape of the largest tensor using it
        uses = [f[1] for t in lines for f in tensor_layouts_in_line(t) if f[0] == alias.group(1)]
        largest = max(uses, key=lambda s: (math.prod(s), len(s)), default=[64, 64])
        return LineView("layout", (alias.group(1), largest))
    return None
