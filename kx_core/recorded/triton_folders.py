"""Triton's own folders of compiled kernels: a cache folder (TRITON_CACHE_DIR,
~/.triton/cache) and a dump folder (TRITON_KERNEL_DUMP=1, TRITON_DUMP_DIR).

Both hold one folder per kernel, named by a hash, with a file per stage named
`<kernel>.<stage>`. A cache folder's kernel folder also has Triton's metadata
(`<kernel>.json`: warps, stages, shared memory, target, version) and the group file
`__grp__<kernel>.json` that lists the kernel's files; its TTIR before any pass is
`<kernel>.source`. A dump folder has no metadata: warps and target come from the TTGIR's
module attributes, and its `.sass` is Triton's own disassembly. Folders without kernel
files (the launcher modules a cache also holds: `cuda_utils.so`, `__triton_launcher.so`)
are not kernels and are passed over.

The group file names its files by absolute paths on the machine that wrote it; a copied
cache is read by file name inside the kernel's folder, never through those paths. Every
file is read through kx_core.base.outside_files.RecordFiles: regular files inside the
folder only (a stage linked to /dev/zero or ~/secret.txt, a FIFO: a `refused`
diagnostic), each and all together within its limits.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from kx_core.base.outside_files import RecordFiles, RefusedFile, loads_json
from kx_core.recorded.kernel_of_record import RecordedKernel, stage_of_suffix
from kx_core.records.results import Diagnostic

GROUP_PREFIX = "__grp__"
BINARY_SUFFIXES = ("cubin", "hsaco")
MAX_STAGE_BYTES = 256 << 20  # a stage file larger than this is reported, not read


def kernel_folders(path: str, files: RecordFiles | None = None) -> list[str]:
    """The folders of `path` that hold kernel files: `path` itself (one kernel's folder
    given directly) or its subfolders inside it, sorted. RefusedFile: a folder past
    LIMITS.folder_entries."""
    files = files or RecordFiles(path)
    if _has_kernel_files(path, files):
        return [path]
    return [s for s in files.subfolders(path) if _has_kernel_files(s, files)]


def _has_kernel_files(folder: str, files: RecordFiles) -> bool:
    names = files.names(folder)
    return any(_suffix(n) in ("ttir", "ttgir", "json", *BINARY_SUFFIXES) for n in names) and any(
        stage_of_suffix(_suffix(n)) or _suffix(n) in BINARY_SUFFIXES for n in names
    )


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ""


def is_cache_folder(path: str, files: RecordFiles | None = None) -> bool:
    """A kernel folder of it has a group file that reads as one (`{"child_paths": ...}`)."""
    files = files or RecordFiles(path)
    for folder in kernel_folders(path, files)[:8]:
        for name in files.names(folder):
            if name.startswith(GROUP_PREFIX) and name.endswith(".json"):
                try:
                    doc = loads_json(files.read_bytes(os.path.join(folder, name), MAX_STAGE_BYTES), path)
                    return isinstance(doc.get("child_paths"), dict)
                except (ValueError, AttributeError):  # RefusedFile is one
                    continue
    return False


def read_folder(path: str, kind: str) -> Iterator[RecordedKernel | Diagnostic]:
    """Every kernel of a cache or dump folder (`kind`: 'triton-cache', 'triton-dump'), and
    a Diagnostic, located at its file, for each file that could not be read (`refused`
    where kx would not read it: outside_files)."""
    files = RecordFiles(path)
    try:
        folders = kernel_folders(path, files)
    except RefusedFile as e:
        yield Diagnostic("refused", e.why, file=e.path)
        return
    for folder in folders:
        yield from _read_kernel_folder(folder, kind, files)


def _kernel_names(folder: str, names: list[str], kind: str) -> dict[str, list[str]]:
    """kernel name -> its file names. A cache folder's group files say which files are a
    kernel's; otherwise (a dump folder, a cache without group files) the files' stems."""
    groups: dict[str, list[str]] = {}
    if kind == "triton-cache":
        for name in names:
            if name.startswith(GROUP_PREFIX) and name.endswith(".json"):
                kernel = name[len(GROUP_PREFIX) : -len(".json")]
                groups[kernel] = []  # filled below from the group's file list
    if not groups:
        for name in names:
            stem, suffix = name.rsplit(".", 1) if "." in name else (name, "")
            if stage_of_suffix(suffix) or suffix in BINARY_SUFFIXES:
                groups.setdefault(stem, [])
    for kernel in groups:
        groups[kernel] = [n for n in names if n.rsplit(".", 1)[0] == kernel]
    return groups


def _read_kernel_folder(folder: str, kind: str, files: RecordFiles) -> Iterator[RecordedKernel | Diagnostic]:
    names = files.names(folder)
    for kernel, kernel_files in _kernel_names(folder, names, kind).items():
        stages: dict[str, str] = {}
        cubin = None
        metadata: dict = {}
        problems = []
        group = os.path.join(folder, f"{GROUP_PREFIX}{kernel}.json")
        if os.path.lexists(group):
            try:
                listed, problem = _group_files(group, files)
            except RefusedFile as e:
                listed, problem = [], None
                yield Diagnostic("refused", e.why, file=group)
            if problem:
                yield Diagnostic("record", problem, file=group)
            missing = sorted(n for n in listed if n not in names)
            if missing:
                yield Diagnostic(
                    "record",
                    f"its group file lists {', '.join(missing)}, which the folder does not hold "
                    "(a cache copied in part, or a compile that stopped)",
                    file=group,
                )
        for name in kernel_files:
            file = os.path.join(folder, name)
            suffix = _suffix(name)
            try:
                if suffix in BINARY_SUFFIXES:
                    if suffix == "cubin":
                        cubin = files.read_bytes(file, MAX_STAGE_BYTES)
                elif suffix == "json" and not name.startswith(GROUP_PREFIX):
                    metadata, problem = _metadata(file, files)
                    if problem:
                        problems.append(Diagnostic("record", problem, file=file))
                elif stage := stage_of_suffix(suffix):
                    stages[stage] = files.read_text(file, MAX_STAGE_BYTES)
            except RefusedFile as e:
                problems.append(Diagnostic("refused", e.why, file=file))
            except (OSError, UnicodeDecodeError) as e:
                problems.append(Diagnostic("record", f"cannot be read ({e})", file=file))
        yield from problems
        if not stages and cubin is None:
            continue
        notes = () if metadata or kind == "triton-dump" else ("no Triton metadata (<kernel>.json) beside it",)
        if "shared" not in metadata and cubin is not None:
            # two notions: Triton's `shared` (a cache's metadata) is the dynamic shared
            # memory its launch asks for (16 B for softmax_rows); the cubin's is the static
            # .nv.shared section, on sm_90 ptxas's 1 KB reserved per CTA once a kernel
            # uses shared memory (1024 B there), not the kernel's own data
            notes += (
                "shared memory: the cubin's static size (0 for a kernel that uses none; on sm_90+ a "
                "kernel that uses some shows the 1 KB ptxas reserves per block), not Triton's dynamic "
                "shared memory, which this folder does not hold",
            )
        yield RecordedKernel(
            name=str(metadata.get("name") or kernel),
            origin=f"{kind} {os.path.basename(folder)}",
            stages=stages,
            cubin=cubin,
            metadata=metadata,
            notes=notes,
        )


def _group_files(group: str, files: RecordFiles) -> tuple[list[str], str | None]:
    try:
        doc = loads_json(files.read_bytes(group, MAX_STAGE_BYTES), group)
        paths = doc["child_paths"]
        return [os.path.basename(str(p)) for p in paths.values()], None
    except RefusedFile:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return [], f"not a Triton group file ({type(e).__name__}: {e})"


# Fields a Triton metadata file must have for kx to read it as one (3.5 to 3.9 write all).
_REQUIRED_METADATA = ("hash", "target", "num_warps", "name")


def _metadata(file: str, files: RecordFiles) -> tuple[dict, str | None]:
    """Triton's metadata of a kernel, and what is wrong with it ('' fields kx needs are
    missing: a Triton version that writes another shape). RefusedFile: not read at all."""
    data = files.read_bytes(file, MAX_STAGE_BYTES)
    try:
        doc = loads_json(data, file)
    except RefusedFile:
        raise
    except ValueError as e:
        return {}, f"not JSON ({e}): a truncated or damaged metadata file"
    if not isinstance(doc, dict):
        return {}, f"not Triton metadata (a JSON {type(doc).__name__})"
    lacking = [k for k in _REQUIRED_METADATA if k not in doc]
    if lacking:
        version = doc.get("triton_version", "an unknown version")
        return (
            doc,
            f"Triton metadata without {', '.join(lacking)} (written by Triton {version}?): read in part",
        )
    return doc, None
