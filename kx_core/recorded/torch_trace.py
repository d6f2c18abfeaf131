"""A TORCH_TRACE log (torch's structured trace, what tlparse reads): one glog-prefixed JSON
line per event, its payload (if any) on the lines after it, each indented by a tab (<TAB> here).

    V1203 15:02:31.588000 716 torch/_inductor/graph.py:2575] {"inductor_output_code": {"filename": "/tmp/.../c2ww....py"}, "frame_id": 0, ..., "has_payload": "7e2e40b8..."}
    <TAB># AOT ID: ['0_inference']
    <TAB>from ctypes import c_void_p, c_long, c_int
    <TAB>...

`has_payload` is the md5 of the payload's lines joined by newlines: a payload whose digest
differs is cut short (a log copied while torch was writing it) and is not compiled.
What kx takes from it: each `inductor_output_code` payload (an Inductor output module,
recompiled by kx: kx_core.recorded.inductor_module), the `triton_kernel_info` artifacts
(the config each kernel launched), `compilation_metrics` (the run's Triton and torch
versions); and a count of every kind of event, so `kx open` can say what the log holds.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kx_core.base import outside_files
from kx_core.base.outside_files import (
    RefusedFile,
    inflation_problem,
    line_problem,
    loads_json,
    open_regular,
    read_head,
    size_words,
    version_word,
)
from kx_core.base.paths import cache_dir
from kx_core.recorded.inductor_module import RecordedRun, list_module, recompile_module
from kx_core.records.results import CompileResult, Diagnostic

# Example: V1203 15:02:29.105000 716 torch/_dynamo/convert_frame.py:276] {"dynamo_start": {"stack": []}, "frame_id": 0}
_HEADER_RE = re.compile(r"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\] (\{.*\})\s*$")
# the fields every event has beside the one that names it
_COMMON = {"frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id"}
_KEPT_PAYLOADS = ("inductor_output_code", "artifact triton_kernel_info")
MAX_PROBLEMS = 20  # located diagnostics per log; the rest are counted in one


@dataclass(frozen=True)
class TraceEvent:
    """One event of the log: its kind ('inductor_output_code', 'artifact NAME'), the
    line of its header (1-based), its JSON, and its payload where kx keeps it."""

    kind: str
    line: int
    doc: dict[str, Any]
    payload: str | None = None
    payload_ok: bool = True  # the payload's md5 is its has_payload


@dataclass(frozen=True)
class TorchTrace:
    """What a log holds: the events kx reads, every kind counted, and what did not read."""

    path: str
    events: tuple[TraceEvent, ...]
    kinds: dict[str, int] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()

    def versions(self) -> dict[str, str]:
        """The run's versions (compilation_metrics: triton_version, pytorch_version)."""
        out: dict[str, str] = {}
        for e in self.events:
            metrics = e.doc.get("compilation_metrics")
            if isinstance(metrics, dict):
                for key in ("triton_version", "pytorch_version"):
                    # a version a note names (and a Triton kx may pick by it): only a version
                    if version_word(metrics.get(key)):
                        out.setdefault(key, metrics[key])
        return out

    def launched(self) -> dict[str, dict]:
        """kernel name -> the config the run launched (triton_kernel_info's only_config
        or best_config: kwargs with num_warps, num_stages)."""
        out: dict[str, dict] = {}
        for e in self.events:
            if e.kind != "artifact triton_kernel_info" or not e.payload_ok or e.payload is None:
                continue
            try:
                info = loads_json(e.payload, self.path)
            except ValueError:  # RefusedFile is one: too deep
                continue
            for name, facts in info.items() if isinstance(info, dict) else ():
                for key in ("only_config", "best_config"):
                    pairs = facts.get(key) if isinstance(facts, dict) else None
                    if isinstance(pairs, list) and all(isinstance(p, list) and len(p) == 2 for p in pairs):
                        out[name] = {str(k): v for k, v in pairs}
        return out


def is_torch_trace(path: str) -> bool:
    """The file's first non-blank line is a glog-prefixed JSON object."""
    head = read_head(path, 1 << 16)  # b'' for a FIFO or a device: never waited on
    for raw in head.splitlines():
        if raw.strip():
            line = raw.decode("utf-8", "replace")
            return bool(_HEADER_RE.match(line)) or (line[:1] in "VIWEC" and "] {" in line[:200])
    return False


def _kind(doc: dict[str, Any]) -> str:
    names = [k for k in doc if k not in _COMMON]
    kind = names[0] if names else "event"
    if kind == "artifact" and isinstance(doc["artifact"], dict):
        kind = f"artifact {doc['artifact'].get('name', '?')}"
    return kind


@dataclass
class _Pending:
    """An event whose payload lines are being gathered (the reader's own, not a result)."""

    kind: str
    line: int
    doc: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    size: int = 0  # the payload's bytes so far
    refused: str = ""  # why its payload is not kept (past outside_files.LIMITS.file_bytes), or ''


def read_torch_trace(path: str) -> TorchTrace:
    """The log's events (payloads kept for the kinds kx reads), every kind counted, and a
    located Diagnostic for each line that reads as neither an event nor a payload. The
    log is outside data: a regular file only, read line by line within LIMITS (a line,
    the whole log, each payload kept and all of them together), each header's JSON within
    outside_files.LIMITS.json_depth; past a limit, a `refused` diagnostic naming it."""
    events: list[TraceEvent] = []
    kinds: Counter[str] = Counter()
    problems: list[Diagnostic] = []
    unread = 0
    pending: _Pending | None = None
    kept = 0  # payload bytes kept, of outside_files.LIMITS.record_bytes

    def close() -> None:
        nonlocal kept
        if pending is None:
            return
        if pending.refused:
            problems.append(Diagnostic("refused", pending.refused, path, pending.line))
            events.append(TraceEvent(pending.kind, pending.line, pending.doc, None, False))
            return
        text = "\n".join(pending.lines)
        kept += len(text)
        ok = hashlib.md5(text.encode("utf-8")).hexdigest() == pending.doc.get("has_payload")
        if not ok:
            problems.append(
                Diagnostic(
                    "record",
                    f"the payload of its {pending.kind} event does not match its has_payload digest "
                    "(cut short, or changed): not read",
                    path,
                    pending.line,
                )
            )
        events.append(TraceEvent(pending.kind, pending.line, pending.doc, text, ok))

    try:
        f = open_regular(path)
    except RefusedFile as e:
        return TorchTrace(path, (), {}, (Diagnostic("refused", e.why, path),))
    read = 0
    number = 0
    with f:
        while raw := f.readline(outside_files.LIMITS.line_bytes + 1):
            number += 1
            read += len(raw)
            stop = line_problem(len(raw.rstrip(b"\n"))) or inflation_problem(read, read)
            if stop:
                problems.append(Diagnostic("refused", f"line {number}: {stop}", path, number))
                break
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("\t"):
                if pending is not None and not pending.refused:
                    pending.size += len(raw)
                    if (
                        pending.size > outside_files.LIMITS.file_bytes
                        or kept + pending.size > outside_files.LIMITS.record_bytes
                    ):
                        pending.refused = (
                            f"the payload of its {pending.kind} event passes the "
                            f"{size_words(min(outside_files.LIMITS.file_bytes, outside_files.LIMITS.record_bytes))} kx keeps: not read"
                        )
                        pending.lines = []
                    else:
                        pending.lines.append(line[1:])
                continue
            close()
            pending = None
            if not line.strip():
                continue
            m = _HEADER_RE.match(line)
            try:
                doc = loads_json(m.group(1), path) if m else None
            except RefusedFile as e:
                problems.append(Diagnostic("refused", e.why, path, number))
                continue
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                unread += 1
                if len(problems) < MAX_PROBLEMS:
                    problems.append(
                        Diagnostic(
                            "record", "not a TORCH_TRACE event (a damaged line): skipped", path, number
                        )
                    )
                continue
            kind = _kind(doc)
            kinds[kind] += 1
            if "has_payload" in doc and kind in _KEPT_PAYLOADS:
                pending = _Pending(kind, number, doc)
            elif kind == "compilation_metrics":
                events.append(TraceEvent(kind, number, doc))
        close()
    if unread > MAX_PROBLEMS:
        problems.append(Diagnostic("record", f"{unread} lines in all were not TORCH_TRACE events", path))
    return TorchTrace(path, tuple(events), dict(kinds), tuple(problems))


def module_file(trace_path: str, event: TraceEvent) -> str:
    """Where kx keeps an output module the log carries, to compile it and show its lines:
    kx's cache folder, by the payload's digest, under the name the run gave it."""
    recorded = event.doc.get("inductor_output_code", {})
    name = (
        os.path.basename(str(recorded.get("filename") or "output_code.py"))
        if isinstance(recorded, dict)
        else ""
    )
    digest = hashlib.sha256((event.payload or "").encode("utf-8")).hexdigest()[:16]
    folder = cache_dir() / "records" / "torch-trace" / digest
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / (name if name.endswith(".py") else "output_code.py")
    if not file.exists() or file.read_text(encoding="utf-8") != event.payload:
        file.write_text(event.payload or "", encoding="utf-8")
    return str(file)


def read_trace_kernels(
    trace: TorchTrace, trusted: bool = False
) -> tuple[list[CompileResult], list, list[Diagnostic]]:
    """Every output module the log carries, recompiled: (the compiles, their kernels
    labelled recompiled, diagnostics). A module whose payload is cut short is not compiled.
    Not `trusted`: nothing runs, each module's kernels are listed from its text
    (inductor_module.list_module); the module is still kept in kx's cache, to be shown."""
    versions = trace.versions()
    launched = trace.launched()
    results, kernels, diagnostics = [], [], []
    for event in trace.events:
        if event.kind != "inductor_output_code" or not event.payload_ok:
            continue
        try:
            file = module_file(trace.path, event)
        except OSError as e:
            diagnostics.append(
                Diagnostic(
                    "record", f"its output module cannot be kept in kx's cache ({e})", trace.path, event.line
                )
            )
            continue
        recorded = event.doc.get("inductor_output_code")
        run = RecordedRun(
            origin=f"torch-trace line {event.line}",
            record_file=str(recorded.get("filename")) if isinstance(recorded, dict) else None,
            triton=versions.get("triton_version"),
            torch=versions.get("pytorch_version"),
            launched=launched,
            launched_from="the log's triton_kernel_info",
        )
        if not trusted:  # running the module is running the log's code
            found, problems = list_module(file, event.payload or "", run)
            kernels += found
            diagnostics += problems
            continue
        result, found, problems = recompile_module(file, event.payload or "", run)
        if result is not None:
            results.append(result)
        kernels += found
        diagnostics += problems
    if not any(e.kind == "inductor_output_code" for e in trace.events):
        diagnostics.append(
            Diagnostic("record", "the log holds no inductor_output_code: no kernel to read", trace.path)
        )
    return results, kernels, diagnostics
