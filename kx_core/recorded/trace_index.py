"""A tritonparse trace (NDJSON, plain or gzipped), read lazily: an index first, stages on demand.

tritonparse's structured logging writes one JSON object per line: `compilation` events
(payload.metadata: Triton's metadata; payload.file_content: each stage's text by file
name; payload.file_path; payload.python_source: the kernel's Python source and lines),
`launch` events (grid, extracted_args, compilation_metadata.hash) and others. One pass
(`TraceIndex.scan`, a generator that yields each kernel as it is found) keeps, for each
compilation, its line, byte offset and length, name, hash and the few metadata figures a
kernel table shows; it decodes only the `metadata` object of each line, not its stages.
A kernel's stages are read when asked (`TraceIndex.kernel`), from the line's offset
(kx_core.recorded.seekable_lines: checkpoints make a gzipped trace seekable).
Memory: the index and the checkpoints, not the trace.

The trace is outside data (kx_core.base.outside_files): a line is decoded only within
LIMITS.json_depth, the pass stops at LIMITS' line and inflation limits (a `refused`
diagnostic naming the limit, the kernels before it kept), and a cubin the trace names
on this machine is read only where it is one (a regular *.cubin file that starts as ELF).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.base.outside_files import RefusedFile, check_json_depth, loads_json, read_regular
from kx_core.recorded.kernel_of_record import RecordedKernel, as_int, compile_seconds, stage_of_suffix
from kx_core.recorded.seekable_lines import SeekableLines
from kx_core.records.results import Diagnostic, Launch, LaunchArg

# An event's type, near the start of its line.
# Example: {"event_type":"compilation","pid":7525,"stack":[...
_EVENT_TYPE_RE = re.compile(rb'^\s*\{\s*"event_type"\s*:\s*"(\w+)"')
# The key of the compilation's metadata object (not an escaped quote inside a stack frame).
# Example: ..."payload":{"metadata":{"cache_hit":false,"hash":"5364...
_METADATA_KEY_RE = re.compile(rb'(?<!\\)"metadata"\s*:\s*(?=\{)')
_HEAD_BYTES = 512  # where an event's type is looked for
_METADATA_WINDOW = 1 << 16  # bytes decoded for the metadata object before the whole rest
_MAX_DIAGNOSTICS = 20  # damaged lines reported one by one; past this, one line for the rest
# the metadata figures an index entry keeps (what a kernel table shows before stages load)
SUMMARY_FIELDS = (
    "num_warps",
    "num_stages",
    "num_ctas",
    "shared",
    "target",
    "triton_version",
    "arch",
)
PROGRESS_BYTES = 32 << 20  # compressed bytes between two progress reports
# inflated bytes between two reports: a small gzip that inflates hugely still shows progress
PROGRESS_INFLATED_BYTES = 256 << 20
MAX_CUBIN_BYTES = 256 << 20  # a cubin the trace names on this machine, larger than this: not read
ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class TraceEntry:
    """One compilation event: where its line is (1-based line, uncompressed byte offset and
    length) and what the index keeps of it."""

    line: int
    offset: int
    length: int
    name: str
    hash: str
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScanProgress:
    """How far the first pass is: compressed bytes read of the file's size, and the
    uncompressed bytes they made (a gzipped trace's, else the same)."""

    done_bytes: int
    total_bytes: int
    kernels: int
    inflated_bytes: int = 0


@dataclass
class _Launches:
    count: int = 0
    first: Launch | None = None  # the first launch (a launch line is small: read at once)


class TraceIndex:
    """The index of one trace (see the module's docstring). `scan()` builds it; `kernel(entry)`
    reads one kernel's stages; `diagnostics` holds what could not be read, located."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.source = SeekableLines(path)
        self.entries: list[TraceEntry] = []
        self.diagnostics: list[Diagnostic] = []
        self.launches: dict[str, _Launches] = {}
        self.done = False
        self._said = {"record": 0, "refused": 0}  # problems said so far, by kind
        self._unsaid = 0  # past _MAX_DIAGNOSTICS of their kind: one line says how many
        self._events = 0

    # ------------------------------------------------------------ the first pass

    def scan(self) -> Iterator[TraceEntry | ScanProgress]:
        """Index the trace, yielding each kernel as it is found and a ScanProgress now and
        then; `done` is set at the end. A damaged line is a diagnostic, and the pass goes on."""
        total = os.path.getsize(self.path)
        next_report, next_inflated = PROGRESS_BYTES, PROGRESS_INFLATED_BYTES
        last: tuple[int, int, bytes] | None = None
        for number, offset, line in self.source.lines():
            last = (number, offset, line)
            entry = self._index_line(number, offset, line)
            if entry is not None:
                self.entries.append(entry)
                yield entry
            read, inflated = self.source.compressed_read, self.source.inflated_read
            if read >= next_report or inflated >= next_inflated:
                next_report, next_inflated = read + PROGRESS_BYTES, inflated + PROGRESS_INFLATED_BYTES
                yield ScanProgress(read, total, len(self.entries), inflated)
        self._check_last_line(last)
        if self.source.problem:
            self._diagnose(
                f"{self.source.problem}; {len(self.entries)} kernel(s) read before it",
                None,
                self.source.problem_at,
                compressed=True,
                kind="refused" if self.source.refused else "record",
            )
        if not self._events and not self.source.problem:
            self._diagnose("no tritonparse event in it: not a tritonparse trace", None, None)
        if self._unsaid:
            self.diagnostics.append(
                Diagnostic("record", f"{self._unsaid} more damaged or refused line(s)", file=self.path)
            )
        self.done = True
        yield ScanProgress(total, total, len(self.entries), self.source.inflated_read)

    def scan_all(self) -> TraceIndex:
        """The whole first pass at once (the command line's way)."""
        for _ in self.scan():
            pass
        return self

    def _diagnose(
        self,
        message: str,
        line: int | None,
        offset: int | None,
        compressed: bool = False,
        kind: str = "record",
    ) -> None:
        # refusals are counted apart: twenty damaged lines before one never hide it
        self._said[kind] += 1
        if self._said[kind] > _MAX_DIAGNOSTICS:
            self._unsaid += 1
            return
        where = f" (at {'compressed ' if compressed else ''}byte {offset:,})" if offset is not None else ""
        self.diagnostics.append(Diagnostic(kind, message + where, file=self.path, line=line))

    def _index_line(self, number: int, offset: int, line: bytes) -> TraceEntry | None:
        if not line.strip():
            return None
        m = _EVENT_TYPE_RE.match(line[:_HEAD_BYTES])
        if m is None:  # another writer's key order, or not an event: the whole line decides
            doc = self._whole(number, offset, line)
            if doc is None:
                return None
            kind = doc.get("event_type")
            if not isinstance(kind, str):
                self._diagnose("a JSON line that is not a tritonparse event (no event_type)", number, offset)
                return None
        else:
            kind, doc = m.group(1).decode(), None
        self._events += 1
        if kind == "launch":
            self._index_launch(number, offset, line, doc)
            return None
        if kind != "compilation":
            return None  # tritonparse's other events (autotune, ir_analysis, ...): not kernels
        metadata = (
            _dict(_dict(doc.get("payload")).get("metadata")) if doc is not None else self._metadata(line)
        )
        if not isinstance(metadata, dict) or not metadata.get("hash"):
            if doc is None and (doc := self._whole(number, offset, line)) is None:
                return None
            self._diagnose(
                "a compilation event without payload.metadata.hash (a tritonparse version kx does not know)",
                number,
                offset,
            )
            return None
        name = metadata.get("name") or "?"
        summary = {k: metadata[k] for k in SUMMARY_FIELDS if k in metadata}
        # the compile's seconds, not Triton's per-stage times: one float per kernel of the
        # index, where the times' lists took a third of a 1 GB trace's index memory
        summary["compile_s"] = compile_seconds(metadata.get("times"))
        return TraceEntry(number, offset, len(line), str(name), str(metadata["hash"]), summary)

    def _metadata(self, line: bytes) -> Any:
        """The compilation's metadata object, decoded alone (the stages after it are not)."""
        m = _METADATA_KEY_RE.search(line)
        if m is None:
            return None
        decoder = json.JSONDecoder()
        for window in (line[m.end() : m.end() + _METADATA_WINDOW], line[m.end() :]):
            try:
                # what raw_decode may recurse into is in the window: its depth first
                check_json_depth(window, self.path)
                value, _ = decoder.raw_decode(window.decode("utf-8", errors="ignore"))
                return value
            except (json.JSONDecodeError, RefusedFile, RecursionError):
                continue  # a too-deep metadata object: the whole line decides (and is refused)
        return None

    def _whole(self, number: int, offset: int, line: bytes) -> dict | None:
        try:
            doc = loads_json(line, self.path)
        except RefusedFile as e:
            self._diagnose(e.why, number, offset, kind="refused")
            return None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            self._diagnose(f"not JSON ({e.msg if hasattr(e, 'msg') else e})", number, offset)
            return None
        if not isinstance(doc, dict):
            self._diagnose(f"a JSON {type(doc).__name__}, not a tritonparse event", number, offset)
            return None
        return doc

    def _index_launch(self, number: int, offset: int, line: bytes, doc: dict | None) -> None:
        doc = doc if doc is not None else self._whole(number, offset, line)
        if doc is None:
            return
        kernel_hash = _dict(doc.get("compilation_metadata")).get("hash")
        if not kernel_hash:
            return
        launches = self.launches.setdefault(str(kernel_hash), _Launches())
        launches.count += 1
        if launches.first is None:
            try:
                launches.first = _launch_of(doc, 1)
            except (ValueError, TypeError, AttributeError):
                self._diagnose("a launch event kx cannot read (its grid or arguments)", number, offset)

    def _check_last_line(self, last: tuple[int, int, bytes] | None) -> None:
        """A trace cut off mid-record ends in a line the head check accepted but that is
        not whole JSON: its kernel is dropped and said."""
        if last is None or not self.entries or self.entries[-1].line != last[0]:
            return
        try:
            loads_json(last[2], self.path)
        except RefusedFile:
            return  # whole, but too deep: reading its kernel says so (TraceIndex.event)
        except (json.JSONDecodeError, UnicodeDecodeError):
            entry = self.entries.pop()
            self._diagnose(
                f"the trace ends inside the compilation of {entry.name} (a truncated record)",
                last[0],
                last[1],
            )

    # ------------------------------------------------------------ on demand

    def event(self, entry: TraceEntry) -> dict:
        """The whole compilation event of an entry (read again from the file); RefusedFile
        for a line nested past LIMITS.json_depth."""
        return loads_json(self.source.read(entry.offset, entry.length), f"{self.path}:{entry.line}")

    def kernel(self, entry: TraceEntry) -> RecordedKernel:
        """One kernel with its stages, read from its line now."""
        payload = _dict(self.event(entry).get("payload"))
        metadata = _dict(payload.get("metadata"))
        contents = _dict(payload.get("file_content"))
        paths = _dict(payload.get("file_path"))
        stages, notes = {}, []
        for name, text in contents.items():
            stage = stage_of_suffix(name.rsplit(".", 1)[-1])
            if stage is None or not isinstance(text, str):
                continue
            if text.startswith("<") and text.endswith(">") and "\n" not in text:
                # tritonparse's placeholder for a stage it could not read:
                # Example: "<file too large: 104857601 bytes>"
                notes.append(f"{stage}: the trace holds {text} instead of its text")
                continue
            stages[stage] = text
        cubin_path = next((p for n, p in paths.items() if n.endswith(".cubin") and isinstance(p, str)), None)
        cubin = _cubin_at(cubin_path) if cubin_path else None
        if cubin is not None:
            notes.append(f"cubin read from {cubin_path}, where the run wrote it")
        python = _dict(payload.get("python_source"))
        file = python.get("file_path")
        line = python.get("start_line")
        return RecordedKernel(
            name=entry.name,
            origin=f"tritonparse line {entry.line}",
            stages=stages,
            cubin=cubin,
            metadata=metadata,
            source_file=file if isinstance(file, str) else None,
            source_line=line if isinstance(line, int) else None,
            launch=self.launch(entry.hash),
            notes=tuple(notes),
        )

    def python_source(self, entry: TraceEntry) -> tuple[str, str] | None:
        """(file, text) of the Python source the event carries, its lines where they were
        in the file (blank lines before `start_line`), or None."""
        python = _dict(_dict(self.event(entry).get("payload")).get("python_source"))
        code, file = python.get("code"), python.get("file_path")
        if not isinstance(code, str) or not isinstance(file, str):
            return None
        start = python.get("start_line") if isinstance(python.get("start_line"), int) else 1
        return file, "\n" * max(start - 1, 0) + code

    def launch(self, kernel_hash: str) -> Launch | None:
        """The first launch of the kernel with this hash, with how many the trace holds."""
        launches = self.launches.get(kernel_hash)
        if launches is None or launches.first is None:
            return None
        return replace(launches.first, count=launches.count)


def _cubin_at(path: str) -> bytes | None:
    """The cubin a trace names where it is on this machine (the run's own), or None: the
    trace's path is only the sender's word, so only a regular file named *.cubin that
    starts as an ELF file is read (never ~/secret.txt, a FIFO or /dev/zero)."""
    if not path.endswith(".cubin") or not os.path.isfile(path):
        return None
    try:
        data = read_regular(path, MAX_CUBIN_BYTES)
    except RefusedFile:
        return None
    return data if data.startswith(ELF_MAGIC) else None


def _dict(value: Any) -> dict:
    """A record's object field, or {} where it holds something else (another shape)."""
    return value if isinstance(value, dict) else {}


def _launch_of(doc: dict, count: int) -> Launch:
    """A tritonparse launch event as kx's Launch (grid, arguments, warps, stages)."""
    grid = tuple(as_int(g, 1) for g in (list(doc.get("grid") or ()) + [1, 1, 1])[:3])
    md = _dict(doc.get("compilation_metadata"))
    args, constexprs = [], {}
    for name, info in _dict(doc.get("extracted_args")).items():
        info = info if isinstance(info, dict) else {"value": info}
        kind = str(info.get("type", "other"))
        if kind == "tensor":
            shape = info.get("shape")
            strides = info.get("stride")
            args.append(
                LaunchArg(
                    name,
                    "tensor",
                    dtype=str(info.get("dtype", "")).replace("torch.", "") or None,
                    shape=tuple(shape) if isinstance(shape, list) else None,
                    strides=tuple(strides) if isinstance(strides, list) else None,
                )
            )
        else:
            args.append(
                LaunchArg(
                    name, kind if kind in ("int", "float", "bool") else "other", value=info.get("value")
                )
            )
    return Launch(
        grid=grid,  # type: ignore[arg-type]
        args=tuple(args),
        constexprs=constexprs,
        num_warps=as_int(md.get("num_warps"), 0),
        num_stages=as_int(md.get("num_stages"), 0),
        count=count,
    )
