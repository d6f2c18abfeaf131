"""Triton's file cache with a checksum beside every artifact, so a corrupt or edited one
(a truncated cubin, a PTX changed by hand) is a cache miss and is compiled again, never
served. The worker points Triton at it (TRITON_CACHE_MANAGER, runner._worker_env).

Each file Triton puts gets `<file>.kxsum` (its sha256) written beside it; a file read back
whose bytes do not match, or that has no checksum (written by another cache manager), is
not used. Triton then compiles and puts it again.

A cache folder that cannot be written (a full disk, a read-only folder, a quota) is kx's
fault, not the user's file's: the first failed write turns the shared cache off for the
rest of this process, its partial file is removed, the artifact goes to a folder of the
job's own (removed with the job) and one `tool` diagnostic says so. Triton's own put
raised the OSError inside the user's launch, reported at the user's line, and left a
temporary folder with a 0-byte file behind each try.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile

from triton.runtime.cache import FileCacheManager

_SUFFIX = ".kxsum"
# The folder this process puts Triton's artifacts in since the shared cache failed (None:
# the shared cache is in use).
_fallback: str | None = None


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


def _write(folder: str, filename: str, data: bytes) -> str:
    """`data` to folder/filename whole or not at all; a failed write leaves no file."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, filename)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{filename[:100]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def _turn_off(error: OSError) -> None:
    """Stop using the shared cache in this process: the job's own folder from now on."""
    global _fallback
    job = os.environ.get("KX_JOB_DIR")
    _fallback = os.path.join(job, "triton-cache-own") if job else tempfile.mkdtemp(prefix="kx-triton-")
    from kx_core.compile.capturing import capture_state
    from kx_core.records.results import Diagnostic

    if capture_state.STATE is not None:
        shared = os.environ.get("TRITON_CACHE_DIR", "its folder")
        capture_state.STATE.send_diagnostic(
            Diagnostic(
                "tool",
                f"kx's Triton cache at {shared} cannot be written ({error.strerror or error}): "
                "it is off for this compile, whose kernels are built in a folder of the job's own",
            )
        )


# Told of each artifact Triton puts, as it puts it (early_stages.py: the first kernel's TTIR
# goes to the window while the later stages compile): ON_PUT(filename, data)
ON_PUT = None


class CheckedCacheManager(FileCacheManager):
    def __init__(self, key, override=False, dump=False):
        self._shared = not (override or dump)  # Triton's cache, not its dump or override folder
        if self._shared and _fallback is None:
            try:
                super().__init__(key, override=override, dump=dump)
                return
            except OSError as e:  # the kernel's folder cannot be made
                _turn_off(e)
        elif not self._shared:
            super().__init__(key, override=override, dump=dump)
            return
        self.key = key
        self._use_fallback()
        os.makedirs(self.cache_dir, exist_ok=True)

    def _use_fallback(self) -> None:
        self.cache_dir = os.path.join(_fallback, self.key)
        self.lock_path = os.path.join(self.cache_dir, "lock")

    def put(self, data, filename, binary=True) -> str:
        data = data if isinstance(data, bytes) else str(data).encode()
        if ON_PUT is not None and self._shared:
            ON_PUT(filename, data)
        if self._shared and _fallback is not None and not self.cache_dir.startswith(_fallback):
            self._use_fallback()
        try:
            path = _write(self.cache_dir, filename, data)
            if not filename.endswith(_SUFFIX):
                # after the file: a reader that sees the checksum sees the whole file
                _write(self.cache_dir, filename + _SUFFIX, _digest(data).encode())
            return path
        except OSError as e:
            if not self._shared or _fallback is not None:
                raise  # the job's own folder cannot be written either
            with contextlib.suppress(OSError):
                os.rmdir(self.cache_dir)  # the kernel's folder, when nothing else is in it
            _turn_off(e)
        self._use_fallback()
        return self.put(data, filename, binary)

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
