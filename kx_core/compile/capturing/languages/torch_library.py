"""Ops registered through torch.library run their GPU implementation on capture tensors.

A library's Triton kernels are often behind an operator: `torch.library.custom_op`
(with or without `register_fake`), `torch.library.triton_op` + `wrap_triton`,
`Library.impl(op, fn, "CUDA")` (vLLM, gemlite, FlagGems, flash-attention's rotary).
On a GPU the dispatcher sends a CUDA tensor to the implementation registered for
'CUDA' (or 'CompositeExplicitAutograd'), which launches the kernels. Capture tensors
are meta tensors, and the dispatcher sends them to the op's 'Meta' kernel, which for a
custom op is its fake implementation: shapes only, no launch. So under capture:

- every Python implementation registered for a GPU key is remembered (`GPU_IMPLS`);
- the Meta kernel torch builds from a fake implementation first calls that GPU
  implementation when there is one (FakeTensorMode itself, which torch.compile uses,
  still reads the fake: tracing sees shapes as on a real run);
- an op with a CUDA implementation and no Meta kernel gets one that calls it, and a
  later `register_fake` may replace it without the "already has a Meta kernel" error a
  real run would not raise; a Meta kernel the library registers itself (a shape
  function) calls the GPU implementation too, once there is one;
- a Python implementation for every backend ('CompositeImplicitAutograd', torch.library's
  default key) runs with the capture's mode on, as a GPU implementation does;
- an aten op (FlagGems registers its Triton kernels for aten ops under 'CUDA') has a
  C++ Meta kernel; the Python implementation is registered for 'Meta' too, as before.

A kernel language of its own to kx (records/languages.py: "torch_library"), whose capture
applies to every file: an op may be registered by a library the file imports. The worker
calls `install` before the file is imported or run (capturing/languages/__init__.py).

Runs only inside the capture worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kx_core.compile.capturing.device import fake_torch
from kx_core.records.results import Target

# Dispatch keys whose Python kernels are what a GPU tensor runs.
GPU_KEYS = frozenset({"CUDA", "HIP", "CompositeExplicitAutograd"})
# For aten ops, the key capture tensors dispatch on for each GPU key.
_GPU_TO_META_KEYS = {"CUDA": "Meta", "AutogradCUDA": "AutogradMeta", "HIP": "Meta"}

# "ns::op" or "ns::op.overload" -> the Python implementation a GPU tensor would run
GPU_IMPLS: dict[str, Callable[..., Any]] = {}
# ops whose Meta kernel is kx's own (a register_fake may replace it)
KX_META: set[str] = set()


def call_gpu_impl(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """The GPU implementation, called with the capture's torch function mode on: the
    dispatcher calls an op's kernel inside the mode's handler, where the mode is off, and
    the library's Python (which allocates, reads data and launches) must run on the
    capture device."""
    return fake_torch.with_capture_mode(fn, args, kwargs)


def qualified_name(library: Any, op_name: Any) -> str:
    """'ns::op' ('ns::op.overload' for a non-default overload) of an impl registration."""
    schema = getattr(op_name, "_schema", None)
    if schema is not None:  # an OpOverload
        overload = schema.overload_name
        return schema.name + (f".{overload}" if overload and overload != "default" else "")
    text = str(op_name)
    if "::" not in text:
        text = f"{library.ns}::{text}"
    return text.removesuffix(".default")


def gpu_impl(qualname: str) -> Callable[..., Any] | None:
    return GPU_IMPLS.get(qualname.removesuffix(".default"))


def install(target: Target, path: str) -> None:
    """Before the file is imported or run (the language protocol's `install`): every GPU
    implementation registered from now on is remembered, and capture tensors run it."""
    import torch

    from kx_core.compile.capturing.import_hooks import after_import

    _patch_library_impl(torch)
    _patch_fake_registration()
    after_import("torch._higher_order_ops.triton_kernel_wrap", _wrapped_kernels_launch)


def _wrapped_kernels_launch(module: Any) -> None:
    """`wrap_triton(kernel)[grid](...)` outside tracing is the higher-order op
    triton_kernel_wrapper_mutation, which launches the kernel for a GPU tensor and does
    nothing for a meta one: capture tensors get the GPU's implementation."""
    from torch._C import DispatchKey

    hop = getattr(module, "triton_kernel_wrapper_mutation", None)
    kernels = getattr(hop, "py_kernels", None)
    if kernels is None or DispatchKey.CompositeExplicitAutograd not in kernels:
        return
    kernels[DispatchKey.Meta] = kernels[DispatchKey.CompositeExplicitAutograd]
    cache = getattr(hop, "_dispatch_cache", None)
    if hasattr(cache, "clear"):
        cache.clear()


def _patch_library_impl(torch: Any) -> None:
    import inspect

    original = torch.library.Library.impl
    fallthrough = getattr(torch.library, "fallthrough_kernel", None)
    override = {"allow_override": True} if "allow_override" in inspect.signature(original).parameters else {}
    own: dict[str, Any] = {}  # namespace -> kx's own Library, for kx's Meta kernels

    def register_kx_meta(name: str) -> None:
        """A Meta kernel of kx's (through a Library of its own) that calls the GPU
        implementation, forgotten by torch.library's Python-side registry so the library
        may still register its own Meta kernel (torch 2.11 refuses a second one)."""
        ns, _, op = name.partition("::")
        if ns not in own:
            own[ns] = torch.library.Library(ns, "IMPL")
        original(own[ns], op, _calls_gpu_impl(name), "Meta", **override)
        getattr(torch.library, "_impls", set()).discard(f"{ns}/{op}/Meta")
        KX_META.add(name)

    def impl(self: Any, op_name: Any, fn: Any, dispatch_key: str = "", *args: Any, **kwargs: Any) -> Any:
        key = dispatch_key or getattr(self, "dispatch_key", "")
        if self.ns == "aten" and key in _GPU_TO_META_KEYS:
            # the op's C++ meta kernel would answer capture tensors: the library's own
            # implementation must (FlagGems' use_gems)
            try:
                # (torch registers Python meta kernels for many aten ops itself: override)
                meta_kwargs = {**kwargs, **override}
                out = original(self, op_name, _with_mode(fn), _GPU_TO_META_KEYS[key], *args, **meta_kwargs)
                # forgotten by torch.library's Python-side registry, as kx's other Meta
                # kernels are: the library may still register its own (torch's jagged
                # NestedTensor registers `_nested_get_jagged_dummy` for CUDA then Meta,
                # which torch 2.11 refused: "already a kernel registered from python")
                getattr(torch.library, "_impls", set()).discard(
                    f"{self.ns}/{_registry_name(op_name)}/{_GPU_TO_META_KEYS[key]}"
                )
                return out
            except RuntimeError:
                # torch refuses some meta registrations (an op without a default
                # overload, or a composite one): keep the GPU registration for those
                pass
        if (
            key in ("", "CompositeImplicitAutograd")
            and self.ns != "aten"
            and fn is not fallthrough
            and not kwargs.get("with_keyset")
        ):
            # the op's implementation for every backend: a GPU tensor runs this Python body
            # (reads on the host, masks, launches), so capture tensors run it with the
            # capture's mode on, as a CUDA implementation (the dispatcher calls it inside
            # kx's handler of the op, where the mode is off: a read reached ATen on meta)
            fn = _with_mode(fn)
        if key == "Meta" and self.ns != "aten" and fn is not fallthrough and not kwargs.get("with_keyset"):
            # a library's own shape function (torchao registers one beside its CUDA
            # kernel): the GPU implementation, once there is one, runs instead
            fn = _prefers_gpu_impl(qualified_name(self, op_name), fn)
        out = original(self, op_name, fn, dispatch_key, *args, **kwargs)
        if key in GPU_KEYS and fn is not fallthrough and not kwargs.get("with_keyset") and self.ns != "aten":
            name = qualified_name(self, op_name)
            GPU_IMPLS[name] = fn
            if key != "CompositeExplicitAutograd" and not torch._C._dispatch_has_kernel_for_dispatch_key(
                name, "Meta"
            ):
                # (a CompositeExplicitAutograd kernel serves Meta already)
                register_kx_meta(name)
        return out

    torch.library.Library.impl = impl


def _registry_name(op_name: Any) -> str:
    """The op's name as torch.library's Python-side registry keys it ("div.Tensor", or an
    OpOverload's schema name and overload, ".default" included), without its namespace."""
    schema = getattr(op_name, "_schema", None)
    if schema is None:
        return str(op_name).split("::")[-1]
    name = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
    return name.split("::")[-1]


def _prefers_gpu_impl(name: str, meta_fn: Callable[..., Any]) -> Callable[..., Any]:
    def meta_kernel(*args: Any, **kwargs: Any) -> Any:
        real = gpu_impl(name)
        return call_gpu_impl(real, args, kwargs) if real is not None else meta_fn(*args, **kwargs)

    return meta_kernel


def _with_mode(fn: Callable[..., Any]) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return call_gpu_impl(fn, args, kwargs)

    return kernel


def _calls_gpu_impl(name: str) -> Callable[..., Any]:
    def meta_kernel(*args: Any, **kwargs: Any) -> Any:
        return call_gpu_impl(GPU_IMPLS[name], args, kwargs)

    return meta_kernel


def _patch_fake_registration() -> None:
    try:
        from torch._library import fake_impl
    except ImportError:  # a torch without torch.library's fake registry
        return
    original_construct = fake_impl.construct_meta_kernel
    original_register = fake_impl.FakeImplHolder.register

    def construct_meta_kernel(qualname: str, holder: Any) -> Callable[..., Any]:
        fake = original_construct(qualname, holder)

        def meta_kernel(*args: Any, **kwargs: Any) -> Any:
            real = gpu_impl(qualname)
            return call_gpu_impl(real, args, kwargs) if real is not None else fake(*args, **kwargs)

        return meta_kernel

    import inspect

    takes_override = "allow_override" in inspect.signature(original_register).parameters

    def register(self: Any, *args: Any, **kwargs: Any) -> Any:
        if takes_override and self.qualname.removesuffix(".default") in KX_META:
            kwargs["allow_override"] = True
        return original_register(self, *args, **kwargs)

    fake_impl.construct_meta_kernel = construct_meta_kernel
    fake_impl.FakeImplHolder.register = register
