"""torch.cuda as the capture device answers it: every query a kernel file commonly makes
of the CUDA (or HIP) runtime gets what the named GPU would say (capture_device), and
everything that would touch a GPU (streams, events, graphs, synchronisation, memory
statistics) is a no-op that keeps the file running.

Runs only inside the capture worker; torch is imported by the caller.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any

from kx_core.compile.capture_device import DeviceReport


class FakeStream:
    """torch.cuda.Stream: ordering is meaningless when nothing runs."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        self.device = device
        self.priority = priority
        self.cuda_stream = 0
        self.stream_id = 0
        self.device_index = 0
        self.device_type = 1

    def wait_stream(self, stream: Any) -> None:
        return None

    def wait_event(self, event: Any) -> None:
        return None

    def record_event(self, event: Any = None) -> Any:
        return event if event is not None else FakeEvent()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def __enter__(self) -> FakeStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeStream)

    def __hash__(self) -> int:
        return 0


class FakeEvent:
    """torch.cuda.Event: elapsed_time is a timing placeholder (see placeholders)."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing

    def record(self, stream: Any = None) -> None:
        return None

    def wait(self, stream: Any = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end: Any) -> float:
        from kx_core.compile.placeholders import LEDGER

        return LEDGER.timing("torch.cuda.Event.elapsed_time")


class FakeGraph:
    """torch.cuda.CUDAGraph: a capture records nothing and a replay runs nothing (the
    launches inside the capture region were compiled and recorded when they were made)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def capture_begin(self, *args: Any, **kwargs: Any) -> None:
        return None

    def capture_end(self) -> None:
        return None

    def replay(self) -> None:
        return None

    def reset(self) -> None:
        return None

    def pool(self) -> tuple[int, int]:
        return (0, 0)


class FakeDevice(contextlib.ContextDecorator):
    """torch.cuda.device / device_of: there is one device; selecting it does nothing."""

    def __init__(self, device: Any = None) -> None:
        self.idx = 0

    def __enter__(self) -> FakeDevice:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


def install(report: DeviceReport) -> None:
    """Replace torch.cuda's runtime queries and GPU actions (see the module docstring)."""
    import torch

    cuda = torch.cuda
    props = report.torch_properties()
    stream = FakeStream()

    def properties(device: Any = None) -> SimpleNamespace:
        return SimpleNamespace(**props)

    def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    def zero(*args: Any, **kwargs: Any) -> int:
        return 0

    total = report.gpu.memory_bytes
    replacements: dict[str, Any] = {
        "is_available": lambda: True,
        "is_initialized": lambda: True,
        "init": nothing,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "set_device": nothing,
        "get_device_properties": properties,
        "get_device_capability": lambda device=None: report.capability,
        "get_device_name": lambda device=None: report.name,
        "get_arch_list": lambda: [report.arch],
        "is_bf16_supported": lambda *a, **k: report.major >= 8 or report.is_hip,
        "mem_get_info": lambda device=None: (total, total),
        "synchronize": nothing,
        "empty_cache": nothing,
        "manual_seed": nothing,
        "manual_seed_all": nothing,
        "seed": nothing,
        "seed_all": nothing,
        "memory_allocated": zero,
        "max_memory_allocated": zero,
        "memory_reserved": zero,
        "max_memory_reserved": zero,
        "reset_peak_memory_stats": nothing,
        "reset_max_memory_allocated": nothing,
        "reset_accumulated_memory_stats": nothing,
        "memory_stats": lambda device=None: {},
        "set_per_process_memory_fraction": nothing,
        "Stream": FakeStream,
        "ExternalStream": FakeStream,
        "Event": FakeEvent,
        "CUDAGraph": FakeGraph,
        "current_stream": lambda device=None: stream,
        "default_stream": lambda device=None: stream,
        "set_stream": nothing,
        "stream": lambda s=None: contextlib.nullcontext(s),
        "graph": lambda *a, **k: contextlib.nullcontext(),
        "device": FakeDevice,
        "device_of": FakeDevice,
        "set_sync_debug_mode": nothing,
    }
    for name, value in replacements.items():
        setattr(cuda, name, value)
    cuda.nvtx = SimpleNamespace(
        range_push=zero, range_pop=zero, mark=nothing, range=lambda *a, **k: contextlib.nullcontext()
    )
    # What builds report: libraries tell CUDA from ROCm by these strings.
    if report.is_hip:
        torch.version.hip = torch.version.hip or "6.2.0"
    else:
        torch.version.cuda = torch.version.cuda or "12.8"
