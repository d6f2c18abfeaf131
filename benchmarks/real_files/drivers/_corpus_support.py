"""Import helpers for the public-file corpus drivers (kx's own code, no upstream code).

Some upstream packages run heavy or absent dependencies from their top-level
`__init__.py` (transformers models, bitsandbytes, unsloth_zoo). A user on a
training box has those installed; the corpus must run with torch + triton only.
These helpers let a driver import the *kernel* modules exactly as upstream wrote them:

- `bare_package(name, path)` registers a package without executing its `__init__.py`,
  so `import pkg.sub.module` loads only `module` and what it imports itself.
- `stub_module(name, **attrs)` puts a minimal stand-in for an absent dependency in
  `sys.modules` (with a proper `__spec__`, so `importlib.util.find_spec` still works).

Upstream sources are found on `sys.path` (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import sys
import types


def find_on_path(rel: str) -> str:
    """The first `<sys.path entry>/<rel>` folder that exists."""
    for entry in sys.path:
        cand = os.path.join(entry or os.getcwd(), rel)
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    raise ImportError(
        f"{rel!r} is not under any sys.path entry; set PYTHONPATH as benchmarks/real_files/manifest.json says"
    )


def bare_package(name: str, path: str) -> types.ModuleType:
    """Register package `name` at folder `path` without running its __init__.py."""
    if name in sys.modules:
        return sys.modules[name]
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__package__ = name
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [path]
    mod.__spec__ = spec
    sys.modules[name] = mod
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, mod)
    return mod


def stub_module(name: str, **attrs) -> types.ModuleType:
    """A stand-in module (and stand-in parents) for a dependency that is not installed."""
    parent, _, child = name.rpartition(".")
    if parent and parent not in sys.modules:
        stub_module(parent)
    mod = sys.modules.get(name)
    if mod is None:
        mod = types.ModuleType(name)
        mod.__path__ = []  # may have stubbed submodules
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        mod.__kx_stub__ = True
        sys.modules[name] = mod
        if parent:
            setattr(sys.modules[parent], child, mod)
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def _noop(*args, **kwargs):
    return None


def _identity_decorator(fn=None, **kwargs):
    if fn is None:
        return lambda f: f
    return fn


class _AnyAttr:
    """`lib.cdequantize_blockwise_fp32` and friends: present, never called here."""

    def __getattr__(self, name):
        return None


def unsloth_kernels() -> None:
    """Make `import unsloth.kernels.<op>` work with torch + triton only.

    Skips unsloth/__init__.py and unsloth/kernels/__init__.py (they patch transformers
    and import every kernel), and stubs the names the kernel modules import from
    unsloth_zoo, bitsandbytes and transformers at module level. The Triton code, the
    launch wrappers and unsloth/device_type.py run unchanged.
    """
    import torch
    from packaging.version import Version

    kernels = find_on_path(os.path.join("unsloth", "kernels"))
    bare_package("unsloth", os.path.dirname(kernels))
    bare_package("unsloth.kernels", kernels)

    stub_module("unsloth_zoo.utils", Version=Version)
    stub_module("unsloth_zoo.log", logger=logging.getLogger("unsloth_zoo"))
    stub_module("unsloth_zoo.temporary_patches.common", torch_compile=_identity_decorator)
    stub_module("unsloth_zoo.loss_utils", patch_loss_functions=_noop, post_patch_loss_function=_noop)
    stub_module("unsloth_zoo.patching_utils", patch_layernorm=_noop)

    stub_module("bitsandbytes", __version__="0.45.5")
    stub_module("bitsandbytes.functional", get_ptr=_noop, lib=_AnyAttr())

    class LlamaRMSNorm(torch.nn.Module):  # what unsloth subclasses at import time
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(hidden_size))
            self.variance_epsilon = eps

    stub_module(
        "transformers.models.llama.modeling_llama",
        LlamaRMSNorm=LlamaRMSNorm,
        logger=logging.getLogger("transformers"),
    )


def fla_package() -> None:
    """Make `from fla.ops.<op> import ...` work without fla/__init__.py, which imports
    every layer and model (transformers). fla.ops / fla.modules / fla.utils run as is."""
    bare_package("fla", find_on_path("fla"))
