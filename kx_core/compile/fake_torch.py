"""Torch without a GPU and without data, for capture.

The user's file creates tensors on 'cuda' (or on `driver.active.get_active_torch_device()`),
slices and transposes them, and launches kernels. In the worker every tensor is a
FakeTensor (no storage) on the meta device: a CPU-only torch cannot make views of fake
*cuda* tensors ("PyTorch is not linked with support for cuda devices"), while meta views
work everywhere and keep shapes, strides, dtypes and storage offsets exact.

`data_ptr()` of such a tensor is an aligned base plus storage_offset * itemsize, so
Triton's divisibility-by-16 specialisation sees what a real launch would: aligned for a
fresh allocation, unaligned for `x[1:]`.

Where the file needs real values (assert_close, .item(), timing) a `NeedsRealData` or
torch's `DataDependentOutputException` stops it; the worker reports that as a `runtime`
diagnostic after the kernels already captured.
"""

from __future__ import annotations

import warnings
from typing import Any

from kx_core.compile.capture_driver import NeedsRealData
from kx_core.compile.types import Target

# A fake allocation base: 2 MiB aligned like the CUDA caching allocator's large blocks.
FAKE_BASE_ADDRESS = 0x7F00_0000_0000


def _is_gpu_device(device: Any) -> bool:
    text = str(device)
    return text.startswith("cuda") or text.startswith("hip")


def install(target: Target) -> list[Any]:
    """Enter FakeTensorMode and the cuda->meta device mode; patch torch.cuda and the
    data-comparing helpers. Returns the entered modes (kept alive for the process)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    from torch.overrides import TorchFunctionMode

    warnings.filterwarnings("ignore", message=".*data pointer of FakeTensor.*")
    meta = torch.device("meta")

    def to_meta(value: Any) -> Any:
        return meta if _is_gpu_device(value) else value

    class MetaDeviceMode(TorchFunctionMode):
        """Rewrites every GPU device argument to meta."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if "device" in kwargs:
                kwargs["device"] = to_meta(kwargs["device"])
            name = getattr(func, "__name__", "")
            if name == "cuda" and args and isinstance(args[0], torch.Tensor):
                return args[0].to(meta)
            if name in ("to", "new_empty", "new_zeros", "new_ones", "new_full"):
                args = tuple(to_meta(a) if isinstance(a, (str, torch.device)) else a for a in args)
            return func(*args, **kwargs)

    def fake_data_ptr(self: Any) -> int:
        return FAKE_BASE_ADDRESS + self.storage_offset() * self.element_size()

    FakeTensor.data_ptr = fake_data_ptr  # type: ignore[method-assign]

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

    fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    device_mode = MetaDeviceMode()
    fake_mode.__enter__()
    device_mode.__enter__()
    return [fake_mode, device_mode]


def patch_triton_testing() -> None:
    """Make Triton's timing helpers stop the file like any other need for real data."""
    import triton.testing as tt

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NeedsRealData("triton.testing.do_bench needs a real GPU run")

    tt.do_bench = refuse
    if hasattr(tt, "do_bench_cudagraph"):
        tt.do_bench_cudagraph = refuse
