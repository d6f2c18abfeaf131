"""The result cache: reopening an unchanged file costs a JSON read, not a compile.

Key: the file's path and content, the resolved target, every option of the request (the
interpreter included), that interpreter's Triton version and kx's engine sources. An
entry also records every module the run imported from outside the standard library,
site-packages and kx, every file it opened for reading (capturing/device/reads.py), with their
hashes, the values of the environment variables it looked up, the names in the folders it
listed, and the whole environment where it read all of it (`dict(os.environ)`): a change
to any of them makes the entry stale. A run stopped by an import it could not satisfy
(ModuleNotFoundError) is not stored. A result whose run started a process (its reads
unseen: an `uncached` diagnostic) is not stored. An entry is served only when its digest and its types check. Entries are pruned oldest first past
MAX_BYTES. A cache folder kx cannot use means compiling without it (CacheUnusable says
why once), never a failed compile.
Location: $KX_CACHE_DIR, else $XDG_CACHE_HOME/kx, else ~/.cache/kx.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kx_core.base.jsonable import check_json
from kx_core.base.paths import cache_dir
from kx_core.base.version import __version__
from kx_core.model.resolved_request import ResolvedRequest
from kx_core.records.results import CompileResult

# Results whose outcome depends on the machine's load rather than the input.
_UNCACHEABLE_KINDS = ("timeout", "crash", "uncached")


# A module the run imported is checked by its hash; one it could not find is not on any
# list, so a run stopped there was served again after the module's folder was put on
# PYTHONPATH. Example message: "ModuleNotFoundError: No module named 'fast_llm'"
_IMPORT_STOP_RE = re.compile(r"^(ModuleNotFoundError|ImportError): ")


def _stopped_by_an_import(d: Any) -> bool:
    """A run stopped by an import its environment could not satisfy: not stored (it fails
    fast, and the environment is what will change)."""
    return d.kind == "runtime" and _IMPORT_STOP_RE.match(d.message) is not None


def triton_version() -> str:
    """The installed triton's version, read from package metadata (no import)."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "none"


@functools.cache
def engine_digest() -> str:
    """A hash of the compile engine's own sources: a result cached by another kx (a
    different capture) is not this kx's result. All of kx_core, not kx_core/compile
    alone: the worker parses with kx_core/ir (the pass dumps) and builds kx_core/records,
    and a cached result from before a fix there would keep the bug."""
    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).parents[2]  # kx_core and its subpackages
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_key(source: bytes, resolved: ResolvedRequest) -> str:
    """Key of a result: the file's text and path, the resolved target, every option of
    the request that changes what is compiled, the Triton version that compiles (the
    --python interpreter's, else the installed one: resolved at the door) and the
    engine's sources."""
    request = resolved.request
    skip = ("file", "target", "timeout_s", "jobs", "cwd", "memory_limit_mb", "cold")
    options = {k: v for k, v in request.to_json().items() if k not in skip}
    options |= {
        "path": request.file,
        "target": resolved.target.spec,
        "triton": resolved.triton,
        "kx": engine_digest(),
    }
    h = hashlib.sha256(source)
    h.update(json.dumps(options, sort_keys=True).encode())
    return h.hexdigest()


# The most the results folder may hold, in bytes; past it the oldest entries go.
MAX_BYTES = 512 * 1024 * 1024


class CacheUnusable(OSError):
    """The cache folder cannot be read or written (a file where the folder should be, no
    permission, a full disk): compile without it."""


def _path(key: str) -> Path:
    return cache_dir() / "results" / f"{key}.json"


def file_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def folder_hash(path: str) -> str | None:
    """A hash of the names a folder holds (what a listing of it gave the file)."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def whole_env_hash() -> str:
    """A hash of every environment variable and its value but the shell's bookkeeping
    (reads.VOLATILE): the key of a run that read the whole environment, where a variable
    set since is a change too."""
    from kx_core.compile.capturing.device.reads import VOLATILE

    items = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE)
    return hashlib.sha256(json.dumps(items).encode("utf-8", "surrogateescape")).hexdigest()


def _digest(result_json: dict) -> str:
    return hashlib.sha256(json.dumps(result_json, sort_keys=True).encode()).hexdigest()


def load(key: str) -> CompileResult | None:
    """The cached result for a key, or None: missing, corrupt (its digest or its types
    do not check: an entry edited, truncated or written by another kx), or stale (a
    module the run imported, a file it read or an environment variable it looked up has
    changed since). A corrupt entry is removed."""
    path = _path(key)
    try:
        with open(path, encoding="utf-8") as f:
            entry = json.load(f)
        result = entry["result"]
        if entry.get("digest") != _digest(result):
            raise ValueError("the entry does not match its digest")
        check_json(CompileResult, result)
    except OSError:
        return None
    except (ValueError, TypeError, KeyError, AttributeError):
        path.unlink(missing_ok=True)  # corrupt: rebuilt by the compile that follows
        return None
    if any(file_hash(p) != h for p, h in entry.get("sources", {}).items()):
        return None
    if any(os.environ.get(name) != value for name, value in entry.get("env", {}).items()):
        return None
    if any(folder_hash(p) != h for p, h in entry.get("folders", {}).items()):
        return None
    if "whole_env" in entry and entry["whole_env"] != whole_env_hash():
        return None
    try:
        return CompileResult.from_json(result)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def store(
    key: str,
    result: CompileResult,
    sources: list[str] = (),
    env: list[str] = (),
    folders: list[str] = (),
    whole_env: bool = False,
) -> None:
    """Save a result atomically with the hashes of the files its run read (the modules
    it imported, its data files), the values of the environment variables it looked up,
    the listings of the folders it listed and, where it read the whole environment, that;
    unless it holds a timeout, a crash or a started process. Raises CacheUnusable when
    the folder cannot take it."""
    if any(d.kind in _UNCACHEABLE_KINDS or _stopped_by_an_import(d) for d in result.diagnostics):
        return
    path = _path(key)
    result_json = result.to_json()
    entry = {
        "result": result_json,
        "digest": _digest(result_json),
        "sources": {p: file_hash(p) for p in sources},
        "env": {name: os.environ.get(name) for name in env},
        "folders": {p: folder_hash(p) for p in folders},
    }
    if whole_env:
        entry["whole_env"] = whole_env_hash()
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None:  # a full disk left it empty or cut short: never a file per try
            Path(tmp).unlink(missing_ok=True)
        raise CacheUnusable(
            f"kx's result cache at {path.parent} cannot be written ({e.strerror or e}): "
            "this run is without it (its result is not kept)"
        ) from e
    prune(path.parent)
    prune_triton()


def prune(folder: Path, limit: int = MAX_BYTES) -> int:
    """Delete the oldest entries until the folder holds at most 80% of `limit`; returns
    how many went. Runs when a store pushes the folder past `limit`."""
    try:
        entries = [(p.stat().st_mtime, p.stat().st_size, p) for p in folder.glob("*.json")]
    except OSError:
        return 0
    return _evict_oldest(entries, limit, lambda p: p.unlink())


TRITON_MAX_BYTES = 1024 * 1024 * 1024


def triton_cache_for(file: str, python: str | None = None) -> Path:
    """Triton's on-disk cache for the compiles of one user file with one interpreter.
    Per file, because Triton's key is the kernel's source, not its path: a copy of a file
    elsewhere would get IR whose locations name the other file (and kx links lines by
    those locations). Per interpreter, because the key is not the Triton installation's
    path either, and the PTX's debug lines name its files (triton/language/standard.py):
    two environments with one Triton version would be served each other's PTX."""
    real = os.path.realpath(file)
    key = real if not python else f"{real}\0{python}"
    return cache_dir() / "triton" / hashlib.sha256(key.encode()).hexdigest()[:16]


def prune_triton(limit: int = TRITON_MAX_BYTES) -> int:
    """Delete the least recently written kernels of Triton's caches (one folder per
    kernel, in one folder per user file) until they hold at most 80% of `limit`."""
    root = cache_dir() / "triton"
    entries = []
    try:
        for file_dir in root.iterdir():
            for kernel_dir in file_dir.iterdir():
                files = [f.stat() for f in kernel_dir.iterdir()]
                entries.append(
                    (max((f.st_mtime for f in files), default=0), sum(f.st_size for f in files), kernel_dir)
                )
    except OSError:
        return 0
    return _evict_oldest(entries, limit, lambda d: shutil.rmtree(d, ignore_errors=True))


def _evict_oldest(entries: list[tuple[float, int, Path]], limit: int, remove) -> int:
    """Remove the oldest of (mtime, size, path) entries until they hold at most 80% of
    `limit`, when they hold more than `limit`; returns how many went (an entry that cannot
    be removed is skipped)."""
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return 0
    removed = 0
    for _, size, path in sorted(entries):
        if total <= limit * 0.8:
            break
        try:
            remove(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed
