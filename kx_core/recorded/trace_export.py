"""kx's capture written back as a tritonparse trace, so a no-GPU capture can be shared with
people who read traces with tritonparse (its parser, its web page).

Each compiled kernel is one `compilation` event in the shape tritonparse's structured
logging writes (kx_core.recorded.trace_index reads the same shape): payload.metadata
(Triton's metadata fields kx holds: hash, name, target, warps, stages, shared, version),
payload.file_content and file_path (each stage's text under `<kernel>.<suffix>`, Triton's
suffixes), payload.python_source (the whole kernel file, as tritonparse's full-source mode
records it). A kernel with a launch record also gets a `launch` event (grid, arguments).
kx's own fields go under metadata.kx (config, where it was captured), which tritonparse
passes through.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
import os
from typing import Any

from kx_core.records.backends import backend_of
from kx_core.records.results import CompiledKernel, CompileResult

# tritonparse's parser (unified_parse) reads only files whose names start so
TRACE_PREFIX = "dedicated_log_triton_trace_"
# the stages a trace carries: tritonparse's (and Triton's asm) suffixes; ELF is kx's view
_TRACE_STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn", "sass")


def _kernel_hash(kernel: CompiledKernel) -> str:
    """Triton's hash where the capture has it (it is the real run's); otherwise one made
    of the stages, so two kernels never share one."""
    if kernel.metadata and kernel.metadata.hash:
        return kernel.metadata.hash
    body = json.dumps([kernel.display_name, kernel.stages], sort_keys=True).encode()
    return hashlib.sha256(body).hexdigest()


def _python_source(kernel: CompiledKernel, texts: dict[str, str | None]) -> dict[str, Any] | None:
    file = kernel.source_file
    if not file:
        return None
    if file not in texts:
        try:
            with open(file, encoding="utf-8") as f:
                texts[file] = f.read()
        except (OSError, UnicodeDecodeError):
            texts[file] = None  # a generated or deleted file: the trace has no source for it
    code = texts[file]
    if code is None:
        return None
    return {"file_path": file, "start_line": 1, "end_line": code.count("\n") + 1, "code": code}


def compilation_event(kernel: CompiledKernel, texts: dict[str, str | None], when: str) -> dict[str, Any]:
    """One kernel as tritonparse's compilation event."""
    md = kernel.metadata
    target = kernel.target
    extra = md.extra if md else {}
    metadata: dict[str, Any] = {
        "hash": _kernel_hash(kernel),
        "name": kernel.name,
        "target": {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size},
        "backend_name": target.backend,
        "warp_size": target.warp_size,
        "num_warps": md.num_warps if md else None,
        "num_stages": md.num_stages if md else None,
        "num_ctas": md.num_ctas if md else 1,
        "shared": md.shared if md else 0,
        "cache_hit": False,
        **{k: extra[k] for k in ("triton_version", "arch", "maxnreg", "ptx_version") if k in extra},
        "kx": {
            "display_name": kernel.display_name,
            "config": kernel.config.to_json() if kernel.config else None,
            "registers": md.registers if md else None,
            "spills": md.spills if md else None,
        },
    }
    names = {stage: f"{kernel.name}.{stage}" for stage in _TRACE_STAGES if stage in kernel.stages}
    payload: dict[str, Any] = {
        "metadata": metadata,
        # where the run wrote each file: kx wrote none, so each is its own name
        "file_path": {n: n for n in names.values()},
        "file_content": {names[s]: kernel.stages[s] for s in names},
    }
    if (source := _python_source(kernel, texts)) is not None:
        payload["python_source"] = source
    return {
        "event_type": "compilation",
        "pid": os.getpid(),
        "stack": [],
        "timestamp": when,
        "payload": payload,
    }


def launch_event(kernel: CompiledKernel, when: str) -> dict[str, Any] | None:
    """The kernel's launch record as tritonparse's launch event (None: no launch)."""
    launch = kernel.launch
    if launch is None or launch.warmup:
        return None
    args = {}
    for a in launch.args:
        if a.kind == "tensor":
            args[a.name] = {"type": "tensor", "shape": list(a.shape or ()), "dtype": f"torch.{a.dtype}"}
            if a.strides is not None:
                args[a.name]["stride"] = list(a.strides)
        else:
            args[a.name] = {"type": a.kind, "value": a.value}
    return {
        "event_type": "launch",
        "pid": os.getpid(),
        "stack": [],
        "timestamp": when,
        "name": kernel.name,
        "grid": list(launch.grid),
        "compilation_metadata": {
            "hash": _kernel_hash(kernel),
            "name": kernel.name,
            "num_warps": launch.num_warps,
            "num_stages": launch.num_stages,
        },
        "extracted_args": args,
    }


def trace_path(out: str) -> str:
    """The file `out` names: itself, or in a folder (an existing one, or a path ending in
    '/'), a file named as tritonparse names its traces, which its parser looks for."""
    if out.endswith(os.sep) or os.path.isdir(out):
        return os.path.join(out, f"{TRACE_PREFIX}kx_.ndjson")
    return out


def export_tritonparse(result: CompileResult, out: str) -> int:
    """Write the result's compiled GPU kernels to `out` (trace_path) as a tritonparse trace
    (gzipped when the name ends in .gz); returns how many kernels it wrote."""
    out = trace_path(out)
    if not backend_of(result.target).gpu:
        raise ValueError(f"a {result.target.spec} build has no Triton stages to write as a tritonparse trace")
    when = datetime.datetime.now(datetime.timezone.utc).isoformat()
    texts: dict[str, str | None] = {}
    kernels = [k for k in result.kernels if k.status == "compiled" and k.stages]
    opener = gzip.open if out.endswith(".gz") else open
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with opener(out, "wt", encoding="utf-8") as f:
        for kernel in kernels:
            f.write(json.dumps(compilation_event(kernel, texts, when)) + "\n")
            if (launch := launch_event(kernel, when)) is not None:
                f.write(json.dumps(launch) + "\n")
    return len(kernels)
