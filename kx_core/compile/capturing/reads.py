"""What the user's code read while it ran, beyond its source and the modules it imported:
the files it opened for reading (a `cfg.json`, a checkpoint) and the environment
variables it looked up (`$BLOCK`). The result cache keys a result on them
(jobs/cache.py): a changed file or value is a new compile, not the old kernels.

Files come from Python's audit hook on "open" (every `open()`, `io.open`, `np.load`,
`torch.load`; not a C library's own fopen); variables from `os.environ`'s lookups
(`os.environ[...]`, `.get`, `os.getenv`, `in`) made by the user's own code, and the
compiler's knobs (TRITON_*, MLIR_*, LLVM_*, TORCHINDUCTOR_*) whoever reads them. Lookups
by libraries are not recorded: a copy of the whole environment (`subprocess`, torch)
reads every variable, and `$OLDPWD` or `$_` would then make every entry stale.
"""

from __future__ import annotations

import os
import sys
import sysconfig

from kx_core.compile.capturing.placeholders import is_engine_file, real_path

_opened: set[str] = set()
_written: set[str] = set()
_names: set[str] = set()
_on = False


def install() -> None:
    """Start recording (once per process; the hook cannot be removed, so it records
    only while `_on`)."""
    global _on
    if not _on:
        sys.addaudithook(_audit)
        _patch_environ()
    _on = True


def _audit(event: str, args: tuple) -> None:
    if event != "open" or not _on:
        return
    path, mode, flags = (list(args) + [None, None])[:3]
    if not isinstance(path, (str, bytes)):
        return  # an fd
    path = os.fsdecode(path)
    writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
        isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR)
    )
    (_written if writing else _opened).add(os.path.abspath(path))


# knobs of the compilers, recorded whoever looks them up (they change the code made)
_KNOBS = ("TRITON_", "MLIR_", "LLVM_", "TORCHINDUCTOR_")
# frames of the mapping machinery between a lookup and the code that made it (frozen
# modules in 3.11+: "<frozen _collections_abc>", "<frozen os>")
_MACHINERY_FILES = ("_collections_abc.py", f"{os.sep}os.py")
_MACHINERY_FROZEN = frozenset({"<frozen _collections_abc>", "<frozen os>"})


def _machinery(filename: str) -> bool:
    return filename in _MACHINERY_FROZEN or filename.endswith(_MACHINERY_FILES)


# the shell's bookkeeping, different in every terminal: never what a kernel depends on
_VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})


def _note(key) -> None:
    if not isinstance(key, str) or key in _names or key in _VOLATILE:
        return
    if key.startswith(_KNOBS):
        _names.add(key)
        return
    frame = sys._getframe(2)
    while frame is not None and _machinery(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is not None and _users(frame.f_code.co_filename):
        _names.add(key)


def _users(filename: str) -> bool:
    """A file of the user's: not Python's, site-packages' or kx's engine's."""
    if filename.startswith("<") or "site-packages" in filename:
        return False
    return not filename.startswith(_STDLIB) and not is_engine_file(filename)


_STDLIB = tuple(
    os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "") for k in ("stdlib", "platstdlib")
) + tuple(os.path.join(sysconfig.get_paths()[k], "") for k in ("stdlib", "platstdlib"))


def _patch_environ() -> None:
    environ_type = type(os.environ)
    for name in ("__getitem__", "__contains__"):  # get() and getenv() go through []
        original = getattr(environ_type, name)

        def noting(self, key, original=original):
            if _on and self is os.environ:
                _note(key)
            return original(self, key)

        setattr(environ_type, name, noting)


def stop() -> tuple[list[str], list[str]]:
    """Stop recording; the files read (regular files of the user's that still exist and
    the run did not write itself) and the variable names looked up, sorted."""
    global _on
    _on = False
    skip = [os.path.join(real_path(p), "") for p in _system_folders()]
    files = set()
    for path in _opened - _written:
        real = real_path(path)
        if (
            not os.path.isfile(real)
            or real.startswith(tuple(skip))
            or "site-packages" in real
            or is_engine_file(real)
        ):
            continue
        files.add(real)
    return sorted(files), sorted(_names)


def _system_folders() -> list[str]:
    """Where nothing is the user's data: Python's own folders, the job's and the caches'
    folders, and the kernel's pseudo-filesystems."""
    paths = sysconfig.get_paths()
    folders = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    folders += [sys.prefix, sys.base_prefix, "/proc", "/sys", "/dev"]
    for name in ("KX_JOB_DIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "TRITON_HOME"):
        if value := os.environ.get(name):
            folders.append(value)
    return folders
