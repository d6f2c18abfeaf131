"""Registers, spills, shared/local/stack memory, read from what ptxas produced.

CUDA: `cuobjdump -res-usage` on the cubin (the cuobjdump inside the triton wheel).
HIP: the AMDGPU metadata block of the AMDGCN text. SASS itself is in sass.py.
A missing tool gives a reason string, never an exception.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.base.tools import ToolFailed, ToolMissing, require_tool, run_tool

# Example: "  REG:30 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:576 TEXTURE:0 SURFACE:0 SAMPLER:0"
_RES_USAGE_RE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")
# Example: " Function add_kernel:"
_RES_FUNCTION_RE = re.compile(r"^\s*Function\s+(\S+?):\s*$", re.MULTILINE)

# AMDGPU metadata (YAML inside the .amdgcn text). Examples:
#     .vgpr_count:     14
#     .sgpr_spill_count: 0
#     .private_segment_fixed_size: 0
#     .group_segment_fixed_size: 0
_AMD_FIELD_RE = re.compile(
    r"^\s*\.(vgpr_count|sgpr_count|vgpr_spill_count|sgpr_spill_count|"
    r"private_segment_fixed_size|group_segment_fixed_size):\s*(\d+)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class ResourceUsage(Jsonable):
    """Per-thread registers; shared/local/stack in bytes. `spills` follows Triton's own
    definition (its driver reports local memory bytes / 4 as n_spills)."""

    registers: int | None = None
    spills: int | None = None
    shared: int | None = None
    local: int | None = None
    stack: int | None = None
    sgprs: int | None = None
    reason: str | None = None


def parse_res_usage(text: str, function: str | None = None) -> ResourceUsage:
    """Parse `cuobjdump -res-usage` output; the named function's line, else the first."""
    blocks = _RES_FUNCTION_RE.split(text)
    # split() gives [preamble, name1, body1, name2, body2, ...]
    for name, body in zip(blocks[1::2], blocks[2::2]):
        if function is None or name == function:
            m = _RES_USAGE_RE.search(body)
            if m:
                reg, stack, shared, local = (int(g) for g in m.groups())
                return ResourceUsage(reg, local // 4, shared, local, stack)
    return ResourceUsage(reason="no function resource line in cuobjdump output")


def parse_amdgcn_resources(text: str) -> ResourceUsage:
    """Registers (VGPRs), SGPRs, spills, LDS and scratch from AMDGCN's metadata."""
    fields = {k: int(v) for k, v in _AMD_FIELD_RE.findall(text)}
    if "vgpr_count" not in fields:
        return ResourceUsage(reason="no AMDGPU metadata in the amdgcn text")
    spills = fields.get("vgpr_spill_count", 0) + fields.get("sgpr_spill_count", 0)
    return ResourceUsage(
        registers=fields["vgpr_count"],
        spills=spills,
        shared=fields.get("group_segment_fixed_size"),
        local=fields.get("private_segment_fixed_size"),
        stack=fields.get("private_segment_fixed_size"),
        sgprs=fields.get("sgpr_count"),
    )


_RESOURCES: dict[tuple[str, str | None], ResourceUsage] = {}


def cubin_resources(cubin: bytes, function: str | None = None) -> ResourceUsage:
    """Resource usage of a cubin through `cuobjdump -res-usage`, once per cubin (the
    capture driver asks when a kernel is loaded, the kernel record again)."""
    key = (hashlib.sha256(cubin).hexdigest(), function)
    if key not in _RESOURCES:
        _RESOURCES[key] = _cuobjdump_resources(cubin, function)
    return _RESOURCES[key]


def _cuobjdump_resources(cubin: bytes, function: str | None) -> ResourceUsage:
    try:
        tool = require_tool("cuobjdump", "it reads registers and shared memory from the cubin")
    except ToolMissing as e:
        return ResourceUsage(reason=str(e))
    try:
        out = run_tool(tool, ["-res-usage"], 60, data=cubin, suffix=".cubin")
    except ToolFailed as e:
        return ResourceUsage(reason=str(e))
    return parse_res_usage(out, function)
