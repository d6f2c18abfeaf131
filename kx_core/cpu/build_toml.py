"""The flags a C++ kernel's own build file asks for: the Hugging Face kernel-builder's
`build.toml` (the seed's "Compiler flag groups"), in the file's folder or one above it.

    [kernel.flash_attn_cpu_avx512]
    backend = "cpu"
    cxx-flags = ["-fopenmp", "-mavx512f", "-mavx512bf16", "-mavx512vl", "-mavx512dq", ...]
    include = ["flash_attn_cpu"]
    src = ["flash_attn_cpu/src/fmha_fwd_avx512.cpp", ...]

The kernel whose `src` lists the file gives its `cxx-flags` and `include` folders (relative
to the build.toml): an AVX-512 GEMM file that needs `-mavx512dq` compiles as its build
does, not with kx's element-wise tier flags and a wall of "target specific option
mismatch" errors."""

from __future__ import annotations

import os
from dataclasses import dataclass

import tomllib

_LEVELS_UP = 4  # a kernel's sources sit a few folders below its build.toml


@dataclass(frozen=True)
class BuildFlags:
    toml: str  # the build.toml's path
    kernel: str  # its [kernel.NAME]
    cxx_flags: tuple[str, ...]
    include_dirs: tuple[str, ...]  # absolute


def build_flags(path: str) -> BuildFlags | None:
    """The build.toml kernel that compiles `path`, or None (no build.toml lists it; one
    that cannot be read counts as none: the tier's flags apply)."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    for _ in range(_LEVELS_UP):
        toml = os.path.join(folder, "build.toml")
        if os.path.isfile(toml):
            try:
                with open(toml, "rb") as f:
                    doc = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError):
                return None
            for name, kernel in (doc.get("kernel") or {}).items():
                if not isinstance(kernel, dict) or kernel.get("backend") != "cpu":
                    continue
                sources = {os.path.realpath(os.path.join(folder, s)) for s in kernel.get("src") or ()}
                if path in sources:
                    return BuildFlags(
                        toml,
                        name,
                        tuple(str(f) for f in kernel.get("cxx-flags") or ()),
                        tuple(os.path.join(folder, d) for d in kernel.get("include") or ()),
                    )
            return None
        folder = os.path.dirname(folder)
    return None
