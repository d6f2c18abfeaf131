"""Triton's file cache with a checksum beside every artifact, so a corrupt or edited one
(a truncated cubin, a PTX changed by hand) is a cache miss and is compiled again, never
served. The worker points Triton at it (TRITON_CACHE_MANAGER, runner._worker_env).

Each file Triton puts gets `<file>.kxsum` (its sha256) written beside it; a file read back
whose bytes do not match, or that has no checksum (written by another cache manager), is
not used. Triton then compiles and puts it again.
"""

from __future__ import annotations

import hashlib

from triton.runtime.cache import FileCacheManager

_SUFFIX = ".kxsum"


def _digest(data) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else str(data).encode()).hexdigest()


def intact(path: str) -> bool:
    """The file's bytes match the checksum beside it."""
    try:
        with open(path + _SUFFIX, encoding="ascii") as f:
            expected = f.read().strip()
        with open(path, "rb") as f:
            return _digest(f.read()) == expected
    except (OSError, ValueError):
        return False


class CheckedCacheManager(FileCacheManager):
    def put(self, data, filename, binary=True) -> str:
        path = super().put(data, filename, binary)
        if not filename.endswith(_SUFFIX):
            # after the file: a reader that sees the checksum sees the whole file
            super().put(_digest(data), filename + _SUFFIX, binary=False)
        return path

    def get_file(self, filename):
        path = super().get_file(filename)
        if path is None or filename.endswith(_SUFFIX):
            return path
        return path if intact(path) else None

    def get_group(self, filename):
        group = super().get_group(filename)
        if group is None:
            return None
        grp = self._make_path(f"__grp__{filename}")
        if not intact(grp) or not all(intact(p) for p in group.values()):
            return None  # one bad artifact: the whole kernel is compiled again
        return group
