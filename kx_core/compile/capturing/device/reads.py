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

What the user's own code reads in other ways (issue 52, item 4: each served the old
result before):
- the whole environment (`dict(os.environ)`, `.copy()`, `.items()`, `{**os.environ}`, a
  loop over it): `whole_env`, and the entry is keyed on every variable's value (a
  variable set later is not one it looked up by name, so names alone missed it);
- a folder's listing (`os.listdir`, `os.scandir`, `glob`, `os.walk`, `Path.iterdir`,
  audit events "os.listdir"/"os.scandir"): `folders`, keyed on the names they hold;
- a process it started (`subprocess`, `os.system`, `os.fork`, `os.posix_spawn`): what
  that process read cannot be seen, so the result is not cached, said by one `uncached`
  diagnostic at the line that started it.
"Its own" is the innermost caller outside Python's standard library: a file of the
user's, not a library's (Triton running ptxas) or an import's (a finder listing a folder).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from dataclasses import dataclass

from kx_core.compile.artifacts.file_kinds import (
    inside_libraries_file,
    is_engine_file,
    loaded_library_dirs,
    real_path,
)
from kx_core.records.languages import PLUGINS_ENV
from kx_core.records.results import Diagnostic

_opened: set[str] = set()
_written: set[str] = set()
_names: set[str] = set()
_listed: set[str] = set()
_whole_env = False
# (file, line, what) of each process the user's code started, in the order started
_started: list[tuple[str, int, str]] = []
_on = False


@dataclass(frozen=True)
class Reads:
    """What the user's code read beyond its source and modules (see the docstring)."""

    files: tuple[str, ...]  # regular files it opened for reading
    env: tuple[str, ...]  # environment variables it looked up by name
    folders: tuple[str, ...] = ()  # folders it listed
    whole_env: bool = False  # it read the whole environment
    uncached: tuple[Diagnostic, ...] = ()  # why the result must not be cached


def install() -> None:
    """Start recording (once per process; the hook cannot be removed, so it records
    only while `_on`)."""
    global _on
    if not _on:
        sys.addaudithook(_audit)
        _patch_environ()
    _on = True


# Audit events of a process started, and how each names it. Examples of their args:
# subprocess.Popen ("cat", ["cat", "cfg.json"], None, None); os.system (b"cat cfg.json",)
_STARTS = {
    "subprocess.Popen": lambda a: a[1],
    "os.system": lambda a: a[0],
    "os.posix_spawn": lambda a: a[1],
    "os.spawn": lambda a: a[2],
    "os.fork": lambda a: "a fork of the file's own process",
    "os.forkpty": lambda a: "a fork of the file's own process",
}


def _audit(event: str, args: tuple) -> None:
    if not _on:
        return
    if event in ("os.listdir", "os.scandir"):
        _note_listing(args[0] if args else None)
        return
    if event in _STARTS:
        _note_start(event, args)
        return
    if event != "open":
        return
    path, mode, flags = (list(args) + [None, None])[:3]
    if not isinstance(path, (str, bytes)):
        return  # an fd
    path = os.fsdecode(path)
    writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
        isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR)
    )
    (_written if writing else _opened).add(os.path.abspath(path))


# knobs of the compilers, recorded whoever looks them up (they change the code made), and
# the languages kx loads from outside its table (they change which captures run)
_KNOBS = ("TRITON_", "MLIR_", "LLVM_", "TORCHINDUCTOR_", PLUGINS_ENV)
# frames of the mapping machinery between a lookup and the code that made it (frozen
# modules in 3.11+: "<frozen _collections_abc>", "<frozen os>")
_MACHINERY_FILES = ("_collections_abc.py", f"{os.sep}os.py")
_MACHINERY_FROZEN = frozenset({"<frozen _collections_abc>", "<frozen os>"})


def _machinery(filename: str) -> bool:
    return filename in _MACHINERY_FROZEN or filename.endswith(_MACHINERY_FILES)


# the shell's bookkeeping, different in every terminal: never what a kernel depends on
VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})


def _note(key) -> None:
    if not isinstance(key, str) or key in _names or key in VOLATILE:
        return
    if key.startswith(_KNOBS):
        _names.add(key)
        return
    frame = sys._getframe(2)
    while frame is not None and _machinery(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is not None and _users(frame.f_code.co_filename):
        _names.add(key)


def _users_call():
    """The frame of the user's code that made the current call, or None: the innermost
    caller outside this module and Python's own modules, when it is a file of the user's
    (not a library's, nor an import's lookups, whose results the modules' hashes cover)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" in name:
            return None
        if name != __file__ and not name.startswith(("<frozen ", *_STDLIB)):
            break
        frame = frame.f_back
    return frame if frame is not None and _users(frame.f_code.co_filename) else None


def _note_listing(path) -> None:
    if isinstance(path, int) or _users_call() is None:
        return  # a listing by an open folder descriptor names no path
    _listed.add(os.path.abspath(os.fsdecode(path if path is not None else ".")))


def _note_start(event: str, args: tuple) -> None:
    frame = _users_call()
    if frame is None:
        return
    try:
        what = _STARTS[event](args)
    except (IndexError, TypeError):
        what = event
    if isinstance(what, (list, tuple)):
        what = " ".join(os.fsdecode(w) if isinstance(w, (str, bytes)) else str(w) for w in what)
    elif isinstance(what, bytes):
        what = os.fsdecode(what)
    _started.append((frame.f_code.co_filename, frame.f_lineno, str(what)))


def _note_whole_env() -> None:
    global _whole_env
    if not _whole_env and _users_call() is not None:
        _whole_env = True


def _mark_whole_env() -> None:
    """The whole environment seen by code dynamo traces (no frame walk there)."""
    global _whole_env
    _whole_env = True


def _users(filename: str) -> bool:
    """A file of the user's: not Python's, site-packages', kx's engine's, nor torch's or
    triton's wherever they are installed (a source build or a PYTHONPATH install is outside
    site-packages: Triton's own `ptxas --version` was said as the file starting a process,
    and no result of such a setup was ever cached)."""
    if "site-packages" in filename or filename.startswith(_STDLIB):
        return False
    return not inside_libraries_file(filename)


_STDLIB = tuple(
    os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "") for k in ("stdlib", "platstdlib")
) + tuple(os.path.join(sysconfig.get_paths()[k], "") for k in ("stdlib", "platstdlib"))


def _compiling() -> bool:
    """Whether dynamo traces the caller: `torch.compiler.is_compiling` once torch is
    imported (`_patch_environ`), which dynamo folds to True in what it traces; until then
    nothing is traced."""
    return False


def _patch_environ() -> None:
    """`os.environ`'s lookups record what the user's code read. Dynamo traces these
    methods inline where compiled code reads the environment (`os.environ.get(...)` in a
    model's forward, k-diffusion's flags): there the recording must trace as plain Python,
    since a frame walk (`sys._getframe`) is a graph break that a real run does not have,
    and a graph break changes which graphs Inductor compiles. So while traced, the name is
    recorded without asking who looked it up (what dynamo traces is the user's code)."""
    from kx_core.compile.capturing.import_hooks import after_import

    def use_torchs(torch) -> None:
        global _compiling
        _compiling = torch.compiler.is_compiling

    after_import("torch", use_torchs)
    environ_type = type(os.environ)
    for name in ("__getitem__", "__contains__"):  # get() and getenv() go through []
        original = getattr(environ_type, name)

        def noting(self, key, original=original):
            if _on and self is os.environ:
                if _compiling():
                    if isinstance(key, str) and key not in VOLATILE:
                        _names.add(key)
                else:
                    _note(key)
            return original(self, key)

        setattr(environ_type, name, noting)
    # every way to see the whole environment goes through one of these: keys(), items(),
    # values(), copy(), dict(os.environ), {**os.environ} and a loop iterate it
    for name in ("__iter__", "__len__", "__repr__"):
        original = getattr(environ_type, name)

        def seeing_all(self, original=original):
            if _on and (self is os.environ or self is getattr(os, "environb", None)):
                if _compiling():
                    _mark_whole_env()
                else:
                    _note_whole_env()
            return original(self)

        setattr(environ_type, name, seeing_all)


def stop() -> Reads:
    """Stop recording; the files read (regular files of the user's that still exist and
    the run did not write itself), the variable names looked up and the folders listed,
    sorted; whether it read the whole environment; why the result is not to be cached."""
    global _on
    _on = False
    skip = tuple(os.path.join(real_path(p), "") for p in _system_folders())

    def users(real: str) -> bool:
        return not (
            real.startswith(skip)
            or "site-packages" in real
            or is_engine_file(real)
            or real.startswith(loaded_library_dirs())
        )

    files = {real for p in _opened - _written if os.path.isfile(real := real_path(p)) and users(real)}
    folders = {real for p in _listed if os.path.isdir(real := real_path(p)) and users(os.path.join(real, ""))}
    uncached = []
    for file, line, what in _started[:1]:  # the first says why; one is enough
        more = f" (and {len(_started) - 1} more)" if len(_started) > 1 else ""
        uncached.append(
            Diagnostic(
                "uncached",
                f"not cached: the file started a process ({_shown(what)}){more}, and what it "
                "read is not known to kx, so every compile runs the file again",
                file,
                line,
            )
        )
    return Reads(
        tuple(sorted(files)), tuple(sorted(_names)), tuple(sorted(folders)), _whole_env, tuple(uncached)
    )


def _shown(command: str, limit: int = 80) -> str:
    """A command as data: one line, cut at `limit` characters. Example: "cat cfg.json"."""
    one = " ".join(command.split())
    return repr(one if len(one) <= limit else one[: limit - 3] + "...")


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
