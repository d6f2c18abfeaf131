"""A compile result as the `kx` verbs print it: the documented JSON shape (`result_json`),
the plain table (`format_result`) and one file per stage (`write_stages`). Shared by the
compile verbs (cli.commands) and `kx open` (cli.records)."""

from __future__ import annotations

import os
import re
from typing import Any

from kx_core.records.backends import ALL_STAGES, backend_of
from kx_core.records.results import CompiledKernel, CompileResult

# ----------------------------------------------------------------- JSON shape


def kernel_json(k: CompiledKernel) -> dict[str, Any]:
    """One kernel in the CLI's documented JSON shape."""
    metadata = None
    if k.metadata is not None:
        md = k.metadata.to_json()
        extra = md.pop("extra", {})
        metadata = md | {"compile_time_s": k.compile_time_s} | {x: v for x, v in extra.items() if x not in md}
    return {
        "name": k.name,
        "status": k.status,
        "config": k.config.to_json() if k.config else None,
        "launch": k.launch.to_json() if k.launch else None,
        "stages": dict(k.stages),
        "metadata": metadata,
        "passes": [
            {"name": p.name, "argument": p.argument, "ir": p.ir, "changed": p.changed} for p in k.passes
        ],
        "message": k.message,
        "after_placeholder": k.after_placeholder.to_json() if k.after_placeholder else None,
        "chosen": k.chosen,
        # lines of the file a torch.compile kernel was generated from (Inductor's nodes)
        "model_lines": sorted({n for lines in k.source_origins.values() for n in lines}),
        # a C++ function: the file of its definition (DWARF), and whether it is library code
        **({"defined_in": k.defined_in, "library_code": k.library_code} if k.defined_in else {}),
    }


def result_json(r: CompileResult) -> dict[str, Any]:
    """The whole result in the CLI's documented JSON shape."""
    return {
        "file": r.file,
        "target": r.target.spec,
        "triton_version": r.triton_version,
        "kernels": [kernel_json(k) for k in r.kernels],
        "diagnostics": [
            {"kind": d.kind, "message": d.message, "file": d.file, "line": d.line, "column": d.column}
            for d in r.diagnostics
        ],
        "from_cache": r.from_cache,
        "build": r.build.to_json() if r.build else None,
    }


# ----------------------------------------------------------------- plain text


def _fmt(v: Any) -> str:
    return "-" if v is None else str(v)


def format_result(r: CompileResult) -> str:
    """A table of kernels, then the diagnostics as file:line: kind: message."""
    rows = [("kernel", "status", "grid", "warps", "stages", "regs", "spills", "shared", "compile s")]
    for k in r.kernels:
        md = k.metadata
        rows.append(
            (
                k.display_name,
                k.status,
                k.grid_text(),
                _fmt(md and md.num_warps),
                _fmt(md and md.num_stages),
                _fmt(md and md.registers),
                _fmt(md and md.spills),
                _fmt(md and md.shared),
                f"{k.compile_time_s:.2f}" if k.compile_time_s is not None else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        f"{r.file}  target {r.target.spec}  "
        + backend_of(r.target).tool_label(r.triton_version)
        + ("  (cached)" if r.from_cache else "")
    ]
    if r.kernels:
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    else:
        lines.append("no kernels")
    for k in r.kernels:
        if k.message and k.status != "not-launched":
            lines.append(f"{k.display_name}: {k.status}: {k.message}")
    first = r.launched_after_placeholder
    if first is not None:
        after = sum(1 for k in r.kernels if k.after_placeholder and k.status != "not-launched")
        lines.append(
            f"{after} kernel(s) captured after a data placeholder ({first.describe()}): "
            "their shapes, grids or the kernels launched may differ from a real run (exit status 5; "
            "--stop-at-data stops there instead)"
        )
    chosen = [k for k in r.kernels if k.chosen]
    if chosen:
        lines.append(
            f"{len(chosen)} autotuned launch(es) ran a config kx chose without timing it "
            f"({', '.join(k.display_name for k in chosen[:3])}{', ...' if len(chosen) > 3 else ''}): "
            "a real run times every config and launches the fastest"
        )
    for d in r.diagnostics:
        lines.append(str(d))
    return "\n".join(lines)


def stage_file_names(kernels: list[CompiledKernel]) -> list[str]:
    """Unique base names: '<kernel>[<config>]', a '#n' suffix for further specializations."""
    names, used = [], {}
    for k in kernels:
        base = re.sub(r"[^\w.=,\[\]-]", "_", k.display_name)
        n = used.get(base, 0)
        used[base] = n + 1
        names.append(base if n == 0 else f"{base}#{n + 1}")
    return names


def write_stages(r: CompileResult, out_dir: str) -> list[str]:
    """Write every stage of every kernel to out_dir; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for k, base in zip(r.kernels, stage_file_names(list(r.kernels))):
        for stage, text in k.stages.items():
            ext = ALL_STAGES[stage].extension if stage in ALL_STAGES else stage
            path = os.path.join(out_dir, f"{base}.{ext}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            written.append(path)
    return written
