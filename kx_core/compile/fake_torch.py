"""Torch without a GPU and without data, for capture.

The user's file creates tensors on 'cuda' (or on `driver.active.get_active_torch_device()`),
slices and transposes them, and launches kernels. In the worker those tensors live on
torch's meta device: no storage, but exact shapes, strides, dtypes and storage offsets,
and views work on every torch build.

Why meta tensors and not `FakeTensorMode`: FakeTensorMode imports torch._dynamo, 1.7 s
of every capture on a 2-core machine (more than compiling a small kernel), and on a
CPU-only torch it cannot even slice a fake *cuda* tensor ("PyTorch is not linked with
support for cuda devices"). Meta tensors cost nothing and refuse data access the same
way (`.item()`, `.cpu()`, `.tolist()` raise).

- GPU devices ('cuda', 'cuda:0', torch.device('cuda'), `.cuda()`) become meta; tensors
  made with no device are meta too; an explicit device='cpu' stays a real CPU tensor.
- `data_ptr()` of a meta tensor is an aligned base plus storage_offset * itemsize, so
  Triton's divisibility-by-16 specialisation sees what a real launch would: aligned for
  a fresh allocation, unaligned for a view that starts 4 bytes in.
- Where the file needs real values (assert_close, .item(), timing) a `NeedsRealData`
  or torch's own error stops it; the worker reports a `runtime` diagnostic after the
  kernels already captured.
"""

from __future__ import annotations

import types
from typing import Any

from kx_core.compile.capture_driver import NeedsRealData
from kx_core.compile.types import Target

# A fake allocation base: 2 MiB aligned like the CUDA caching allocator's large blocks.
FAKE_BASE_ADDRESS = 0x7F00_0000_0000


def _is_gpu_device(device: Any) -> bool:
    text = str(device)
    return text.startswith("cuda") or text.startswith("hip")


class _DeferredDynamo(types.ModuleType):
    """Stands in for torch._dynamo until something needs more than `disable`.

    Meta kernels of many ops are Python references wrapped in torch._compile's
    `_disable_dynamo`, which imports torch._dynamo on first use: 1.2 s on this kind of
    machine, for a decorator that only has to call the function. This stand-in answers
    `disable` and `is_compiling` itself; any other attribute imports the real module,
    puts it in its place and delegates from then on."""

    def __init__(self) -> None:
        super().__init__("torch._dynamo")
        self._real: Any = None

    @staticmethod
    def disable(fn: Any = None, recursive: bool = True, **kwargs: Any) -> Any:
        return fn if fn is not None else (lambda f: f)

    @staticmethod
    def is_compiling() -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        if self._real is None:
            import importlib
            import sys

            import torch

            del sys.modules["torch._dynamo"]
            self._real = importlib.import_module("torch._dynamo")
            torch._dynamo = self._real
        return getattr(self._real, name)


def _defer_dynamo() -> None:
    import sys

    import torch

    if "torch._dynamo" not in sys.modules:
        stub = _DeferredDynamo()
        sys.modules["torch._dynamo"] = stub
        torch._dynamo = stub


def install(target: Target) -> list[Any]:
    """Make GPU and default tensors meta tensors; patch torch.cuda and the
    data-comparing helpers. Returns the entered modes (kept alive for the process)."""
    import torch
    from torch.overrides import TorchFunctionMode

    _defer_dynamo()
    meta = torch.device("meta")

    def to_meta(value: Any) -> Any:
        return meta if _is_gpu_device(value) else value

    like_factories = {
        torch.empty_like,
        torch.zeros_like,
        torch.ones_like,
        torch.rand_like,
        torch.randn_like,
        torch.full_like,
    }

    def meta_like(x: torch.Tensor, kwargs: dict) -> torch.Tensor:
        # torch's meta *_like ops are Python references that import sympy (0.5 s) on
        # first use; empty_strided has a C++ meta kernel and gives the same tensor.
        dense = getattr(x, "is_non_overlapping_and_dense", lambda: x.is_contiguous())()
        stride = x.stride() if dense else torch.empty(x.shape, device=meta).stride()
        return torch.empty_strided(x.shape, stride, dtype=kwargs.get("dtype") or x.dtype, device=meta)

    class MetaDeviceMode(TorchFunctionMode):
        """Rewrites every GPU device argument to meta."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if "device" in kwargs:
                kwargs["device"] = to_meta(kwargs["device"])
            if func in like_factories and args and isinstance(args[0], torch.Tensor):
                if kwargs.get("device", args[0].device) == meta and kwargs.get("layout") is None:
                    return meta_like(args[0], kwargs)
            name = getattr(func, "__name__", "")
            if name == "cuda" and args and isinstance(args[0], torch.Tensor):
                return args[0].to(meta)
            if name in ("to", "new_empty", "new_zeros", "new_ones", "new_full"):
                args = tuple(to_meta(a) if isinstance(a, (str, torch.device)) else a for a in args)
            return func(*args, **kwargs)

    real_data_ptr = torch.Tensor.data_ptr

    def data_ptr(self: torch.Tensor) -> int:
        if self.is_meta:
            return FAKE_BASE_ADDRESS + self.storage_offset() * self.element_size()
        return real_data_ptr(self)

    torch.Tensor.data_ptr = data_ptr  # type: ignore[method-assign]

    def refuse(what: str):
        def raiser(*args: Any, **kwargs: Any) -> Any:
            raise NeedsRealData(f"{what} needs real data; capture runs kernels on no data")

        return raiser

    major, minor = divmod(int(target.arch), 10) if target.backend == "cuda" else (9, 4)
    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.set_device = lambda device: None
    cuda.synchronize = lambda device=None: None
    cuda.empty_cache = lambda: None
    cuda.manual_seed = lambda seed: None
    cuda.manual_seed_all = lambda seed: None
    cuda.get_device_capability = lambda device=None: (major, minor)
    cuda.get_device_name = lambda device=None: f"kx capture ({target.spec})"
    cuda.Event = refuse("torch.cuda.Event (timing)")
    cuda.Stream = refuse("torch.cuda.Stream")
    cuda.CUDAGraph = refuse("torch.cuda.CUDAGraph")
    torch.testing.assert_close = refuse("torch.testing.assert_close")

    torch.set_default_device(meta)
    device_mode = MetaDeviceMode()
    device_mode.__enter__()
    return [device_mode]


def patch_triton_testing() -> None:
    """Make Triton's timing helpers stop the file like any other need for real data."""
    import triton.testing as tt

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NeedsRealData("triton.testing.do_bench needs a real GPU run")

    tt.do_bench = refuse
    if hasattr(tt, "do_bench_cudagraph"):
        tt.do_bench_cudagraph = refuse
