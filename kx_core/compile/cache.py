"""The result cache: reopening an unchanged file costs a JSON read, not a compile.

Key: the file's content, the resolved target, the request's options, the installed Triton
version and kx's own version. Only the file itself is hashed: a kernel file that imports
a sibling module whose content changed needs `--no-cache` (or a touch of the file).
Location: $KX_CACHE_DIR, else $XDG_CACHE_HOME/kx, else ~/.cache/kx.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import tempfile
from pathlib import Path

import kx_core
from kx_core.base.paths import cache_dir
from kx_core.compile.types import CompileRequest, CompileResult, Target

# Results whose outcome depends on the machine's load rather than the input.
_UNCACHEABLE_KINDS = ("timeout", "crash")


def triton_version() -> str:
    """The installed triton's version, read from package metadata (no import)."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "none"


@functools.cache
def engine_digest() -> str:
    """A hash of the compile engine's own sources: a result cached by another kx (a
    different capture) is not this kx's result."""
    h = hashlib.sha256(kx_core.__version__.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_key(source: bytes, request: CompileRequest, target: Target, triton: str | None = None) -> str:
    """Key of a result: the file's text and path, the resolved target, every option of
    the request that changes what is compiled, the Triton version (`triton`: that of
    the interpreter that compiles, default the installed one) and the engine's sources."""
    skip = ("file", "target", "timeout_s", "jobs", "cwd")
    options = {k: v for k, v in request.to_json().items() if k not in skip}
    options |= {
        "path": request.file,
        "target": target.spec,
        "triton": triton or triton_version(),
        "kx": engine_digest(),
    }
    h = hashlib.sha256(source)
    h.update(json.dumps(options, sort_keys=True).encode())
    return h.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / "results" / f"{key}.json"


def load(key: str) -> CompileResult | None:
    """The cached result for a key, or None (a corrupt entry counts as a miss)."""
    try:
        with open(_path(key), encoding="utf-8") as f:
            return CompileResult.from_json(json.load(f))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def store(key: str, result: CompileResult) -> None:
    """Save a result atomically, unless it holds a timeout or crash."""
    if any(d.kind in _UNCACHEABLE_KINDS for d in result.diagnostics):
        return
    path = _path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
    os.replace(tmp, path)
