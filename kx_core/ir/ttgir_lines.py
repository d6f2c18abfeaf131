"""What one TTGIR line holds, read from its text: the (layout, shape) of every tensor type
with an encoding, the pointer tensors of a load/store/async copy, the register and shared
layouts of a local load/store/alloc, and element sizes. One parser of tensor types for the
Layout pane, the session's line clicks and the coalesce views."""

from __future__ import annotations

import re

from kx_core.ir.anatomy import matching_close, split_top_level

# Example: "tensor<64x32x!tt.ptr<f16>, #blocked>" or "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, ...}>>"
_TENSOR_RE = re.compile(r"tensor<(\d+(?:x\d+)*)x")


# Example element types: "f16", "bf16", "f32", "i8", "!tt.ptr<f16>" (a pointer: 8 bytes)
_ELEMENT_RE = re.compile(r"^(?:\d+x)+(!tt\.ptr<[^>]*>|[a-z]+\d+|f8E\w+)")


def element_bytes(tensor_body: str) -> int | None:
    """Bytes of a tensor type's element: 'tensor<64x32xf16, ...>' -> 2; the pointee for a
    tensor of pointers (what a load through it reads)."""
    m = _ELEMENT_RE.match(tensor_body)
    if not m:
        return None
    ty = m.group(1)
    if ty.startswith("!tt.ptr<"):
        ty = ty[len("!tt.ptr<") : -1]
    bits = re.search(r"(\d+)", ty.replace("f8E", "f8:"))
    return max(1, int(bits.group(1)) // 8) if bits else None


def tensor_layouts_in_line(line: str) -> list[tuple[str, list[int]]]:
    """(layout, shape) of every ranked tensor type with an encoding on an IR line."""
    found = []
    start = 0
    while (i := line.find("tensor<", start)) != -1:
        j = matching_close(line, i + len("tensor"))
        body = line[i + len("tensor<") : j]
        parts = split_top_level(body)
        m = _TENSOR_RE.match("tensor<" + body)
        if m and len(parts) > 1 and parts[-1].startswith("#"):
            found.append((parts[-1], [int(x) for x in m.group(1).split("x")]))
        start = j + 1
    return found


def loads_in_line(line: str) -> list[tuple[str, list[int], int]]:
    """For a tt.load / tt.store / async copy line: (layout, shape, element bytes) of its
    tensor of pointers."""
    if not re.search(r"\b(?:tt\.load|tt\.store|ttg\.async_copy_global_to_local)\b", line):
        return []
    out = []
    for m in re.finditer(r"tensor<((?:\d+x)+!tt\.ptr<[^>]*>), (#[\w.]+(?:<[^>]*>)?)>", line):
        size = element_bytes(m.group(1))
        dims = [int(x) for x in re.findall(r"(\d+)x", m.group(1))]
        if size:
            out.append((m.group(2), dims, size))
    return out


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
