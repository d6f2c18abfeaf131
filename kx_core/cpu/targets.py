"""CPU targets: the ISA tiers of the seed's build.toml (`cpu_kernel_authoring.txt`,
"Compiler flag groups"), as `cpu:avx2`, `cpu:avx512` and `cpu:native`."""

from __future__ import annotations

import os
import re

from kx_core.records.languages import CPP_SOURCES
from kx_core.records.results import Target

# tier -> g++ flags (the seed's element-wise groups; AVX-512 GEMMs add dq/bw/vbmi/AMX)
TIER_FLAGS: dict[str, tuple[str, ...]] = {
    "avx2": ("-mavx2", "-mfma", "-mf16c"),
    "avx512": ("-mfma", "-mf16c", "-mavx512f", "-mavx512bf16", "-mavx512vl"),
    "native": ("-march=native",),
}
# what kx treats as C++: sources it compiles (records.languages), and the headers beside them it reads
CPP_FILES = CPP_SOURCES + (".hpp", ".h")
CPU_TARGETS = tuple(f"cpu:{tier}" for tier in TIER_FLAGS)
COMMON_FLAGS = ("-O3", "-fopenmp", "-std=c++20")  # torch 2.14 headers need C++20


def cpu_target(tier: str) -> Target:
    if tier not in TIER_FLAGS:
        raise ValueError(f"unknown CPU tier {tier!r}: use {', '.join('cpu:' + t for t in TIER_FLAGS)}")
    return Target("cpu", tier, 1)


def is_cpu_spec(spec: str | None) -> bool:
    return bool(spec) and spec.strip().lower().startswith("cpu:")


# Example: "rmsnorm_avx2.cpp" -> tier "avx2" (the seed's layout: one SIMD tier per file)
_TIER_FILE_RE = re.compile(r"_(avx2|avx512)\.(?:cpp|cc|cxx)$")


def tier_of_file(path: str) -> str | None:
    """The ISA tier a file's name asks for ("avx2" for rmsnorm_avx2.cpp), or None."""
    m = _TIER_FILE_RE.search(os.path.basename(path))
    return m.group(1) if m else None
