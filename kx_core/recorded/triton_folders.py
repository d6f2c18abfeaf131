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
cache is read by file name inside the kernel's folder, never through those paths.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from kx_core.recorded.kernel_of_record import RecordedKernel, stage_of_suffix
from kx_core.records.results import Diagnostic

GROUP_PREFIX = "__grp__"
BINARY_SUFFIXES = ("cubin", "hsaco")
MAX_STAGE_BYTES = 256 << 20  # a stage file larger than this is reported, not read


def kernel_folders(path: str) -> list[str]:
    """The folders of `path` that hold kernel files: `path` itself (one kernel's folder
    given directly) or its subfolders, sorted."""
    if _has_kernel_files(path):
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    subs = [os.path.join(path, n) for n in names if os.path.isdir(os.path.join(path, n))]
    return [s for s in subs if _has_kernel_files(s)]


def _has_kernel_files(folder: str) -> bool:
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(_suffix(n) in ("ttir", "ttgir", "json", *BINARY_SUFFIXES) for n in names) and any(
        stage_of_suffix(_suffix(n)) or _suffix(n) in BINARY_SUFFIXES for n in names
    )


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ""


def is_cache_folder(path: str) -> bool:
    """A kernel folder of it has a group file that reads as one (`{"child_paths": ...}`)."""
    for folder in kernel_folders(path)[:8]:
        for name in os.listdir(folder):
            if name.startswith(GROUP_PREFIX) and name.endswith(".json"):
                try:
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        return isinstance(json.load(f).get("child_paths"), dict)
                except (OSError, ValueError, AttributeError):
                    continue
    return False


def read_folder(path: str, kind: str) -> Iterator[RecordedKernel | Diagnostic]:
    """Every kernel of a cache or dump folder (`kind`: 'triton-cache', 'triton-dump'), and
    a Diagnostic, located at its file, for each file that could not be read."""
    for folder in kernel_folders(path):
        yield from _read_kernel_folder(folder, kind)


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


def _read_kernel_folder(folder: str, kind: str) -> Iterator[RecordedKernel | Diagnostic]:
    names = sorted(os.listdir(folder))
    for kernel, files in _kernel_names(folder, names, kind).items():
        stages: dict[str, str] = {}
        cubin = None
        metadata: dict = {}
        problems = []
        group = os.path.join(folder, f"{GROUP_PREFIX}{kernel}.json")
        if os.path.exists(group):
            listed, problem = _group_files(group)
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
        for name in files:
            file = os.path.join(folder, name)
            suffix = _suffix(name)
            try:
                if os.path.getsize(file) > MAX_STAGE_BYTES:
                    problems.append(
                        Diagnostic("record", f"larger than {MAX_STAGE_BYTES >> 20} MiB: not read", file)
                    )
                    continue
                if suffix in BINARY_SUFFIXES:
                    with open(file, "rb") as f:
                        cubin = f.read() if suffix == "cubin" else cubin
                elif suffix == "json" and not name.startswith(GROUP_PREFIX):
                    metadata, problem = _metadata(file)
                    if problem:
                        problems.append(Diagnostic("record", problem, file=file))
                elif stage := stage_of_suffix(suffix):
                    with open(file, encoding="utf-8") as f:
                        stages[stage] = f.read()
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


def _group_files(group: str) -> tuple[list[str], str | None]:
    try:
        with open(group, encoding="utf-8") as f:
            doc = json.load(f)
        paths = doc["child_paths"]
        return [os.path.basename(p) for p in paths.values()], None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return [], f"not a Triton group file ({type(e).__name__}: {e})"


# Fields a Triton metadata file must have for kx to read it as one (3.5 to 3.9 write all).
_REQUIRED_METADATA = ("hash", "target", "num_warps", "name")


def _metadata(file: str) -> tuple[dict, str | None]:
    """Triton's metadata of a kernel, and what is wrong with it ('' fields kx needs are
    missing: a Triton version that writes another shape)."""
    try:
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
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
