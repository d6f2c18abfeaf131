"""Where the NVIDIA binary tools are: the copies inside the triton wheel, found without
importing triton (importing it costs the parent process a second), unless Triton's own
environment variables (TRITON_CUOBJDUMP_PATH, TRITON_NVDISASM_PATH, TRITON_PTXAS_PATH)
point elsewhere; else the PATH."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil


@functools.cache
def triton_nvidia_bin() -> str | None:
    """The triton wheel's backends/nvidia/bin folder, if installed."""
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = os.path.join(base, "backends", "nvidia", "bin")
        if os.path.isdir(path):
            return path
    return None


def tool_path(name: str) -> str | None:
    """Absolute path of cuobjdump/nvdisasm/ptxas, or None when there is none."""
    env = os.environ.get(f"TRITON_{name.upper()}_PATH")
    if env and os.path.exists(env):
        return env
    folder = triton_nvidia_bin()
    if folder and os.path.exists(os.path.join(folder, name)):
        return os.path.join(folder, name)
    return shutil.which(name)
