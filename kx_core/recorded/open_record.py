"""Open what a real run recorded: which kind of record a path is (by its content), and its
kernels as a CompileResult like a capture's.

    record_kind(path)        -> one of RECORD_KINDS, or None
    opened = open_record(path)               # every kernel with its stages
    opened = open_record(path, stages=False) # a trace's index only: stages via opened.load(i)
    opened = open_record(path, trusted=True) # an Inductor record's module may run

Nothing in a record runs, with one exception that needs the user's word: an Inductor
debug folder or a TORCH_TRACE log holds Inductor's output module (Python source, no IR),
and its kernels' stages can only be kx's capture of that module, which runs it
(kx_core.recorded.inductor_module), each labelled recompiled. That runs only with
`trusted` (`kx open --trust`, a folder the app's user trusts); without it the module's
kernels are listed from its text, without stages, `code_not_run` is set and a
`not-captured` diagnostic says why (exit status 4, incomplete). A Proton profile holds no kernels: its times and samples are
`OpenedRecord.profile`, joined to a build's kernels by name (proton_profile.join_profile).
What could not be read is a `record` Diagnostic located at its file (and line, for a
trace), beside whatever could be read; the result's exit status is then 1.

A record is outside data: every file of it is read through kx_core.base.outside_files
(regular files inside the record, within its limits). What kx refuses to read is a
`refused` Diagnostic naming the file and the limit (exit status 2); a path that is no
folder or regular file (a FIFO, a device) is refused whole (RefusedRecord). The words a
record holds are shown as data: a Triton version that is not one is shown quoted.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from kx_core.base.outside_files import (
    RefusedFile,
    read_head,
    read_regular,
    version_word,
)
from kx_core.base.textfile import describe_mode
from kx_core.bench.profile import ProfileResult
from kx_core.recorded import inductor_debug, proton_profile, torch_trace
from kx_core.recorded.kernel_of_record import as_int, kernel_of_record, target_of
from kx_core.recorded.seekable_lines import GZIP_MAGIC, ZSTD_MAGIC
from kx_core.recorded.trace_index import ScanProgress, TraceEntry, TraceIndex
from kx_core.recorded.triton_folders import is_cache_folder, kernel_folders, read_folder
from kx_core.records.build import Build
from kx_core.records.results import CompiledKernel, CompileResult, Diagnostic, KernelMetadata

RECORD_KINDS = ("triton-cache", "triton-dump", "tritonparse", "inductor-debug", "torch-trace", "proton")
# what each kind is called in a message or a window title
RECORD_NAMES = {
    "triton-cache": "Triton cache folder",
    "triton-dump": "Triton dump folder (TRITON_KERNEL_DUMP)",
    "tritonparse": "tritonparse trace",
    "inductor-debug": "Inductor debug folder (TORCH_COMPILE_DEBUG)",
    "torch-trace": "TORCH_TRACE log",
    "proton": "Proton profile",
}
# names a trace file goes by (the File ▸ Open… filter); content decides, not these
TRACE_SUFFIXES = (".ndjson", ".ndjson.gz", ".json.gz", ".bin.ndjson", ".log", ".log.gz")
PROFILE_SUFFIXES = (".hatchet", ".hatchet.json")


# a kernel's source file on this machine, larger than this: not read (kx's own kernel-file cap)
MAX_SOURCE_BYTES = 2 << 20


class NotARecord(ValueError):
    """The path is none of RECORD_KINDS (the message says what it is instead)."""


class RefusedRecord(NotARecord):
    """A path kx does not read at all (a FIFO, a device, a folder past its limits): the
    message names it and why."""


def record_kind(path: str) -> str | None:
    """The kind of record at `path`, read from its content (a folder's files, a file's
    first line), or None (never blocks: a FIFO is None)."""
    try:
        return _kind(path)
    except RefusedFile:
        return None


def _checked_kind(path: str) -> str | None:
    """record_kind, or RefusedRecord where the path itself is refused."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise RefusedRecord(f"{path}: {describe_mode(mode)}, not a regular file or folder: not read")
    try:
        return _kind(path)
    except RefusedFile as e:
        raise RefusedRecord(str(e)) from e


def _kind(path: str) -> str | None:
    if os.path.isdir(path):
        if kernel_folders(path):
            return "triton-cache" if is_cache_folder(path) else "triton-dump"
        return "inductor-debug" if inductor_debug.output_codes(path) else None
    if _first_event(path):
        return "tritonparse"
    if torch_trace.is_torch_trace(path):
        return "torch-trace"
    return "proton" if proton_profile.is_hatchet(path) else None


def _first_event(path: str) -> bool:
    """The file's first non-blank line is a JSON object with an event_type (plain or gzip)."""
    head = read_head(path, 1 << 16)  # b'' for a FIFO or a device: never waited on
    magic = head[:4]
    if magic.startswith(ZSTD_MAGIC):
        return True  # tritonparse's zstd traces: said to be so when opened
    try:
        if magic.startswith(GZIP_MAGIC):
            # a prefix's inflation, not gzip.open's: a truncated trace is still one
            head = zlib.decompressobj(31).decompress(head, 1 << 16)
    except zlib.error:
        return False
    for line in head.splitlines():
        if line.strip():
            return line.lstrip().startswith(b"{") and b'"event_type"' in line[:4096]
    return False


@dataclass(frozen=True)
class OpenedRecord:
    """A record's kernels as a CompileResult. `sources`: file -> the text the record
    carries for it (a trace's Python source, its lines in place), for files this machine
    does not have. `index`/`entries`: a trace's index, for stages read on demand."""

    path: str
    kind: str
    result: CompileResult
    sources: dict[str, str] = field(default_factory=dict)
    index: TraceIndex | None = field(default=None, compare=False, repr=False)
    complete: bool = True  # False: the first kernels of a trace still being indexed
    # a Proton profile's kernels, times and samples (its `result` has no kernels)
    profile: ProfileResult | None = None
    # what the record holds beside its kernels: a TORCH_TRACE log's events by kind
    contents: dict[str, int] = field(default_factory=dict)
    # an Inductor module the record holds was not run (not trusted): its kernels are
    # listed from its text, with no stages
    code_not_run: bool = False

    def source_text(self, file: str | None) -> str | None:
        """The text of a kernel's source file: this machine's file, else the record's copy."""
        local = self.local_source(file)
        return local if local is not None or not file else self.sources.get(file)

    def local_source(self, file: str | None) -> str | None:
        """This machine's file of that name, where it is one. The name is the record's
        word: the file is read only where it is a kernel's (a regular .py file within
        MAX_SOURCE_BYTES), never ~/secret.txt; None where the text can only be the
        record's copy (which the app shows as a document with no file: item 3)."""
        if not file or not file.endswith(".py") or not os.path.isfile(file):
            return None
        try:
            return read_regular(file, MAX_SOURCE_BYTES).decode("utf-8")
        except (RefusedFile, UnicodeDecodeError):
            return None

    def load(self, i: int) -> CompiledKernel:
        """Kernel `i` with its stages (a trace's are read now; a folder's already are)."""
        kernel = self.result.kernels[i]
        if self.index is None or kernel.stages:
            return kernel
        return _trace_kernel(self.index, self.index.entries[i])[0]


def record_notes(kernel: CompiledKernel) -> list[str]:
    """What a recorded kernel's row must say: the stages kx derived, what the record
    lacked (its notes), stages not read yet. Empty for a kernel that is no record's."""
    extra = kernel.metadata.extra if kernel.metadata else {}
    if not extra.get("record"):
        return []
    notes = []
    if extra.get("recompiled"):
        notes.append(str(extra["recompiled"]))
    if extra.get("launched"):
        notes.append(str(extra["launched"]))
    if extra.get("derived_stages"):
        notes.append(f"{', '.join(extra['derived_stages'])}: derived by kx from the cubin")
    notes += [str(n) for n in extra.get("notes", ())]
    if extra.get("stages_not_read"):
        notes.append("its stages are read from the trace when it is selected")
    return notes


def open_record(
    path: str,
    stages: bool = True,
    progress: Callable[[ScanProgress], None] | None = None,
    trusted: bool = False,
) -> OpenedRecord:
    """Every kernel of the record at `path` (see the module's docstring). `trusted`: the
    user trusts the record's code (an Inductor module may run). Raises NotARecord
    (RefusedRecord: a path kx does not read at all)."""
    kind = _checked_kind(path)
    if kind is None:
        raise NotARecord(
            f"{path}: not a Triton cache or dump folder, a tritonparse trace, an Inductor debug folder, "
            "a TORCH_TRACE log nor a Proton profile"
        )
    if kind in RUNS_CODE:
        return RUNS_CODE[kind](path, trusted)
    if kind == "proton":
        return _open_proton(path)
    if kind == "tritonparse":
        index = _trace_index(path)
        for step in index.scan():
            if progress is not None and isinstance(step, ScanProgress):
                progress(step)
        return trace_record(index, stages)
    kernels, diagnostics = [], []
    for found in read_folder(path, kind):
        if isinstance(found, Diagnostic):
            diagnostics.append(found)
        else:
            kernels.append(kernel_of_record(found))
    kernels.sort(key=lambda k: (k.name, k.metadata.hash or "" if k.metadata else ""))
    if not kernels:
        diagnostics.append(
            Diagnostic("record", f"no kernel could be read from this {RECORD_NAMES[kind]}", path)
        )
    return OpenedRecord(path, kind, _result(path, kind, kernels, diagnostics))


def _recompiled_record(path: str, kind: str, results: list, kernels: list, diagnostics: list) -> OpenedRecord:
    """A record whose kernels kx compiled from its output modules: the build is the
    module's compile where there is one module (its content, the Triton that compiled it)."""
    if not kernels and not any(d.kind == "record" for d in diagnostics):
        diagnostics.append(
            Diagnostic("record", f"no kernel could be read from this {RECORD_NAMES[kind]}", path)
        )
    result = _result(path, kind, kernels, diagnostics)
    if results:
        version = results[0].triton_version
        build = results[0].build if len(results) == 1 else replace(result.build, triton=version)
        result = replace(result, triton_version=version, build=build, target=results[0].target)
    return OpenedRecord(path, kind, result)


def _open_inductor_debug(path: str, trusted: bool) -> OpenedRecord:
    results, kernels, diagnostics = inductor_debug.read_debug_folder(path, trusted)
    opened = _recompiled_record(path, "inductor-debug", results, kernels, diagnostics)
    return replace(opened, code_not_run=not trusted and bool(kernels))


def _open_torch_trace(path: str, trusted: bool) -> OpenedRecord:
    trace = torch_trace.read_torch_trace(path)
    results, kernels, diagnostics = torch_trace.read_trace_kernels(trace, trusted)
    opened = _recompiled_record(path, "torch-trace", results, kernels, [*trace.diagnostics, *diagnostics])
    return replace(opened, contents=trace.kinds, code_not_run=not trusted and bool(kernels))


def _open_proton(path: str) -> OpenedRecord:
    profile = proton_profile.read_profile(path)
    diagnostics = list(profile.diagnostics)
    if not profile.kernels and not diagnostics:
        diagnostics.append(Diagnostic("record", "a Proton profile without kernels", path))
    return OpenedRecord(path, "proton", _result(path, "proton", [], diagnostics), profile=profile)


# the kinds whose kernels kx can only compile by running the module they hold: their
# reader is told whether the user trusts the record (else it lists, and runs nothing)
RUNS_CODE: dict[str, Callable[[str, bool], OpenedRecord]] = {
    "inductor-debug": _open_inductor_debug,
    "torch-trace": _open_torch_trace,
}


def iter_open(path: str, trusted: bool = False) -> Iterator[ScanProgress | OpenedRecord]:
    """A record opened as it is read (the app's background job runs this): a folder's
    OpenedRecord at once; a trace's OpenedRecord of its first kernel, stages read, as soon
    as that line is indexed, then progress, then the whole index (stages of the others
    read on demand: OpenedRecord.load). `trusted` as for open_record. Raises NotARecord."""
    kind = _checked_kind(path)
    if kind != "tritonparse":
        yield open_record(path, trusted=trusted)
        return
    index = _trace_index(path)
    first: CompiledKernel | None = None
    first_entry: TraceEntry | None = None
    for step in index.scan():
        if isinstance(step, TraceEntry):
            if first is None:
                first_entry = step
                first, _, source = _trace_kernel(index, step)
                sources = {source[0]: source[1]} if source and not os.path.exists(source[0]) else {}
                result = _result(path, kind, [first], [])
                yield OpenedRecord(path, kind, result, sources, index, complete=False)
            continue
        yield step
    whole = trace_record(index, stages=False)
    # the first kernel's stages (and its source's text) are read already, where the index
    # kept its line (a trace cut inside it drops it: TraceIndex._check_last_line)
    if first is not None and index.entries and index.entries[0] is first_entry:
        # read before the launch events after its line were indexed, it had no launch: the
        # whole index's (issue 54: a trace's first kernel showed grid "-")
        first = replace(first, launch=whole.result.kernels[0].launch)
        kernels = (first, *whole.result.kernels[1:])
        whole = replace(whole, result=replace(whole.result, kernels=kernels), sources=sources | whole.sources)
    yield whole


def _trace_index(path: str) -> TraceIndex:
    try:
        return TraceIndex(path)
    except RefusedFile as e:  # replaced by a FIFO since its kind was read
        raise RefusedRecord(str(e)) from e


def iter_trace(path: str) -> Iterator[ScanProgress | CompiledKernel | OpenedRecord]:
    """A trace's first kernel with its stages as soon as its line is indexed, then
    progress, then the whole OpenedRecord (index-level kernels)."""
    for step in iter_open(path):
        if isinstance(step, OpenedRecord) and not step.complete:
            yield step.result.kernels[0]
        else:
            yield step


def trace_record(index: TraceIndex, stages: bool) -> OpenedRecord:
    """The OpenedRecord of a scanned trace: with `stages`, every kernel read now."""
    kernels, diagnostics, sources = [], list(index.diagnostics), {}
    for entry in index.entries:
        if stages:
            kernel, problem, source = _trace_kernel(index, entry)
            if problem:
                diagnostics.append(problem)
            if source and not os.path.exists(source[0]):
                sources.setdefault(*source)
        else:
            kernel = _index_kernel(index, entry)
        kernels.append(kernel)
    if not kernels and not diagnostics:
        diagnostics.append(Diagnostic("record", "a tritonparse trace without compilation events", index.path))
    result = _result(index.path, "tritonparse", kernels, diagnostics)
    return OpenedRecord(index.path, "tritonparse", result, sources, index)


def _trace_kernel(
    index: TraceIndex, entry: TraceEntry
) -> tuple[CompiledKernel, Diagnostic | None, tuple[str, str] | None]:
    """One kernel read from its line; a line that does not read is a located diagnostic
    and the index's kernel (metadata, no stages)."""
    try:
        return kernel_of_record(index.kernel(entry)), None, index.python_source(entry)
    except RefusedFile as e:
        problem = Diagnostic("refused", f"the compilation of {entry.name}: {e.why}", index.path, entry.line)
        return _index_kernel(index, entry, str(problem)), problem, None
    except (ValueError, UnicodeDecodeError, AttributeError, TypeError) as e:
        problem = Diagnostic(
            "record",
            f"the compilation of {entry.name} does not read ({type(e).__name__}: {e})",
            index.path,
            entry.line,
        )
        return _index_kernel(index, entry, str(problem)), problem, None


def _index_kernel(index: TraceIndex, entry: TraceEntry, message: str | None = None) -> CompiledKernel:
    """A kernel as the index knows it: name, hash, the metadata figures; no stages yet."""
    s = entry.summary
    target = target_of(s, {})
    metadata = KernelMetadata(
        num_warps=as_int(s.get("num_warps"), 0),
        num_stages=as_int(s.get("num_stages"), 0),
        num_ctas=as_int(s.get("num_ctas"), 1),
        shared=as_int(s.get("shared"), 0),
        hash=entry.hash,
        extra={"record": f"tritonparse line {entry.line}", "stages_not_read": True}
        | ({"triton_version": s["triton_version"]} if "triton_version" in s else {}),
    )
    status = "failed" if message else "compiled"
    launch = index.launch(entry.hash)
    return CompiledKernel(
        entry.name,
        status,
        target,
        launch=launch,
        metadata=metadata,
        message=message,
        compile_time_s=s.get("compile_s"),
    )


def _result(
    path: str, kind: str, kernels: list[CompiledKernel], diagnostics: list[Diagnostic]
) -> CompileResult:
    versions = [
        k.metadata.extra["triton_version"]
        for k in kernels
        if k.metadata and "triton_version" in k.metadata.extra
    ]
    # a dump folder names no version; a version that is not one is the sender's text: quoted
    version = (
        (version_word(versions[0]) or f"not a version ({str(versions[0])[:60]!r})")
        if versions
        else "not recorded"
    )
    target = kernels[0].target if kernels else target_of({}, {})
    # the build a record's kernels are of: the record itself (its kernels' hashes stand
    # for its content: a cache folder has no one file to hash)
    digest = hashlib.sha256(
        json.dumps(sorted(k.metadata.hash or k.name for k in kernels if k.metadata)).encode()
    )
    build = Build(
        file=os.path.abspath(path),
        content=digest.hexdigest()[:16],
        target=target.spec,
        gpu=f"recorded ({RECORD_NAMES[kind]})",
        triton=version,
    )
    return CompileResult(
        file=os.path.abspath(path),
        target=target,
        triton_version=version,
        kernels=tuple(kernels),
        diagnostics=tuple(diagnostics),
        build=build,
        timings={},
    )


def with_record_stages(opened: OpenedRecord, only: str | None = None) -> OpenedRecord:
    """Every kernel's stages read (a trace opened index-first), or those of the kernels
    named `only`; a kernel whose line does not read (or is refused) adds its diagnostic."""
    if opened.index is None:
        return opened
    kernels, problems = [], []
    for i, kernel in enumerate(opened.result.kernels):
        if kernel.stages or (only is not None and kernel.name != only):
            kernels.append(kernel)
            continue
        read, problem, _ = _trace_kernel(opened.index, opened.index.entries[i])
        kernels.append(read)
        if problem is not None and problem not in opened.result.diagnostics:
            problems.append(problem)
    diagnostics = (*opened.result.diagnostics, *problems)
    return replace(opened, result=replace(opened.result, kernels=tuple(kernels), diagnostics=diagnostics))
