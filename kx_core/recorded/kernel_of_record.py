"""One kernel a record holds -> kx's CompiledKernel, like a captured one.

Every reader (cache folder, dump folder, trace) gathers the same things: the stages'
texts by kx stage name, the cubin where the record has it, Triton's metadata where it
has it (a cache's `<name>.json`, a trace's payload.metadata), and the source location.
This module makes the kernel of them: resources from the cubin with the tools kx's
capture uses (kx_core.compile.artifacts.resources), SASS and ELF left to kx's derivers
(kx_core.compile.artifacts.derived) and labelled derived in `metadata.extra`.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

from kx_core.compile.artifacts import resources
from kx_core.compile.artifacts.kernel_record import EXTRA_FIELDS
from kx_core.records.backends import ALL_STAGES, BACKENDS, backend_of
from kx_core.records.results import CompiledKernel, KernelMetadata, Launch, Target

# TTGIR's module attributes, for a record without Triton's metadata (a dump folder).
# Example: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
_TTGIR_INT_RE = re.compile(r'"?ttg\.([\w-]+)"?\s*=\s*(\d+)\s*:\s*i32')
_TTGIR_TARGET_RE = re.compile(r'ttg\.target\s*=\s*"(\w+):(\w+)"')
# The kernel's own location: the first file location of TTIR (its function's `loc`).
# Example: #loc = loc("/work/fixtures/records/record_kernels.py":11:0)
_FIRST_LOC_RE = re.compile(r'^#loc\d*\s*=\s*loc\("((?:[^"\\]|\\.)+)":(\d+):\d+\)', re.MULTILINE)


@dataclass(frozen=True)
class RecordedKernel:
    """What a reader found of one kernel (the input of `kernel_of_record`)."""

    name: str
    origin: str  # the record kind and where in it: 'triton-cache <hash>', 'tritonparse line 3'
    stages: dict[str, str]
    cubin: bytes | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # Triton's, where the record has it
    source_file: str | None = None
    source_line: int | None = None
    launch: Launch | None = None
    notes: tuple[str, ...] = ()


# A record's file suffix -> kx's stage: Triton's GPU backends' stages are named by the
# suffix Triton writes ('ttir', 'llir', 'amdgcn'; 'sass' is what a dump folder and a
# trace's SASS dump hold). The binaries and Triton's `.source`/`.json` are not stages.
_RECORD_STAGES = {s.name for b in BACKENDS.values() if b.gpu for s in b.stages if not s.binary and s.lowering}


def as_int(value: Any, default: int) -> int:
    """An integer field of a record, or `default` where the record holds something else
    (a damaged or foreign record's value is a guess kx says, never a crash)."""
    try:
        return int(value) if value is not None and not isinstance(value, bool) else default
    except (TypeError, ValueError):
        return default


def stage_of_suffix(suffix: str) -> str | None:
    """kx's stage name for a record's file suffix, or None."""
    return suffix if suffix in _RECORD_STAGES else None


def _ttgir_facts(ttgir: str) -> tuple[dict[str, int], tuple[str, str] | None]:
    head = ttgir[: ttgir.find("{\n") + 1 if "{\n" in ttgir else 4096]
    ints = {k: int(v) for k, v in _TTGIR_INT_RE.findall(head)}
    target = _TTGIR_TARGET_RE.search(head)
    return ints, (target.groups() if target else None)


def target_of(metadata: dict[str, Any], stages: dict[str, str]) -> Target:
    """The record's target: Triton's metadata, else TTGIR's ttg.target; cuda:90 else."""
    return recorded_target(metadata, stages)[0]


def recorded_target(metadata: dict[str, Any], stages: dict[str, str]) -> tuple[Target, str | None]:
    """The record's target (target_of), and a note where the metadata names one that is
    not a target spelling of its backend ('90; rm', a line break): that text is the
    sender's, never shown as a target nor used to pick a compiler."""
    t = metadata.get("target")
    if isinstance(t, dict) and isinstance(t.get("backend"), str) and t["backend"] in BACKENDS:
        backend = BACKENDS[t["backend"]]
        arch = t.get("arch", 90)
        spelled = (
            backend.target(str(arch)) if isinstance(arch, (int, str)) and not isinstance(arch, bool) else None
        )
        if spelled is not None:
            return Target(backend.name, spelled.arch, _warp(t.get("warp_size"), backend.warp_size)), None
        fallback = recorded_target({}, stages)[0]
        return (
            fallback,
            f"the record's target arch {str(arch)[:40]!r} is not a {backend.name} arch: shown as {fallback}",
        )
    ints, target = _ttgir_facts(stages.get("ttgir", ""))
    if target and target[0] in BACKENDS and (spelled := BACKENDS[target[0]].target(target[1])):
        warp = _warp(ints.get("threads-per-warp"), BACKENDS[target[0]].warp_size)
        return Target(spelled.backend, spelled.arch, warp), None
    return Target("cuda", 90, 32), None


def _warp(value: Any, default: int) -> int:
    """A record's warp size where it is one a GPU has (32 or 64), else the backend's."""
    size = as_int(value, default)
    return size if size in (32, 64) else default


def source_of(stages: dict[str, str]) -> tuple[str | None, int | None]:
    """The kernel's file and line as its TTIR names them (a record without Python source)."""
    for stage in ("ttir", "ttgir"):
        if m := _FIRST_LOC_RE.search(stages.get(stage, "")):
            return m.group(1), int(m.group(2))
    return None, None


def kernel_of_record(found: RecordedKernel) -> CompiledKernel:
    """The CompiledKernel of one recorded kernel. `metadata.extra` says where it came from
    (`record`), which stages the record held (`record_stages`) and which kx derives from
    its binary (`derived_stages`)."""
    md = found.metadata
    # pipeline order, whatever order the record's files or keys came in
    stages = {s: found.stages[s] for s in ALL_STAGES if s in found.stages}
    target, target_note = recorded_target(md, stages)
    ints, _ = _ttgir_facts(stages.get("ttgir", ""))
    notes = list(found.notes) + ([target_note] if target_note else [])
    binaries = {}
    cubin, recompiled, why = found.cubin, [], ""
    # a backend whose binary is a cubin: ptxas assembles the record's PTX into one
    if (
        cubin is None
        and "ptx" in stages
        and backend_of(target).binary == "cubin"
        and str(target.arch).isdigit()
    ):
        from kx_core.recorded.recompiled_cubin import recompile

        cubin, why = recompile(found.name, stages["ptx"], int(target.arch), md)
        if cubin is not None:
            recompiled = ["cubin"]
            notes.append(
                f"cubin: recompiled by kx from the record's PTX with Triton {md['triton_version']}'s "
                "ptxas and the record's options (the record holds no binary; a run that set "
                "TRITON_PTXAS_PATH assembled it with its own ptxas)"
            )
    if cubin is not None:
        binaries["cubin"] = base64.b64encode(cubin).decode("ascii")
        usage = resources.cubin_resources(cubin, found.name)
    elif "amdgcn" in found.stages:
        usage = resources.parse_amdgcn_resources(found.stages["amdgcn"])
    elif isinstance(kx := md.get("kx"), dict) and kx.get("registers") is not None:
        # a trace kx wrote (kx_core.recorded.trace_export): the capture read them from its cubin
        usage = resources.ResourceUsage(registers=kx.get("registers"), spills=kx.get("spills"))
    else:
        usage = resources.ResourceUsage(
            reason="the record holds no cubin: registers and spills are unknown"
            + (f" ({why})" if why else "")
        )
    if usage.reason:
        notes.append(usage.reason)
    derived = [
        s.name
        for s in ALL_STAGES.values()
        if s.derived_from and s.derived_from in binaries and s.name not in stages
    ]
    extra: dict[str, Any] = {k: md[k] for k in EXTRA_FIELDS if k in md}  # as a captured kernel keeps them
    extra |= {"record": found.origin, "record_stages": list(stages), "derived_stages": derived}
    if recompiled:  # what kx made itself, beside what the record held (its note says how)
        extra["recompiled_binaries"] = recompiled
    if "shared" not in md and not any(
        n.startswith("shared memory:") for n in notes
    ):  # a reader's own says more
        notes.append("shared memory: the static size in the cubin (the record has no Triton metadata)")
    if "num_stages" not in md:
        notes.append("num_stages: not in the record (0 here)")
    if notes:
        extra["notes"] = notes
    shared = md.get("shared")
    if shared is None:
        shared = usage.shared or 0
    metadata = KernelMetadata(
        num_warps=as_int(md.get("num_warps"), ints.get("num-warps", 4)),
        num_stages=as_int(md.get("num_stages"), 0),
        num_ctas=as_int(md.get("num_ctas"), ints.get("num-ctas", 1)),
        shared=as_int(shared, 0),
        registers=usage.registers,
        spills=usage.spills,
        local=usage.local,
        stack=usage.stack,
        hash=str(md["hash"]) if md.get("hash") else None,
        extra=extra,
    )
    file, line = found.source_file, found.source_line
    ir_file, ir_line = source_of(stages)
    if file is None or file == ir_file:
        # the def line, as a capture's source_line is (a trace's python_source starts at
        # the decorator)
        file, line = ir_file, ir_line or line
    times = md.get("times")
    return CompiledKernel(
        name=found.name,
        status="compiled",
        target=target,
        source_file=file,
        source_line=line,
        launch=found.launch,
        stages=stages,
        binaries=binaries,
        metadata=metadata,
        compile_time_s=compile_seconds(times),
    )


def compile_seconds(times: Any) -> float | None:
    """Triton's CompileTimes (microseconds: ir_initialization, lowering_stages, store_results)."""
    if not isinstance(times, dict):
        return None
    try:
        total = times.get("ir_initialization", 0) + times.get("store_results", 0)
        total += sum(us for _, us in times.get("lowering_stages", ()))
    except (TypeError, ValueError):
        return None
    return total / 1e6
