"""The compiled binaries a sweep's compile side hands to its measuring workers, by content
hash, so no config compiles twice (once in kx's capture, again where it is timed).

A config's binary is the folder Triton's cache keeps for the kernel: the cubin, the
metadata JSON and the text stages, named by Triton's own cache key (the hash of the
kernel's source, signature, specialization, options, Triton and ptxas versions and the
cache-invalidating environment). The measuring process puts those files into its own
Triton cache under that key through Triton's cache manager; its JIT then looks the kernel
up as always. A binary is never forced on it: where its Triton, ptxas, environment or
specialization differ from the compile side's (another machine, pointers aligned
otherwise), its key differs, the shipped folder is not what it looks up, and it compiles
the config itself, counted as compiled again. The content hash (sha256 over the folder's
file names and bytes) names a binary in transit: checked on arrival, and shipped once to a
worker however many shapes share it (shapes whose sizes are all multiples of 16 share
every config's specialization, so their kernels are the same).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from kx_core.base.jsonable import Jsonable
from kx_core.records.results import CompileResult


@dataclass(frozen=True)
class Binary(Jsonable):
    label: str  # the config it is
    key: str  # Triton's cache key (the kernel metadata's hash, sha256 hex)
    name: str  # the kernel's name in the group (Triton's `{name}.json`, `{name}.cubin`)
    digest: str  # sha256 over the group's file names and bytes: the content hash
    folder: str  # the compile side's cache folder of the group (read where it is local)


def folder_name(key: str) -> str:
    """Triton's folder for a cache key (triton.runtime.cache._base32, the same in 3.6
    and 3.8: base32 of the hex key's bytes, padding dropped)."""
    import base64

    return base64.b32encode(bytes.fromhex(key)).decode("ascii").rstrip("=")


def digest_of(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def read_group(folder: Path, name: str) -> dict[str, bytes] | None:
    """The files of kernel `name`'s group in a Triton cache folder (Triton's group file
    lists them; kx's checksum files and the lock are not part of it); None when the group
    is missing or one of its files is (a pruned cache, a compile that failed)."""
    import json

    try:
        listed = json.loads((folder / f"__grp__{name}.json").read_text())["child_paths"]
        # Triton 3.8 lists absolute paths; a manager of its own may list names
        names = [os.path.basename(p) for p in (listed.values() if isinstance(listed, dict) else listed)]
        files = {n: (folder / n).read_bytes() for n in names}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if f"{name}.json" not in files:
        return None
    from kx_core.compile.capturing.checked_cache import intact

    # kx's own cache keeps a checksum beside each file: a damaged one is not shipped
    if any((folder / f"{n}.kxsum").exists() and not intact(str(folder / n)) for n in files):
        return None
    return files


def collect(result: CompileResult, kernel: str, triton_cache: Path) -> dict[str, Binary]:
    """config label -> its binary, for every compiled config of `kernel` whose group
    the compile side's Triton cache holds."""
    out: dict[str, Binary] = {}
    for k in result.kernels:
        key = k.metadata.hash if k.metadata else None
        if k.name != kernel or k.config is None or k.status != "compiled" or not key:
            continue
        folder = triton_cache / folder_name(key)
        files = read_group(folder, k.name)
        if files is not None:
            out[k.config.label] = Binary(k.config.label, key, k.name, digest_of(files), str(folder))
    return out


def install(key: str, name: str, files: dict[str, bytes], digest: str) -> str:
    """Put a shipped group into this process's Triton cache under `key` (Triton's own
    cache manager: TRITON_CACHE_DIR, TRITON_CACHE_MANAGER as configured here). Returns
    'installed', 'present' (the cache has the kernel already) or 'damaged' (the files'
    content hash is not the one shipped: nothing written)."""
    if digest_of(files) != digest:
        return "damaged"
    from triton.runtime.cache import get_cache_manager

    manager = get_cache_manager(key)
    if manager.get_group(f"{name}.json") is not None:
        return "present"
    paths = {n: manager.put(data, n, binary=True) for n, data in sorted(files.items())}
    # the group last: a reader that finds it finds every file it lists
    manager.put_group(f"{name}.json", paths)
    return "installed"


def served(key: str, name: str) -> bytes | None:
    """The binary Triton's loader reads from this process's cache for `key` (its
    CompiledKernel from the cache's group, as a cache hit builds it); None: not there."""
    from triton.compiler.compiler import CompiledKernel
    from triton.runtime.cache import get_cache_manager

    group = get_cache_manager(key).get_group(f"{name}.json")
    if group is None:
        return None
    try:
        return CompiledKernel(None, group, key).kernel
    except (OSError, ValueError, KeyError, StopIteration):
        return None


class Compiles:
    """Triton's compiles of one kernel in this process from `start` to `stop`, through its
    compilation listener (knobs.compilation.listener, called on every compile with
    cache_hit): the keys served from the cache and those compiled. Chains to a listener
    already set; stop restores it (stopping twice is harmless)."""

    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.hits: set[str] = set()
        self.compiled: set[str] = set()
        self._before = self._mine = None

    def start(self) -> None:
        from triton import knobs

        self._before = knobs.compilation.listener

        def listener(*, src, metadata, metadata_group, times, cache_hit, **rest):
            if metadata.get("name") == self.kernel:
                (self.hits if cache_hit else self.compiled).add(str(metadata.get("hash", "")))
            if self._before is not None:
                self._before(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                             cache_hit=cache_hit, **rest)  # fmt: skip

        self._mine = knobs.compilation.listener = listener

    def stop(self) -> None:
        from triton import knobs

        if self._mine is not None and knobs.compilation.listener is self._mine:
            knobs.compilation.listener = self._before
        self._mine = None
