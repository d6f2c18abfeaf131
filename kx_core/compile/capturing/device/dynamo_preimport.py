"""torch._dynamo and Inductor imported once by the warm server, not by every capture child
that compiles with torch.compile (about 2.7 s of each such child on two cores).

A capture child puts its GPU stand-in in place (fake_torch.install) before the file runs,
so a capture without the pre-import imports dynamo and Inductor *after* the stand-in:
whatever they bind at import (a table keyed by `torch.cuda.is_available`, a class
attribute set to `torch.cuda.synchronize`, a rule map filled during the import) holds the
stand-in's objects. Imported earlier, in the server, they hold the originals, and dynamo
would trace the stand-in's functions as user code, Inductor would call the real driver
(docs/preimport_audit.md: 34 of 69 state queries answered otherwise).

So the server records, right after its import, every torch module's namespace (what
dynamo could have bound) and the environment variables the import read; the child, once
its stand-in and capture hooks are in place and before any hook of dynamo's or Inductor's
own modules runs, compares those namespaces with what they hold now (old -> new for every
object the capture replaced) and rewrites every reference the pre-imported modules hold
to an old object: module globals, class attributes, default arguments, dict keys (the new
key added beside the old one) and values, list, set and tuple items, the ids kept in sets,
and the values of filled zero-argument caches. What the import decided from "no GPU" as a
value (torch 2.11 picks its benchmarker from `torch.cuda.is_available()`) is decided again.
A job whose environment differs from the server's in a variable the import read runs in a
fresh worker instead (`env_difference`), since the import's reading of it cannot be undone.

The pre-import happens only where the machine has no GPU device (where capture children
install the stand-in and the import decides nothing from a driver): on a GPU machine
torch 2.11's import asks the CUDA runtime for its devices, and a process forked after that
cannot use CUDA. `KX_WARM_DYNAMO=0` turns it off.

Runs in the warm server (preimport) and its capture children (refresh).
"""

from __future__ import annotations

import functools
import glob
import inspect
import os
import sys
import tempfile
import types
from dataclasses import dataclass
from typing import Any

# what the server imports ahead: dynamo and the entry to Inductor that torch.compile loads
MODULES = ("torch._dynamo", "torch._inductor.compile_fx")
# How Inductor runs in a capture worker (runner._worker_env says why): in this process,
# where the capture sees it, without its graph caches. Read when Inductor is imported, so
# the warm server imports under them too (warm.launch)
CAPTURE_INDUCTOR_ENV = {
    "TORCHINDUCTOR_COMPILE_THREADS": "1",
    "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
    "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
}
# how deep the rewrite follows containers inside containers (dynamo's deepest tables are
# dicts of dicts of tuples)
_DEPTH = 4
_CONTAINERS = (dict, list, tuple, set, frozenset)


@dataclass(frozen=True)
class Preimported:
    """What the server's pre-import left for its children to compare with."""

    modules: tuple[str, ...]  # the torch modules the pre-import loaded: the ones rewritten
    namespaces: dict[str, dict[str, Any]]  # the other torch modules' globals right after it
    classes: dict[str, dict[str, Any]]  # torch.Tensor's and its base's attributes then
    env: dict[str, str | None]  # each variable the import read, with its value before it


STATE: Preimported | None = None


def unwanted() -> str:
    """Why this process should not pre-import ('' when it should)."""
    if os.environ.get("KX_WARM_DYNAMO", "1") == "0":
        return "KX_WARM_DYNAMO=0"
    # a GPU's device node: torch 2.11's import starts the CUDA runtime (see the docstring)
    if glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/kfd") or glob.glob("/dev/dxg"):
        return "this machine has a GPU"
    if "torch._dynamo" in sys.modules:
        return "torch._dynamo is imported already"
    return ""


class _ReadsRecorded(os._Environ):
    """os.environ for the length of the import: notes each name read (os.getenv, .get,
    [], in). A walk over every variable (networkx's `os.environ.items()`, which keeps
    those named NETWORKX_*) reads none by name: recorded, it would make every job whose
    PATH differs (each has its own nvidia-smi folder first) a stranger."""

    read: set[str] = set()
    walking = 0

    def __getitem__(self, key: Any) -> Any:
        if not _ReadsRecorded.walking:
            _ReadsRecorded.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        _ReadsRecorded.read.add(key)
        return super().__contains__(key)

    def __iter__(self) -> Any:
        _ReadsRecorded.walking += 1
        try:
            yield from super().__iter__()
        finally:
            _ReadsRecorded.walking -= 1


def preimport() -> bool:
    """In the warm server, before it serves: import MODULES and record what the children
    compare with (STATE). False, doing nothing, where `unwanted()` says so."""
    global STATE
    if unwanted():
        return False
    import torch

    before = set(sys.modules)
    env_before = dict(os.environ)
    _ReadsRecorded.read = set()
    environ_class = os.environ.__class__
    os.environ.__class__ = _ReadsRecorded
    try:
        for name in MODULES:
            __import__(name)
    finally:
        os.environ.__class__ = environ_class
    # written by the import for itself (cache_dir_utils sets TORCHINDUCTOR_CACHE_DIR): a
    # child's environment is the job's, where the value is computed again on each use
    for name in set(os.environ) - set(env_before):
        os.environ.pop(name, None)
    tempfile.tempdir = None  # fixed by the import from the server's TMPDIR
    new = tuple(n for n in sys.modules if n not in before and n.startswith("torch"))
    STATE = Preimported(
        modules=new,
        namespaces=_namespaces(exclude=set(new)),
        classes={c.__qualname__: dict(vars(c)) for c in _patched_classes(torch)},
        env={name: env_before.get(name) for name in sorted(_ReadsRecorded.read)},
    )
    return True


def _namespaces(exclude: set[str]) -> dict[str, dict[str, Any]]:
    """The globals of every torch module imported before the pre-import: what a capture
    patches before its file runs (torch, torch.cuda, torch._C, torch.nn.functional, ...).
    The pre-imported modules' own attributes are patched by the capture's import hooks,
    which a capture without the pre-import also runs after their import."""
    return {
        name: dict(vars(module))
        for name, module in list(sys.modules.items())
        if (name == "torch" or name.startswith("torch.")) and module is not None and name not in exclude
    }


def _patched_classes(torch: Any) -> tuple[type, ...]:
    return (torch.Tensor, torch._C.TensorBase)


def held_modules() -> tuple[str, ...]:
    """The modules whose import hooks wait for `refresh` (none without a pre-import)."""
    return STATE.modules if STATE is not None else ()


# Variables the import read whose values refresh() sets from the job's (a test process that
# imported Inductor itself passes on the TORCHINDUCTOR_CACHE_DIR Inductor wrote there)
REFRESHED_ENV = frozenset({"TORCHINDUCTOR_CACHE_DIR"})


def env_difference(env: dict[str, str], ignore: frozenset[str] = frozenset()) -> str:
    """The first variable the pre-import read, other than `ignore` and REFRESHED_ENV,
    whose value `env` (a job's) has otherwise, as 'NAME'; '' when none does or nothing
    was pre-imported."""
    if STATE is None:
        return ""
    for name, value in STATE.env.items():
        if name not in ignore and name not in REFRESHED_ENV and env.get(name) != value:
            return name
    return ""


# ----------------------------------------------------------------------- in the child


def refresh() -> int:
    """In a capture child of a pre-importing server, once the capture's stand-in is in
    place: rewrite what the pre-imported modules bound (see the module docstring). Returns
    how many references were rewritten (0 where nothing was pre-imported)."""
    if STATE is None:
        return 0
    import torch

    replaced = _replacements(torch)
    _decided_again(torch, replaced)
    rewriter = _Rewriter(replaced)
    for name in STATE.modules:
        module = sys.modules.get(name)
        if module is not None:
            rewriter.module(module)
    _lazy_state_reset()
    return rewriter.count


def _replacements(torch: Any) -> dict[int, tuple[Any, ...]]:
    """id(old) -> (old, new, ...) for every attribute of a torch module or tensor class
    that the capture replaced since the pre-import. One old object may have several new
    ones (fake_cuda gives torch.cuda and torch.cuda.random a function each for the one
    `get_rng_state_all` they shared): a table keyed by it gets each, as an import after
    the capture's patches keyed each name's object; a single slot gets the first."""
    replaced: dict[int, tuple[Any, ...]] = {}

    def compare(before: dict[str, Any], now: dict[str, Any]) -> None:
        for attr, old in before.items():
            new = now.get(attr, old)
            if new is not old and _replaceable(old):
                known = replaced.get(id(old), (old,))
                if all(n is not new for n in known[1:]):
                    replaced[id(old)] = (*known, new)

    for name, before in STATE.namespaces.items():
        module = sys.modules.get(name)
        if module is not None:
            compare(before, vars(module))
    # a module the capture replaced by another object (torch.cuda.nvtx by a namespace of
    # no-ops): what the import took from the module's attributes is the new object's now
    for old, new, *_ in list(replaced.values()):
        if isinstance(old, types.ModuleType) and not isinstance(new, types.ModuleType):
            compare(dict(vars(old)), {a: getattr(new, a) for a in vars(old) if hasattr(new, a)})
    for cls in _patched_classes(torch):
        compare(STATE.classes.get(cls.__qualname__, {}), dict(vars(cls)))
    return replaced


def _replaceable(value: Any) -> bool:
    """Objects whose identity dynamo and Inductor key on: functions, classes, modules'
    callables. Plain values (a flag, a number, a string) are compared by value, never by
    identity, and are not followed."""
    return callable(value) or isinstance(value, (staticmethod, classmethod, property, types.ModuleType))


def _decided_again(torch: Any, replaced: dict[int, tuple[Any, ...]]) -> None:
    """What the import decided from the server's "no GPU" as a value: torch 2.11's
    benchmarking chose TritonBenchmarker from `torch.cuda.is_available()` (False in the
    server); the stand-in's answer decides again, and every module's copy of the object
    follows through `replaced`."""
    bm = sys.modules.get("torch._inductor.runtime.benchmarking")
    if bm is None or not hasattr(bm, "use_experimental_benchmarker"):
        return
    from torch._inductor import config

    want = bool(config.use_experimental_benchmarker and torch.cuda.is_available())
    if want != bm.use_experimental_benchmarker:
        bm.use_experimental_benchmarker = want
        old = bm.benchmarker
        new = bm.InductorBenchmarker() if want else bm.TritonBenchmarker()
        bm.benchmarker = new
        replaced[id(old)] = (old, new)


def _lazy_state_reset() -> None:
    """Registries torch fills on first use: empty after the import, reset in case (a
    registry filled in the server would lack the stand-in's cuda:0); what the import
    kept of the server's folder and cache variable, from the job's."""
    di = sys.modules.get("torch._dynamo.device_interface")
    if di is not None:
        for table in (
            "device_interfaces",
            "caching_worker_device_properties",
            "caching_worker_current_devices",
        ):
            if isinstance(getattr(di, table, None), dict):
                getattr(di, table).clear()
        if hasattr(di, "_device_initialized"):
            di._device_initialized = False
    config = sys.modules.get("torch._dynamo.config")
    if config is not None and not os.environ.get("TORCH_COMPILE_DEBUG_DIR"):
        # computed from the server's folder at import; a job runs in its own
        config.debug_dir_root = os.path.join(os.getcwd(), "torch_compile_debug")
    # the one keeper of TORCHINDUCTOR_CACHE_DIR's value made at import (cache_dir() reads
    # the variable at each call): set from the job's, so the variable need not match
    package = sys.modules.get("torch._dynamo.package")
    utils = sys.modules.get("torch._inductor.runtime.cache_dir_utils")
    store = getattr(package, "DynamoCache", None)
    if utils is not None and hasattr(store, "_path_prefix"):
        store._path_prefix = os.path.join(utils.cache_dir(), "dynamo")


class _Rewriter:
    """Rewrites references to replaced objects in place (see refresh)."""

    def __init__(self, replaced: dict[int, tuple[Any, ...]]) -> None:
        self.replaced = replaced
        self.count = 0
        self.seen: set[int] = set()

    def news_of(self, value: Any) -> tuple[Any, ...]:
        """The replacements of `value` (none where it was not replaced)."""
        if isinstance(value, (staticmethod, classmethod)):
            return tuple(type(value)(new) for new in self.news_of(value.__func__))
        hit = self.replaced.get(id(value))
        return hit[1:] if hit is not None and hit[0] is value else ()

    def new_of(self, value: Any) -> Any:
        """The (first) replacement of `value`, or `value` itself."""
        news = self.news_of(value)
        return news[0] if news else value

    def module(self, module: Any) -> None:
        self.namespace(vars(module), module.__name__, vars(module).__setitem__)

    def cls(self, cls: type) -> None:
        if id(cls) in self.seen:
            return
        self.seen.add(id(cls))

        def store(name: str, value: Any) -> None:
            try:
                setattr(cls, name, value)
            except (AttributeError, TypeError):  # a slot a class does not let be set
                pass

        self.namespace(vars(cls), cls.__module__, store)

    def namespace(self, names: Any, home: str, store: Any) -> None:
        """A module's or class's attributes: each rewritten where it changes, and the
        classes defined there (nested ones too) and its functions' defaults followed."""
        for name, value in list(names.items()):
            new = self.slot(value, 0)
            if new is not value:
                store(name, new)
            if isinstance(value, type) and value.__module__ == home:
                self.cls(value)
            elif inspect.isfunction(value):
                self.function(value)

    def function(self, fn: Any) -> None:
        if fn.__defaults__:
            fn.__defaults__ = tuple(self.slot(v, _DEPTH) for v in fn.__defaults__)
        if fn.__kwdefaults__:
            for key, value in list(fn.__kwdefaults__.items()):
                fn.__kwdefaults__[key] = self.slot(value, _DEPTH)

    def slot(self, value: Any, depth: int) -> Any:
        """What a slot holding `value` should hold: its replacement, or the same container
        with its contents rewritten (mutable ones in place, tuples rebuilt)."""
        new = self.new_of(value)
        if new is not value:
            self.count += 1
            return new
        if isinstance(value, functools._lru_cache_wrapper):
            self.cache(value, depth)
        elif isinstance(value, _CONTAINERS) and depth < _DEPTH:
            return self.container(value, depth + 1)
        return value

    def cache(self, fn: Any, depth: int) -> None:
        """A zero-argument cache filled during the import (dynamo's torch-object rule
        map): its value is rewritten, never cleared (its polyfill entries were written
        into it, and a rebuild would lose them)."""
        try:
            if fn.cache_info().currsize == 0 or inspect.signature(fn).parameters:
                return
        except (TypeError, ValueError):
            return
        value = fn()
        if isinstance(value, _CONTAINERS):
            self.container(value, depth + 1)

    def container(self, value: Any, depth: int) -> Any:
        if id(value) in self.seen:
            return value
        self.seen.add(id(value))
        if isinstance(value, dict):
            for key, item in list(value.items()):
                new_item = self.slot(item, depth)
                if new_item is not item:
                    value[key] = new_item
                for new_key in self.keys(key):
                    if new_key not in value:
                        value[new_key] = value[key]  # the old key stays: nothing reaches it now
            return value
        if isinstance(value, list):
            value[:] = [self.slot(item, depth) for item in value]
            return value
        if isinstance(value, (set, frozenset)):
            added = {new for item in list(value) for new in self.keys(item)}
            if isinstance(value, set):
                value.update(added)
                return value
            return value | added if added else value
        items = [self.slot(item, depth) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        try:
            return type(value)(items) if type(value) is tuple else type(value)(*items)
        except TypeError:  # a tuple subclass built otherwise: left as it is
            return value

    def keys(self, key: Any) -> tuple[Any, ...]:
        """What a dict key or set item adds beside itself: its replacements; for an id (a
        set of ids, as dynamo keeps some), the new objects' ids."""
        if isinstance(key, int) and not isinstance(key, bool):
            hit = self.replaced.get(key)
            news = tuple(id(new) for new in hit[1:]) if hit is not None else ()
        else:
            news = self.news_of(key)
        self.count += len(news)
        return news
