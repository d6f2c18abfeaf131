"""The CUDA runtime's `cudaDeviceProp` as the capture device fills it, laid out by CUDA's
own declaration (`driver_types.h`, shipped with the CUDA runtime torch loads).

PyTorch's C++ reads a device's properties as this struct (`at::cuda::getDeviceProperties`);
where kx answers such a read for the capture GPU (sdpa_choice.py), the struct must be laid
out as the runtime's. Its fields are counted from the header in order, with C's sizes and
alignments for the few types the struct uses, up to the first field of a type not known
here; only the fields before it are filled (the rest stay zero).

Qt-free and torch-free.
"""

from __future__ import annotations

import glob
import os
import re

# One field of the struct: its type, name and array lengths.
# Example: "    int          maxThreadsDim[3];           /**< Maximum size ... */"
# Example: "    unsigned int luidDeviceNodeMask;         /**< LUID device node mask ... */"
_FIELD_RE = re.compile(r"^\s*((?:unsigned\s+)?\w+)\s+(\w+)((?:\[\d+\])*)\s*;")
# The runtime version a header declares. Example: "#define CUDART_VERSION  13000"
_VERSION_RE = re.compile(r"#define\s+CUDART_VERSION\s+(\d+)")
# (size, alignment) of the types cudaDeviceProp uses (x86-64 Linux)
_TYPES = {
    "char": (1, 1),
    "unsigned char": (1, 1),
    "int": (4, 4),
    "unsigned int": (4, 4),
    "size_t": (8, 8),
    "cudaUUID_t": (16, 1),  # struct CUuuid_st { char bytes[16]; }
}
# Room for the struct: larger than any CUDA release's (1,032 bytes in CUDA 12 and 13).
STRUCT_BYTES = 4096


def field_offsets(header_text: str) -> dict[str, tuple[int, str, int]]:
    """{field: (offset, type, element count)} of `struct cudaDeviceProp` in the header's
    text, up to the first field whose type is not known here."""
    start = header_text.find("struct __device_builtin__ cudaDeviceProp")
    if start < 0:
        return {}
    body_start = header_text.find("{", start)
    body_end = header_text.find("};", body_start)
    fields: dict[str, tuple[int, str, int]] = {}
    offset = 0
    for line in header_text[body_start + 1 : body_end].splitlines():
        code = line.split("/*")[0].split("//")[0]
        if ";" not in code:
            continue  # a comment or a blank line
        m = _FIELD_RE.match(code)
        kind = " ".join(m.group(1).split()) if m else ""
        if kind not in _TYPES:
            break  # a field of a type not known here: the offsets after it are unknown
        size, align = _TYPES[kind]
        count = 1
        for n in re.findall(r"\d+", m.group(3)):
            count *= int(n)
        offset = (offset + align - 1) // align * align
        fields[m.group(2)] = (offset, kind, count)
        offset += size * count
    return fields


def runtime_header(cuda_version: str, site_dirs: list[str]) -> str | None:
    """The `driver_types.h` of the CUDA runtime `cuda_version` ('13.0'): from NVIDIA's
    runtime wheels beside torch, else a CUDA toolkit; one whose declared major version is
    the runtime's."""
    candidates: list[str] = []
    for site in site_dirs:
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "*", "include", "driver_types.h")))
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            candidates.append(os.path.join(home, "include", "driver_types.h"))
    major = cuda_version.split(".")[0]
    for path in candidates:
        api = os.path.join(os.path.dirname(path), "cuda_runtime_api.h")
        try:
            with open(api, encoding="utf-8", errors="replace") as f:
                m = _VERSION_RE.search(f.read())
        except OSError:
            continue
        if m and str(int(m.group(1)) // 1000) == major:
            return path
    return None


def fill(
    buffer: bytearray | memoryview, fields: dict[str, tuple[int, str, int]], values: dict[str, object]
) -> None:
    """Write `values` ({field: int or str}) into `buffer` at the fields' offsets; fields
    the layout does not have are left out."""
    import struct

    formats = {"int": "<i", "unsigned int": "<I", "size_t": "<Q"}
    for name, value in values.items():
        if name not in fields:
            continue
        offset, kind, count = fields[name]
        if kind == "char" and isinstance(value, str):
            data = value.encode("utf-8")[: count - 1]
            buffer[offset : offset + len(data)] = data
        elif kind in formats and count == 1 and isinstance(value, int):
            struct.pack_into(formats[kind], buffer, offset, value)
