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

from kx_core.model.boards import DeviceReport
from kx_core.records.results import Target


class LaunchLog(threading.local):
    """The grid of the most recent (fake) launch on this thread. `in_jit` is set while
    JITFunction.run runs; a launch outside it (a compiled kernel called directly, as
    `kernel = k.warmup(...); kernel[grid](...)` does) goes to `on_direct_launch`."""

    grid: tuple[int, int, int] | None = None
    in_jit: bool = False
    on_direct_launch: Any = None  # callable(kernel hash, grid)
    on_arguments: Any = None  # callable(the launch's arguments): the kernel may write them


LAUNCH_LOG = LaunchLog()


# kernel hash -> the names of the arguments its stores may write (None: any of them)
_WRITTEN: dict[str, frozenset[str] | None] = {}
# what a launcher is called with before the kernel's arguments: stream, function, packed
# metadata, launch metadata, the enter and exit hooks (CompiledKernel.__getitem__'s runner)
_LAUNCH_FIELDS = 6


class CaptureLauncher:
    """Stands in for CudaLauncher/HIPLauncher: remembers the grid, runs nothing."""

    def __init__(self, src: Any, metadata: Any) -> None:
        self.name = getattr(metadata, "name", "kernel")
        self.hash = getattr(metadata, "hash", None)
        self.src = src

    def __call__(self, grid_x: int, grid_y: int, grid_z: int, *rest: Any) -> None:
        grid = (int(grid_x), int(grid_y), int(grid_z))
        LAUNCH_LOG.grid = grid
        if not LAUNCH_LOG.in_jit and LAUNCH_LOG.on_direct_launch is not None:
            LAUNCH_LOG.on_direct_launch(self.hash, grid)
        if LAUNCH_LOG.on_arguments is not None:
            LAUNCH_LOG.on_arguments(self._maybe_written(rest))

    def _maybe_written(self, rest: tuple) -> tuple:
        """The launch's arguments the kernel may write: those its TTIR's stores take their
        pointers from (kx_core.ir.stored_args), by the parameter names Triton's own
        launch metadata pairs them with; all of them where that is not known."""
        args = rest[_LAUNCH_FIELDS:]
        names = getattr(getattr(self.src, "fn", None), "arg_names", None)
        if not names or len(names) != len(args) or not self.hash:
            return rest
        if self.hash not in _WRITTEN:
            _WRITTEN[self.hash] = _written_names(self.hash, getattr(self.src, "name", self.name))
        written = _WRITTEN[self.hash]
        if written is None:
            return rest
        return tuple(a for n, a in zip(names, args) if n in written)


class CaptureUtils:
    """Stands in for CudaUtils: the capture device's properties, no module loading."""

    def __init__(self, report: DeviceReport) -> None:
        self._props = report.triton_properties()
        self._max_threads = report.gpu.max_threads_per_block

    def get_device_properties(self, device: int) -> dict[str, int]:
        return dict(self._props)

    def load_binary(self, name: str, kernel: bytes, shared: int, device: int):
        """(module, function, n_regs, n_spills, n_max_threads), as the real driver
        returns them: registers and spills of the real binary (cuobjdump of the cubin),
        so code that sizes its grid from `kernel.n_regs` launches what the GPU would."""
        regs = spills = 0
        # an ELF whose e_machine (bytes 18-19) is EM_CUDA (190): a cubin, not a HIP code object
        if (
            isinstance(kernel, bytes)
            and kernel[:4] == b"\x7fELF"
            and int.from_bytes(kernel[18:20], "little") == 190
        ):
            from kx_core.compile.artifacts.resources import cubin_resources

            usage = cubin_resources(kernel, name)
            regs, spills = usage.registers or 0, usage.spills or 0
        return 0, 0, regs, spills, self._max_threads

    def unload_module(self, module: Any) -> None:
        return None

    def set_printf_fifo_size(self, size: int) -> None:
        return None


def make_capture_driver(target: Target, report: DeviceReport | None = None):
    """Build the driver object. The class derives from Triton's DriverBase, so it is
    created here, after triton is importable, not at module import."""
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase

    from kx_core.compile.capturing.device.fake_torch import fake_do_bench
    from kx_core.model.boards import device_report

    report = report or device_report(target)
    gpu_target = GPUTarget(target.backend, target.arch, target.warp_size)

    class CaptureDriver(DriverBase):
        def __init__(self) -> None:
            self.utils = CaptureUtils(report)
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
            # The GPU, as a real driver says; tensors made on it are meta tensors that
            # say they are on it (fake_torch).
            return torch.device("cuda", 0)

        def get_device_interface(self):
            return torch.cuda

        def get_current_device(self) -> int:
            return 0

        def set_current_device(self, device: int) -> None:
            return None

        def get_current_stream(self, device: int | None = None) -> int:
            return 0

        def get_device_capability(self, device: int = 0) -> tuple[int, int]:
            return report.capability

        def get_benchmarker(self):
            return fake_do_bench

        def get_empty_cache_for_benchmark(self):
            return torch.empty(1, dtype=torch.int8, device=torch.device("meta"))

        def clear_cache(self, cache: Any) -> None:
            return None

        def assemble_tensormap_to_arg(self, tensormaps_info: Any, args: Any) -> Any:
            return args

    return CaptureDriver()


def _written_names(kernel_hash: str, name: str) -> frozenset[str] | None:
    """written_arguments of the kernel's TTIR, read back from Triton's cache (where the
    compile that made this launcher put it); None where it is not there."""
    from kx_core.ir.stored_args import written_arguments

    try:
        from triton.runtime.cache import get_cache_manager

        # Triton names a kernel's files by its source's name, cut at 150 characters
        path = get_cache_manager(kernel_hash).get_file(f"{name[:150]}.ttir")
        if path is None:
            return None
        with open(path, encoding="utf-8") as f:
            return written_arguments(f.read())
    except Exception:  # noqa: BLE001 - any doubt: every argument may be written
        return None
