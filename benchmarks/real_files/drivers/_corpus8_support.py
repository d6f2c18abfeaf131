"""Import helpers and stand-ins for fresh corpus 8's drivers (kx's own code, no upstream code).

Self-contained (no other support module is imported). Every stand-in here is used whether or
not the real package is installed, so a driver runs the same on any machine: no download, no
hub, no installed-version drift. Upstream sources are found on sys.path (the manifest's
"pythonpath" puts the `.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
import sys
import types


def small() -> bool:
    return os.environ.get("KX_CORPUS_SMALL", "0") == "1"


def pick(real, toy):
    """`real` by default, `toy` under KX_CORPUS_SMALL=1."""
    return toy if small() else real


def find_on_path(rel: str) -> str:
    """The first `<sys.path entry>/<rel>` folder that exists."""
    for entry in sys.path:
        cand = os.path.join(entry or os.getcwd(), rel)
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    raise ImportError(f"{rel!r} is not under any sys.path entry; set PYTHONPATH as the manifest says")


def bare_package(name: str, path: str | None = None) -> types.ModuleType:
    """Register package `name` (folder `path`, found on sys.path by default) without running its
    __init__.py, so `import name.sub.module` loads only that module and what it imports. Parents
    are registered bare too."""
    if name in sys.modules:
        return sys.modules[name]
    if "." in name:
        bare_package(name.rpartition(".")[0])
    if path is None:
        path = find_on_path(name.replace(".", os.sep))
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__file__ = os.path.join(path, "__init__.py")
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    mod.__spec__.submodule_search_locations = [path]
    sys.modules[name] = mod
    if "." in name:
        parent, _, child = name.rpartition(".")
        setattr(sys.modules[parent], child, mod)
    return mod


def stub_module(name: str, **attrs) -> types.ModuleType:
    """A minimal module `name` in sys.modules (with a __spec__, so find_spec works)."""
    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    if "." in name:
        parent, _, child = name.rpartition(".")
        if parent not in sys.modules:
            stub_module(parent)
        sys.modules[parent].__path__ = getattr(sys.modules[parent], "__path__", [])
        setattr(sys.modules[parent], child, mod)
    return mod


def unavailable(what):
    def f(*args, **kwargs):
        raise RuntimeError(f"{what} is a corpus stand-in and not used by this driver")

    return f


class _PassthroughModule(types.ModuleType):
    """A module whose every attribute is a callable returning an identity decorator (enough for a
    command-line module's @click.command() / @click.option(...) decorators at import time)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def factory(*args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]
            return lambda f: f

        return factory


def passthrough_module(name: str) -> types.ModuleType:
    mod = _PassthroughModule(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    sys.modules[name] = mod
    return mod


@contextlib.contextmanager
def quiet_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def install_fbgemm_jagged_standins() -> None:
    """Stand-ins (kx's code) for the three fbgemm_gpu operators generative-recommenders' code calls
    outside its Triton kernels: torch.ops.fbgemm.asynchronous_complete_cumsum (offsets from
    lengths, with the leading 0), jagged_to_padded_dense and dense_to_jagged. Registered once with
    torch.library as CompositeImplicitAutograd, so autograd runs through their torch bodies."""
    import torch

    if hasattr(sys.modules[__name__], "_FBGEMM_LIB"):
        return
    lib = torch.library.Library("fbgemm", "FRAGMENT")
    globals()["_FBGEMM_LIB"] = lib
    lib.define("asynchronous_complete_cumsum(Tensor t_in) -> Tensor")
    lib.define(
        "jagged_to_padded_dense(Tensor values, Tensor[] offsets, SymInt[] max_lengths, float padding_value=0.0) -> Tensor"
    )
    lib.define(
        "dense_to_jagged(Tensor dense, Tensor[] x_offsets, SymInt? total_L=None) -> (Tensor, Tensor[])"
    )

    def complete_cumsum(t_in):
        return torch.cat([t_in.new_zeros(1), torch.cumsum(t_in, 0).to(t_in.dtype)])

    def _positions(offsets, max_len):
        lengths = offsets[1:] - offsets[:-1]
        pos = torch.arange(max_len, device=offsets.device)
        valid = pos[None, :] < lengths[:, None]
        index = (offsets[:-1, None] + pos[None, :]).clamp(max=max(int(offsets[-1]) - 1, 0))
        return index, valid

    def jagged_to_padded_dense(values, offsets, max_lengths, padding_value=0.0):
        index, valid = _positions(offsets[0], max_lengths[0])
        dense = values[index.reshape(-1)].reshape(*index.shape, *values.shape[1:])
        mask = valid.reshape(*valid.shape, *([1] * (values.dim() - 1)))
        return torch.where(mask, dense, torch.full_like(dense, padding_value))

    def dense_to_jagged(dense, x_offsets, total_L=None):
        offsets = x_offsets[0]
        _, valid = _positions(offsets, dense.shape[1])
        return dense[valid], [offsets]

    lib.impl("asynchronous_complete_cumsum", complete_cumsum, "CompositeImplicitAutograd")
    lib.impl("jagged_to_padded_dense", jagged_to_padded_dense, "CompositeImplicitAutograd")
    lib.impl("dense_to_jagged", dense_to_jagged, "CompositeImplicitAutograd")


__all__ = [
    "bare_package",
    "install_fbgemm_jagged_standins",
    "find_on_path",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "small",
    "stub_module",
    "unavailable",
]
