"""The script one shape of a sweep runs: the user's file imported as a module, the
kernel's configs set (or its own kept), and the file's entry function called with the
shape. kx's capture runs it as `__main__` (compile side, no GPU needed); the measuring
worker calls `load` and `set_configs` itself, in its own process."""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import os
import sys
from typing import Any

from kx_core.sweep.space import ConfigSpec, SpaceError

_loaded = itertools.count()


def load(path: str):
    """Import the file under a fresh module name (its __main__ block does not run), its
    folder first on sys.path as `python FILE` would have it."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = f"kx_sweep_{os.path.splitext(os.path.basename(path))[0]}_{next(_loaded)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return module


def entry_of(module, shape: dict[str, int], name: str | None):
    """The function a shape is given to: `name`, or the one function whose required
    parameters the shape's names cover (and all of whose parameters the names are)."""
    if name:
        fn = getattr(module, name, None)
        if not callable(fn):
            raise SpaceError(f"the file has no function {name!r} to call with the shape")
        return fn
    keys = set(shape)
    found = []
    for attr, fn in vars(module).items():
        if not inspect.isfunction(fn) or fn.__module__ != module.__name__ or attr.startswith("_"):
            continue
        params = inspect.signature(fn).parameters.values()
        required = {
            p.name
            for p in params
            if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        }
        names = {p.name for p in params}
        if required and required <= keys <= names:
            found.append(attr)
    if len(found) != 1:
        which = f"several ({', '.join(found)})" if found else "none"
        raise SpaceError(
            f"the shape's names ({', '.join(shape)}) fit {which} of the file's functions: name the one to call with --entry"
        )
    return getattr(module, found[0])


def set_configs(module, kernel: str, specs: list[ConfigSpec] | None):
    """Give the kernel `specs` as its autotune configs (None: keep its own); returns the
    Autotuner. A plain @triton.jit kernel is wrapped in one (its launches must then leave
    the meta-parameters to the configs)."""
    import triton
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    obj = getattr(module, kernel, None)
    if obj is None:
        raise SpaceError(f"the file has no kernel named {kernel!r}")
    if not isinstance(obj, Autotuner | JITFunction):
        raise SpaceError(f"{kernel!r} is not a Triton kernel (a @triton.jit or @triton.autotune function)")
    if not isinstance(obj, Autotuner):
        if specs is None:
            raise SpaceError(f"{kernel} is not autotuned: give it a space with --space KEY=V1,V2;...")
        obj = triton.autotune(configs=[triton.Config(**s.triton_kwargs()) for s in specs], key=[])(obj)
        setattr(module, kernel, obj)  # the file's wrapper looks the kernel up by this name
    elif specs is not None:
        obj.configs = [triton.Config(**s.triton_kwargs()) for s in specs]
    return obj


def caller(module, shape: dict[str, int], entry: str | None, call: dict | None):
    """What one shape's run calls: the entry function with the shape, or the wrapper the
    plan found with tensors made at its sizes (kx_core.sweep.calls)."""
    if call is None:
        fn = entry_of(module, shape, entry)
        return lambda: fn(**shape)
    from kx_core.sweep.calls import WrapperCall, make_arguments

    planned = WrapperCall.from_json(call)
    fn = getattr(module, planned.function, None)
    if not callable(fn):
        raise SpaceError(f"the file has no function {planned.function!r} to call")
    arguments = make_arguments(planned)
    return lambda: fn(**arguments)


def run_shape(
    path: str,
    kernel: str,
    entry: str | None,
    shape: dict[str, int],
    specs: list[dict] | None,
    call: dict | None = None,
) -> Any:
    module = load(path)
    set_configs(module, kernel, None if specs is None else [ConfigSpec(**s) for s in specs])
    return caller(module, shape, entry, call)()


def script(
    path: str,
    kernel: str,
    entry: str | None,
    shape: dict[str, int],
    specs: list[ConfigSpec] | None,
    call: dict | None = None,
) -> str:
    """The text of the driver for one shape."""
    configs = None if specs is None else [s.to_json() for s in specs]
    return (
        f"# kx sweep: {os.path.basename(path)} at {json.dumps(shape)} (generated by kx_core/sweep/driver.py)\n"
        "from kx_core.sweep.driver import run_shape\n\n"
        f"run_shape({path!r}, {kernel!r}, {entry!r}, {shape!r}, {configs!r}, {call!r})\n"
    )
