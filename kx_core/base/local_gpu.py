"""The local GPU as nvidia-smi reports it: the machine's fact, asked in the layer that
runs tools (records and the layers above ask here, and start no process themselves)."""

from __future__ import annotations

import functools
import re

from kx_core.base.tools import ToolFailed, find_tool, run_tool


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
