"""Parsing target spellings; the local GPU's target (base.local_gpu asks nvidia-smi).

Accepted spellings: 'cuda:90', 'sm_90', 'sm90', '90', 'hip:gfx942', 'gfx942', 'local',
'default' (the local GPU if there is one, else cuda:90).
"""

from __future__ import annotations

from kx_core.base.local_gpu import local_gpu_info
from kx_core.records.backends import BACKENDS
from kx_core.records.results import Target

DEFAULT_TARGET = Target("cuda", 90, 32)

# The targets the GUI offers in its Target menu: each backend's menu (records.backends).
KNOWN_TARGETS = tuple(f"{b.name}:{arch}" for b in BACKENDS.values() for arch in b.menu)


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
    for backend in BACKENDS.values():  # each backend's own spellings (records.backends)
        if (target := backend.target(text)) is not None:
            return target
    raise TargetError(f"unknown target {spec!r}: use cuda:90, sm_80, hip:gfx942 or local")


def default_spec(spec: str | None) -> str:
    """The spelling a target resolves to where 'default' (or None) must be named: 'local'
    when there is a local GPU, else cuda:90's; any other spelling as it is."""
    if spec in (None, "default"):
        return "local" if local_target() is not None else DEFAULT_TARGET.spec
    return spec


def local_target() -> Target | None:
    """The first local NVIDIA GPU's target (local_gpu_info), or None."""
    info = local_gpu_info()
    if info is None:
        return None
    major, minor = info["compute_cap"].split(".")
    return Target("cuda", int(major) * 10 + int(minor), 32)
