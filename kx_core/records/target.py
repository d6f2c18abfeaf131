"""Parsing target spellings; the local GPU's target (base.local_gpu asks nvidia-smi).

Accepted spellings: 'cuda:90', 'sm_90', 'sm90', '90', 'hip:gfx942', 'gfx942', 'local',
'default' (the local GPU if there is one, else cuda:90).
"""

from __future__ import annotations

import re

from kx_core.base.local_gpu import local_gpu_info
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


def local_target() -> Target | None:
    """The first local NVIDIA GPU's target (local_gpu_info), or None."""
    info = local_gpu_info()
    if info is None:
        return None
    major, minor = info["compute_cap"].split(".")
    return Target("cuda", int(major) * 10 + int(minor), 32)
