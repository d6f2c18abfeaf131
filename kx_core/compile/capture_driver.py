"""A Triton driver that compiles for a chosen target and launches nothing.

Installed with `triton.runtime.driver.set_active(CaptureDriver(target))` inside the worker.
Triton asks the active driver for the target (so `tl` builtins and the backend see the
chosen GPU), for device properties (the shared-memory check a real load does) and for a
launcher; ours records the grid of each launch instead of running anything.

Runs only inside the worker process: imports triton lazily through the caller.
"""

from __future__ import annotations

import threading
from typing import Any

from kx_core.compile.types import Target

# Per-target device properties a real driver would report, for the checks Triton makes
# at load time. max_shared_mem is the opt-in maximum per block in bytes (CUDA C
# Programming Guide, "Compute capabilities" table: 163 KB on 8.0, 99 KB on 8.6/8.9/12.x,
# 227 KB on 9.0/10.x); SM counts are those of the flagship part of each arch (A100 108,
# RTX 3070 46, RTX 4090 128, H100 SXM 132, B200 148); MI300X: 304 CUs, 64 KB LDS.
_CUDA_PROPS = {
    80: (166912, 108),
    86: (101376, 46),
    87: (166912, 16),
    89: (101376, 128),
    90: (232448, 132),
    100: (232448, 148),
    120: (101376, 84),
}
_HIP_PROPS = {"gfx942": (65536, 304), "gfx90a": (65536, 110), "gfx950": (163840, 256)}


def device_properties(target: Target) -> dict[str, int]:
    """The dict `driver.active.utils.get_device_properties` returns on real hardware."""
    if target.backend == "hip":
        shared, sms = _HIP_PROPS.get(str(target.arch), (65536, 104))
    else:
        shared, sms = _CUDA_PROPS.get(int(target.arch), (49152, 80))
    return {
        "max_shared_mem": shared,
        "max_num_regs": 65536,
        "multiprocessor_count": sms,
        "warpSize": target.warp_size,
        "sm_clock_rate": 1_980_000,
        "mem_clock_rate": 2_619_000,
        "mem_bus_width": 5120,
    }


class LaunchLog(threading.local):
    """The grid of the most recent (fake) launch on this thread."""

    grid: tuple[int, int, int] | None = None


LAUNCH_LOG = LaunchLog()


class NeedsRealData(RuntimeError):
    """Raised where the file needs real results (a benchmark, a data comparison)."""


class CaptureLauncher:
    """Stands in for CudaLauncher/HIPLauncher: remembers the grid, runs nothing."""

    def __init__(self, src: Any, metadata: Any) -> None:
        self.name = getattr(metadata, "name", "kernel")

    def __call__(self, grid_x: int, grid_y: int, grid_z: int, *rest: Any) -> None:
        LAUNCH_LOG.grid = (int(grid_x), int(grid_y), int(grid_z))


class CaptureUtils:
    """Stands in for CudaUtils: properties from the table, no module loading."""

    def __init__(self, target: Target) -> None:
        self._props = device_properties(target)

    def get_device_properties(self, device: int) -> dict[str, int]:
        return dict(self._props)

    def load_binary(self, name: str, kernel: bytes, shared: int, device: int):
        # (module, function, n_regs, n_spills, n_max_threads): the register numbers come
        # from cuobjdump later; 1024 threads is every current GPU's per-block limit.
        return 0, 0, 0, 0, 1024

    def unload_module(self, module: Any) -> None:
        return None

    def set_printf_fifo_size(self, size: int) -> None:
        return None


def _refuse_benchmark(*args: Any, **kwargs: Any) -> Any:
    raise NeedsRealData("benchmarking needs a real GPU run (capture launches nothing)")


def make_capture_driver(target: Target):
    """Build the driver object. The class derives from Triton's DriverBase, so it is
    created here, after triton is importable, not at module import."""
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase

    gpu_target = GPUTarget(target.backend, target.arch, target.warp_size)
    arch = target.arch

    class CaptureDriver(DriverBase):
        def __init__(self) -> None:
            self.utils = CaptureUtils(target)
            self.launcher_cls = CaptureLauncher
            self.kx_target = target

        @classmethod
        def is_active(cls) -> bool:
            return False

        def map_python_to_cpp_type(self, ty: str) -> str:
            return "void*" if ty.startswith("*") else ty

        def get_current_target(self):
            return gpu_target

        def get_active_torch_device(self):
            # Tensors of a capture live on the meta device (see fake_torch).
            return torch.device("meta")

        def get_device_interface(self):
            return torch.cuda

        def get_current_device(self) -> int:
            return 0

        def set_current_device(self, device: int) -> None:
            return None

        def get_current_stream(self, device: int | None = None) -> int:
            return 0

        def get_device_capability(self, device: int = 0) -> tuple[int, int]:
            if isinstance(arch, int):
                return divmod(arch, 10)
            return (9, 4)

        def get_benchmarker(self):
            return _refuse_benchmark

        def get_empty_cache_for_benchmark(self):
            raise NeedsRealData("benchmarking needs a real GPU run")

        def clear_cache(self, cache: Any) -> None:
            return None

        def assemble_tensormap_to_arg(self, tensormaps_info: Any, args: Any) -> Any:
            return args

    return CaptureDriver()
