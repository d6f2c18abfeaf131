"""Which files a traceback or a frame belongs to: kx's engine, the libraries a capture
looks past (torch, triton, the standard library), or the user's. Read where a compile's
diagnostics are worded (artifacts.diagnostics) and by the capture device's placeholders,
which place a read of data at the user's frame."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from pathlib import Path

_KX_DIR = os.path.join(os.path.realpath(Path(__file__).parents[2]), "")  # kx_core/
_KX_DATA = os.path.join(_KX_DIR, "data", "")


@functools.lru_cache(maxsize=4096)
def real_path(path: str) -> str:
    """os.path.realpath, memoised: asked on every `.device` of a tensor."""
    return os.path.realpath(path)


def is_engine_file(path: str) -> bool:
    """A file of kx's engine (not kx_core/data, where the shipped examples live)."""
    real = real_path(path)
    return real.startswith(_KX_DIR) and not real.startswith(_KX_DATA)


_STDLIB = os.path.join(os.path.realpath(sysconfig.get_paths()["stdlib"]), "")
_LOADED: tuple[str, ...] = ()


def loaded_library_dirs() -> tuple[str, ...]:
    """The folders of torch and triton, of those already imported, found without importing
    either (safe inside an audit hook that runs while torch itself is importing; a file of
    one not imported yet is in no traceback or frame). Kept once both are found."""
    global _LOADED
    if len(_LOADED) == 2:
        return _LOADED
    found = []
    for name in ("torch", "triton"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(file, str):
            found.append(os.path.join(real_path(os.path.dirname(file)), ""))
    _LOADED = tuple(found)
    return _LOADED


def inside_libraries_file(name: str) -> bool:
    """Whether the file `name` is torch's, triton's, kx's or the standard library's."""
    if name.startswith("<") or is_engine_file(name):
        return True
    real = real_path(name)
    return real.startswith(_STDLIB) or real.startswith(loaded_library_dirs())
