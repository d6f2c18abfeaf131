"""torch._dynamo, imported only when a capture needs more than its light parts.

Meta kernels of many ops are Python references wrapped in torch._compile's
`_disable_dynamo`, which imports torch._dynamo on first use: 1.2 s on this kind of
machine, for a decorator that only has to call the function. The stand-in put in
`sys.modules["torch._dynamo"]` answers `disable` and `is_compiling` itself and is a
package whose path is the real one, so `import torch._dynamo.config` (FakeTensorMode's
settings) loads just that light submodule. Any other submodule import
(`import torch._dynamo.utils`, what Inductor's output modules and Helion do) or attribute
(torch.compile's) loads the real package first, in its own order (its submodules import
each other circularly), puts it in its place and delegates from then on.

Runs only inside the capture worker.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import os
import sys
import types
from typing import Any

# Submodules that import nothing else of torch._dynamo: loaded on their own.
LIGHT_SUBMODULES = frozenset({"config"})


class DeferredDynamo(types.ModuleType):
    """The stand-in package (see the module docstring)."""

    def __init__(self, real_dir: str) -> None:
        super().__init__("torch._dynamo")
        self.__path__ = [real_dir]
        self.__package__ = "torch._dynamo"
        self._real: Any = None
        self._dir = real_dir

    def disable(self, fn: Any = None, recursive: bool = True, **kwargs: Any) -> Any:
        # torch's own helpers (torch._compile's `_disable_dynamo` around meta kernels,
        # decorators run at torch's import) only need their function called: for them
        # dynamo is not loaded. A file's or a library's `torch._dynamo.disable(f)` or
        # `torch.compiler.disable(f)` is a promise about later compiles: dynamo must not
        # trace f (VQ-VAE-2's `qm.forward = torch._dynamo.disable(qm.forward)`, corpus 19:
        # the codebook update was traced into the compiled graph, 141 kernels the GPU
        # never made, at exit 0)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("torch.") and caller != "torch.compiler":
            return fn if fn is not None else (lambda f: f)
        if fn is None:
            return lambda f: self.disable(f, recursive, **kwargs)
        if self._real is not None or not callable(fn) or isinstance(fn, type):
            return real().disable(fn, recursive, **kwargs)
        return _disabled_when_dynamo_loads(self, fn, recursive, kwargs)

    @staticmethod
    def is_compiling() -> bool:
        return False

    def _submodule(self, name: str) -> Any:
        """torch._dynamo.<name> for a light submodule, loaded on its own."""
        if name in LIGHT_SUBMODULES:
            return importlib.import_module(f"torch._dynamo.{name}")
        return None

    def __getattr__(self, name: str) -> Any:
        if self._real is None and name.startswith("__") and name.endswith("__"):
            # inspect.getmodule() asks every module in sys.modules for __file__: that
            # must not import the real torch._dynamo in the middle of another import
            # (torch.distributed.tensor's, through custom-op registration: a circular
            # import seen with flash-linear-attention)
            raise AttributeError(name)
        if self._real is None:
            current = sys.modules.get("torch._dynamo")
            if current is not None and current is not self:
                # the real module is being imported (its own submodules reach the stub
                # through an early reference): answer from it, never import it twice
                return getattr(current, name)
            sub = self._submodule(name)
            if sub is not None:
                return sub
            self._load_real()
        return getattr(self._real, name)

    def _load_real(self) -> None:
        import torch

        del sys.modules["torch._dynamo"]
        try:
            self._real = importlib.import_module("torch._dynamo")
        except BaseException:
            sys.modules.setdefault("torch._dynamo", self)
            raise
        torch._dynamo = self._real


def _disabled_when_dynamo_loads(stub: DeferredDynamo, fn: Any, recursive: bool, kwargs: dict) -> Any:
    """`torch._dynamo.disable(fn)` before dynamo is loaded: fn itself while nothing can
    compile, the real disabled function once dynamo is loaded. Marked as dynamo marks its
    own (`_torchdynamo_disable`), so a frame dynamo traces does not inline it: the graph
    breaks at the call and the call runs with dynamo off, as on a GPU."""
    resolved: list[Any] = []

    @functools.wraps(fn)
    def call(*args: Any, **kw: Any) -> Any:
        if stub._real is None:  # (the real package, once loaded, is the stand-in's)
            return fn(*args, **kw)
        if not resolved:
            resolved.append(stub._real.disable(fn, recursive, **kwargs))
        return resolved[0](*args, **kw)

    call._torchdynamo_disable = True  # type: ignore[attr-defined]
    call._torchdynamo_disable_msg = kwargs.get("reason")  # type: ignore[attr-defined]
    call._torchdynamo_orig_callable = fn  # type: ignore[attr-defined]
    call._torchdynamo_disable_recursive = recursive  # type: ignore[attr-defined]
    return call


class _Loaded(importlib.abc.Loader):
    """A loader that hands back a module imported already (and its own spec)."""

    def __init__(self, module: Any, spec: Any) -> None:
        self.module = module
        self.spec = spec

    def create_module(self, spec: Any) -> Any:
        return self.module

    def exec_module(self, module: Any) -> None:
        module.__spec__ = self.spec


class _RealFirst(importlib.abc.MetaPathFinder):
    """`import torch._dynamo.<heavy submodule>` while the stand-in is in place: the real
    package is loaded first, then the submodule as the real package's own."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if not fullname.startswith("torch._dynamo."):
            return None
        stub = sys.modules.get("torch._dynamo")
        if not isinstance(stub, DeferredDynamo) or stub._real is not None:
            return None
        if fullname.split(".")[2] in LIGHT_SUBMODULES:
            return None
        stub._load_real()
        module = importlib.import_module(fullname)
        # A module imported while its finder ran is loaded again from its own __spec__
        # (importlib's _find_spec): a second torch._dynamo.utils, whose orig_code_map and
        # counters were not the ones dynamo's other modules fill. Without a spec for the
        # moment, the import takes this spec, whose loader hands the module back and gives
        # its spec back.
        spec = importlib.util.spec_from_loader(fullname, _Loaded(module, module.__spec__))
        module.__spec__ = None
        return spec


def install() -> None:
    """Put the stand-in in place, unless torch._dynamo is imported already."""
    import torch

    if "torch._dynamo" not in sys.modules:
        stub = DeferredDynamo(os.path.join(os.path.dirname(torch.__file__), "_dynamo"))
        sys.modules["torch._dynamo"] = stub
        torch._dynamo = stub
        sys.meta_path.insert(0, _RealFirst())


def real() -> Any:
    """The real torch._dynamo package (imported now if the stand-in is in place)."""
    module = sys.modules.get("torch._dynamo")
    if isinstance(module, DeferredDynamo):
        if module._real is None:
            module._load_real()
        return module._real
    return importlib.import_module("torch._dynamo")
