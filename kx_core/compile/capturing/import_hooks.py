"""Run a function right after a module is imported, whenever that happens.

Capture adjusts some of torch's modules (Inductor's runtime, its config) only if the file
uses them: importing them up front would cost seconds in every capture. `after_import`
calls the function at once when the module is loaded already, else right after its code
has run, before the importer sees it.

Runs only inside the capture worker.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable
from typing import Any

_PENDING: dict[str, list[Callable[[Any], None]]] = {}


class _Loader(importlib.abc.Loader):
    """Wraps a module's own loader and calls the hooks after its exec_module."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        for hook in _PENDING.pop(self.name, []):
            hook(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, is_package, ...
        return getattr(self.inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _PENDING:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, fullname)
        return spec


_FINDER = _Finder()


# Hooks of modules a warm server imported ahead (dynamo_preimport), held from `hold` to
# `release`: a capture without the pre-import runs them when the file first imports the
# module, after the capture's own patches of torch are in place and seen by the import.
_HELD: list[tuple[Callable[[Any], None], Any]] | None = None
_HELD_NAMES: frozenset[str] = frozenset()


def hold(names: tuple[str, ...]) -> None:
    """Until `release`, a hook of a module in `names` that is imported already waits."""
    global _HELD, _HELD_NAMES
    _HELD, _HELD_NAMES = [], frozenset(names)


def release() -> None:
    """Run the held hooks, in the order they were asked for; hooks run at once again."""
    global _HELD, _HELD_NAMES
    held, _HELD, _HELD_NAMES = _HELD or [], None, frozenset()
    for hook, module in held:
        hook(module)


def after_import(name: str, hook: Callable[[Any], None]) -> None:
    """Call `hook(module)` once `name` is imported (now, if it is already)."""
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__spec__", None) is not None:
        if _HELD is not None and name in _HELD_NAMES:
            _HELD.append((hook, module))
            return
        hook(module)
        return
    _PENDING.setdefault(name, []).append(hook)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
