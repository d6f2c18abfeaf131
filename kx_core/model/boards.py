"""The board a compile target stands for, and what that board reports to software.

A target is a compile target (`cuda:90`); the board is a named GPU of kx's table
(kx_core.model.gpu) of that architecture: `cuda:90` is an H100 SXM unless the request
names another (`--gpu h200`). Everything a kernel file asks of the runtime about the
device (SM count, shared memory per block, memory size, clocks) is answered from that
entry, so code that sizes grids or picks configs from them does what it would on that GPU.

Here, below kx_core.compile, because both sides read it: the parent resolves a request's
board once (compile/jobs/resolve.py) and writes the fake nvidia-smi from its report; the
worker's stand-in device answers from the same report, sent to it in the resolved
request (model/resolved_request.py). Qt-free and torch-free: the worker turns these
numbers into torch's and Triton's objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.model.gpu import GPU, SPECS, for_arch
from kx_core.records.backends import backend_of
from kx_core.records.results import Target
from kx_core.records.target import TargetError


class DeviceError(TargetError):
    """A --gpu that kx's table lacks or that does not fit the target."""


def arch_name(target: Target) -> str:
    """'sm_90' for cuda:90, 'gfx942' for hip:gfx942 (the spelling of the GPU table)."""
    return backend_of(target).arch_name(target.arch)


def target_for_gpu(key: str) -> Target:
    """The compile target of a table GPU ('h200' -> cuda:90)."""
    gpu = _lookup(key)
    if gpu.arch.startswith("sm_"):
        return Target("cuda", int(gpu.arch[3:]), 32)
    return Target("hip", gpu.arch, gpu.warp_size)


def _lookup(key: str) -> GPU:
    k = key.lower().replace(" ", "").replace("-", "")
    if k not in SPECS:
        raise DeviceError(f"unknown GPU {key!r}: one of {', '.join(SPECS)}")
    return SPECS[k]


def capture_gpu(target: Target, key: str | None = None) -> GPU:
    """The table GPU a capture for `target` stands for: `key` when given (it must have
    the target's architecture), else the flagship of that architecture."""
    arch = arch_name(target)
    if key:
        gpu = _lookup(key)
        if gpu.arch != arch:
            raise DeviceError(f"the {gpu.name} is {gpu.arch}, not the target's {arch}")
        return gpu
    return for_arch(arch)  # its backend's board for the arch, or its nearest (records.backends)


@dataclass(frozen=True)
class DeviceReport(Jsonable):
    """What the capture device answers: the GPU's numbers under the target's identity.
    A JSON round trip gives it back equal: it crosses to the worker in the resolved
    request."""

    name: str
    major: int
    minor: int
    arch: str  # 'sm_90' or 'gfx942'
    is_hip: bool
    gpu: GPU

    @property
    def capability(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def triton_properties(self) -> dict[str, int]:
        """The dict Triton's `driver.active.utils.get_device_properties(d)` returns."""
        g = self.gpu
        return {
            "max_shared_mem": g.smem_per_block,
            "max_num_regs": g.regs_per_sm,
            "multiprocessor_count": g.sm_count,
            "warpSize": g.warp_size,
            "sm_clock_rate": g.sm_clock_khz,
            "mem_clock_rate": g.mem_clock_khz,
            "mem_bus_width": g.mem_bus_width,
        }

    def torch_properties(self) -> dict[str, object]:
        """The attributes of torch.cuda.get_device_properties(d) on this GPU."""
        g = self.gpu
        props: dict[str, object] = {
            "name": self.name,
            "major": self.major,
            "minor": self.minor,
            "total_memory": g.memory_bytes,
            "multi_processor_count": g.sm_count,
            "is_integrated": 0,
            "is_multi_gpu_board": 0,
            "max_threads_per_multi_processor": g.max_threads_per_sm,
            "max_threads_per_block": g.max_threads_per_block,
            "regs_per_multiprocessor": g.regs_per_sm,
            "warp_size": g.warp_size,
            "L2_cache_size": g.l2_bytes,
            "shared_memory_per_block": min(g.smem_per_block, 48 * 1024),
            "shared_memory_per_block_optin": g.smem_per_block,
            "shared_memory_per_multiprocessor": g.smem_per_sm,
            "clock_rate": g.sm_clock_khz,
            "memory_clock_rate": g.mem_clock_khz,
            "memory_bus_width": g.mem_bus_width,
            "uuid": "00000000-0000-0000-0000-000000000000",
            "pci_bus_id": 0,
            "pci_device_id": 0,
            "pci_domain_id": 0,
        }
        if self.is_hip:
            props["gcnArchName"] = f"{self.arch}:sramecc+:xnack-"
        return props


def device_report(target: Target, key: str | None = None) -> DeviceReport:
    """The report of the board `target` stands for (`key`: a --gpu, checked as in
    capture_gpu). Raises DeviceError."""
    gpu = capture_gpu(target, key)
    backend = backend_of(target)
    if backend.arch_prefix == "sm_":  # an NVIDIA arch is its compute capability
        major, minor = divmod(int(target.arch), 10)
    else:
        major, minor = 9, 4  # what ROCm's torch reports for gfx942
    name = gpu.name if gpu.name.startswith(backend.vendor) else f"{backend.vendor} {gpu.name}"
    return DeviceReport(name, major, minor, arch_name(target), not backend.nvidia_smi, gpu)
