"""Parsing target spellings and finding the local GPU.

Accepted spellings: 'cuda:90', 'sm_90', 'sm90', '90', 'hip:gfx942', 'gfx942', 'local',
'default' (the local GPU if there is one, else cuda:90).
"""

from __future__ import annotations

import functools
import re

from kx_core.base.tools import ToolFailed, find_tool, run_tool
from kx_core.records.results import Target

DEFAULT_TARGET = Target("cuda", 90, 32)

# Example: "cuda:90", "sm_80", "sm90a" is not accepted (Triton picks 90a itself for wgmma).
_CUDA_RE = re.compile(r"^(?:cuda:|sm_?)?(\d{2,3})$")
# Example: "hip:gfx942", "gfx90a"
_HIP_RE = re.compile(r"^(?:hip:)?(gfx[0-9a-f]+)$")

# The targets the GUI offers in its Target menu (issue: desktop app).
KNOWN_TARGETS = ("cuda:80", "cuda:86", "cuda:89", "cuda:90", "cuda:100", "hip:gfx942")


class TargetError(ValueError):
    """A target spelling kx cannot read."""


def parse_target(spec: str | None) -> Target:
    """Target for a spelling; 'local'/'default'/None ask the local GPU."""
    text = (spec or "default").strip().lower()
    if text in ("local", "default"):
        local = local_target()
        if local is not None:
            return local
        if text == "local":
            raise TargetError("no local GPU found (nvidia-smi did not report one)")
        return DEFAULT_TARGET
    if m := _CUDA_RE.match(text):
        return Target("cuda", int(m.group(1)), 32)
    if m := _HIP_RE.match(text):
        return Target("hip", m.group(1), 64)
    raise TargetError(f"unknown target {spec!r}: use cuda:90, sm_80, hip:gfx942 or local")


@functools.cache
def local_gpu_info() -> dict[str, str] | None:
    """The first local NVIDIA GPU as nvidia-smi reports it (name, compute capability,
    memory in MiB): the one local-GPU check of kx, fast and torch-free (the window
    process never imports torch). None when there is no GPU."""
    smi = find_tool("nvidia-smi")
    if smi is None:
        return None
    try:
        out = run_tool(
            smi, ["--query-gpu=name,compute_cap,memory.total", "--format=csv,noheader,nounits"], 10
        )
    except ToolFailed:
        return None
    # Example output line: "NVIDIA H200, 9.0, 143771"
    m = re.match(r"^\s*(.+?),\s*(\d+\.\d+),\s*(\d+)", out)
    if not m:
        return None
    return {"name": m.group(1), "compute_cap": m.group(2), "memory_mib": m.group(3)}


def local_target() -> Target | None:
    """The first local NVIDIA GPU's target (local_gpu_info), or None."""
    info = local_gpu_info()
    if info is None:
        return None
    major, minor = info["compute_cap"].split(".")
    return Target("cuda", int(major) * 10 + int(minor), 32)
