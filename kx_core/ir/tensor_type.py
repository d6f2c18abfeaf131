"""MLIR ranked tensor types as Triton's IR writes them, parsed once for every reader (the
work model, the TTGIR line readers behind the Layout pane and the session's clicks):

    tensor<64x32x!tt.ptr<f16>, #blocked>     shape (64, 32), pointer to f16, encoding #blocked
    tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma}>>
    tensor<1024xf32>                         no encoding (TTIR)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod

from kx_core.ir.anatomy import matching_close, split_top_level

# Example body: "64x32x!tt.ptr<f16>" or "128x64xf16" or "1024xf8E4M3FN"
_BODY_RE = re.compile(r"^((?:\d+x)*)(!tt\.ptr<([^>]*)>|[\w.]+)$")


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    element: str  # "f16", "i32"; for a tensor of pointers the pointee ("f16")
    pointer: bool  # a tensor of pointers
    encoding: str | None = None  # "#blocked", "#ttg.dot_op<{...}>"

    @property
    def elements(self) -> int:
        return prod(self.shape) if self.shape else 1

    @property
    def element_bytes(self) -> int | None:
        """Bytes of one element (of the pointee, for pointers: what a load reads); fp8
        and i1 count one byte; None for a type without a width (index)."""
        bits = re.search(r"(\d+)", self.element.replace("f8E", "f8:"))
        return max(1, int(bits.group(1)) // 8) if bits else None


def tensor_types(text: str) -> list[TensorType]:
    """Every ranked tensor type in `text`, in order."""
    found, start = [], 0
    while (i := text.find("tensor<", start)) != -1:
        end = matching_close(text, i + len("tensor"))
        parts = split_top_level(text[i + len("tensor<") : end])
        m = _BODY_RE.match(parts[0]) if parts else None
        if m:
            shape = tuple(int(x) for x in m.group(1).split("x") if x)
            element = (m.group(3) or m.group(2)).split(",")[0].strip()  # "!tt.ptr<f16, 1>": f16
            encoding = parts[-1] if len(parts) > 1 and parts[-1].startswith("#") else None
            found.append(TensorType(shape, element, m.group(3) is not None, encoding))
        start = end + 1
    return found


def first_tensor(text: str) -> TensorType | None:
    types = tensor_types(text)
    return types[0] if types else None
