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

from kx_core.compile.capturing import cuda_device_queries, cuda_hooks, sdpa_choice
from kx_core.compile.capturing.capture_device import DeviceReport


class FakeStream:
    """torch.cuda.Stream: ordering is meaningless when nothing runs."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        import torch

        # torch._dynamo keys streams by their device (a torch.device with an index)
        self.device = torch.device("cuda", 0) if device is None else torch.device(device)
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

    def is_capturing(self) -> bool:
        """No CUDA graph is being captured (torch.optim asks before a fused step)."""
        return False

    def native_handle(self) -> int:
        return self.cuda_stream

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return (0, -5)  # (least, greatest) as a Hopper GPU answers cudaDeviceGetStreamPriorityRange

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
        import torch

        self.enable_timing = enable_timing
        self.device = torch.device("cuda", 0)
        self.cuda_event = 0
        self.event_id = 0

    def ipc_handle(self) -> bytes:
        return bytes(64)  # a cudaIpcEventHandle_t's size; nothing opens it

    @classmethod
    def from_ipc_handle(cls, device: Any, handle: Any) -> FakeEvent:
        return cls()

    def record(self, stream: Any = None) -> None:
        return None

    def wait(self, stream: Any = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end: Any) -> float:
        from kx_core.compile.capturing.placeholders import LEDGER

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
    for name, value in {**_queries(report), **_actions()}.items():
        setattr(cuda, name, value)
    cuda._lazy_init = _nothing_fn()
    # the raw stream handle libraries pass to their launchers (0: the default stream)
    torch._C._cuda_getCurrentRawStream = lambda device=0: 0
    torch._C._cuda_getCurrentStream = lambda device=0: (0, 0, 1)  # (stream id, device, type)
    torch._C._cuda_getDefaultStream = lambda device=0: (0, 0, 1)
    torch._C._cuda_getDevice = lambda: 0
    torch._C._cuda_getDeviceCount = lambda: 1
    _fake_generators(torch)
    _fake_accelerator(torch)
    cuda_hooks.install(torch)  # the autograd engine's question, asked in C++
    # decisions PyTorch takes in C++ by asking the device: taken as on the capture GPU
    cuda_device_queries.install(torch, report)
    sdpa_choice.install(torch, report)  # which attention kernel SDPA runs
    cuda_device_queries.decided_on_the_gpu(torch, "_select_conv_backend", "convolution backend")
    cuda.nvtx = SimpleNamespace(
        range_push=_zero_fn(),
        range_pop=_zero_fn(),
        mark=_nothing_fn(),
        range=lambda *a, **k: contextlib.nullcontext(),
    )
    stub_profiler_and_blas()
    # What builds report: libraries tell CUDA from ROCm by these strings.
    if report.is_hip:
        torch.version.hip = torch.version.hip or "6.2.0"
    else:
        torch.version.cuda = torch.version.cuda or "12.8"


def _fake_generators(torch: Any) -> None:
    """torch.cuda's random state: one generator, a CPU one standing in for the GPU's
    (attention libraries seed dropout kernels from its philox seed and offset; torch.compile
    saves and restores the state around a trace)."""
    import torch.cuda.random as cuda_random

    class CaptureGenerator(torch.Generator):
        """The GPU's default generator: seeded as the GPU's is (torch.manual_seed seeds it;
        unseeded, it has the default seed), with the philox offset a CUDA generator keeps
        (libraries read it and pass seed and offset to their dropout kernels)."""

        _offset = 0

        def get_offset(self) -> int:
            return self._offset

        def set_offset(self, offset: int) -> None:
            self._offset = int(offset)

        # A CUDA generator's state is 16 bytes, not a CPU generator's 5056: its seed (uint64)
        # then its philox offset (int64), as CUDAGeneratorImpl::get_state writes them.
        # Libraries unpack it (`seed, offset = state.view(torch.int64)`) for their dropout
        # kernels' seed and offset, and set_state takes the same 16 bytes back.
        def get_state(self) -> Any:
            seed = self.initial_seed() & (2**64 - 1)
            seed = seed - 2**64 if seed >= 2**63 else seed  # the uint64's bits in an int64
            return torch.tensor([seed, self._offset], dtype=torch.int64, device="cpu").view(torch.uint8)

        def set_state(self, state: Any) -> Any:
            if state.numel() != 16 or state.dtype != torch.uint8:
                raise RuntimeError(
                    f"RNG state is wrong size: a CUDA generator's state is 16 bytes, got {state.numel()}"
                )
            seed, offset = (int(v) for v in state.to("cpu").view(torch.int64))
            torch.Generator.manual_seed(self, seed & (2**64 - 1))
            self._offset = offset
            return self

        def graphsafe_get_state(self) -> Any:
            return self

        def graphsafe_set_state(self, state: Any) -> None:
            return None

    generator = CaptureGenerator()
    torch.cuda.default_generators = (generator,)

    def manual_seed(seed: int) -> None:
        generator.manual_seed(int(seed))
        generator.set_offset(0)

    def get_rng_state(device: Any = "cuda") -> Any:
        return generator.get_state()

    def set_rng_state(state: Any, device: Any = "cuda") -> None:
        generator.set_state(state)

    for module in (torch.cuda, cuda_random):
        module.get_rng_state = get_rng_state
        module.set_rng_state = set_rng_state
        module.get_rng_state_all = lambda: [generator.get_state()]
        module.set_rng_state_all = lambda states: None
        module.initial_seed = generator.initial_seed
        module.manual_seed = module.manual_seed_all = manual_seed
        module.seed = module.seed_all = lambda: generator.seed()


def _fake_accelerator(torch: Any) -> None:
    """torch.accelerator (what torch._dynamo asks for the current stream and device)."""
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is None:
        return
    answers = {
        "is_available": lambda: True,
        "device_count": lambda: 1,
        "current_device_index": lambda: 0,
        "current_device_idx": lambda: 0,
        "current_accelerator": lambda check_available=False: torch.device("cuda"),
        "current_stream": lambda device=None: torch.cuda.current_stream(),
        "set_device_index": _nothing_fn(),
        "set_device_idx": _nothing_fn(),
        "set_stream": _nothing_fn(),
        "synchronize": _nothing_fn(),
    }
    for name, value in answers.items():
        if hasattr(accelerator, name):
            setattr(accelerator, name, value)
    # the C functions behind torch.accelerator's context managers (device_index, ...)
    c_answers = {
        "_accelerator_exchangeDevice": _zero_fn(),
        "_accelerator_maybeExchangeDevice": _zero_fn(),
        "_accelerator_getDeviceIndex": _zero_fn(),
        "_accelerator_setDeviceIndex": _nothing_fn(),
        "_accelerator_synchronizeDevice": _nothing_fn(),
        "_accelerator_setStream": _nothing_fn(),
        "_accelerator_getStream": lambda device=None: torch.cuda.current_stream(),
        "_accelerator_emptyCache": _nothing_fn(),
        "_accelerator_hooks_device_count": lambda: 1,
        "_accelerator_hooks_exchange_device": _zero_fn(),
        "_accelerator_hooks_maybe_exchange_device": _zero_fn(),
        "_accelerator_hooks_get_current_device": _zero_fn(),
        "_accelerator_hooks_set_current_device": _nothing_fn(),
    }
    for name, value in c_answers.items():
        if hasattr(torch._C, name):
            setattr(torch._C, name, value)


# Every replacement is a function object of its own: torch._dynamo's trace rules map
# torch functions by identity and refuse one object under two names.
def _nothing_fn() -> Any:
    def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    return nothing


def _zero_fn() -> Any:
    def zero(*args: Any, **kwargs: Any) -> int:
        return 0

    return zero


def _queries(report: DeviceReport) -> dict[str, Any]:
    """torch.cuda's questions about the device, answered as the capture device."""
    props = report.torch_properties()
    total = report.gpu.memory_bytes
    return {
        "is_available": lambda: True,
        "is_initialized": lambda: True,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "get_device_properties": lambda device=None: SimpleNamespace(**props),
        "get_device_capability": lambda device=None: report.capability,
        "get_device_name": lambda device=None: report.name,
        "get_arch_list": lambda: [report.arch],
        "is_bf16_supported": lambda *a, **k: report.major >= 8 or report.is_hip,
        "mem_get_info": lambda device=None: (total, total),
        "memory_allocated": _zero_fn(),
        "max_memory_allocated": _zero_fn(),
        "memory_reserved": _zero_fn(),
        "max_memory_reserved": _zero_fn(),
        "memory_stats": lambda device=None: {},
    }


def _actions() -> dict[str, Any]:
    """torch.cuda's actions on the device: each does nothing, streams are one fake."""
    stream = FakeStream()
    nothing = (
        "init set_device synchronize empty_cache "
        "reset_peak_memory_stats reset_max_memory_allocated reset_accumulated_memory_stats "
        "set_per_process_memory_fraction set_stream set_sync_debug_mode _set_stream_by_id"
    ).split()
    return {name: _nothing_fn() for name in nothing} | {
        "Stream": FakeStream,
        "ExternalStream": FakeStream,
        "Event": FakeEvent,
        "CUDAGraph": FakeGraph,
        "current_stream": lambda device=None: stream,
        "default_stream": lambda device=None: stream,
        "stream": lambda s=None: contextlib.nullcontext(s),
        "graph": lambda *a, **k: contextlib.nullcontext(),
        "device": FakeDevice,
        "device_of": FakeDevice,
        "_DeviceGuard": FakeDevice,
        "_exchange_device": _zero_fn(),
        "_maybe_exchange_device": _zero_fn(),
        "is_current_stream_capturing": lambda: False,
    }


class FakeCublasLt:
    """triton's cuBLAS binding (`nvidia.cublas.CublasLt`): a library call runs none of
    the file's kernels, so in a capture every method does nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def stub_profiler_and_blas() -> None:
    """Triton's GPU-only services as no-ops: the cuBLAS binding and the proton profiler
    (start/activate/scope/finalize: there is nothing to measure)."""
    try:
        from triton._C.libtriton import nvidia

        nvidia.cublas.CublasLt = FakeCublasLt
    except (ImportError, AttributeError):
        pass
    try:
        import triton.profiler as proton
    except Exception:  # noqa: BLE001 - proton is optional; without it there is nothing to stub
        return

    def no_op(*args: Any, **kwargs: Any) -> None:
        return None

    class Scope(contextlib.ContextDecorator):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __enter__(self) -> Scope:
            return self

        def __exit__(self, *exc: Any) -> bool:
            return False

    for name in ("start", "activate", "deactivate", "finalize", "enter_scope", "exit_scope"):
        if hasattr(proton, name):
            setattr(proton, name, no_op)
    for name in ("scope", "cpu_timed_scope"):
        if hasattr(proton, name):
            setattr(proton, name, Scope)
