"""torch.cuda as the capture device answers it: every query a kernel file commonly makes
of the CUDA (or HIP) runtime gets what the named GPU would say (model.boards), and
everything that would touch a GPU (streams, events, graphs, synchronisation, memory
statistics) is a no-op that keeps the file running.

Runs only inside the capture worker; torch is imported by the caller.
"""

from __future__ import annotations

import contextlib
import sys
from types import SimpleNamespace
from typing import Any

from kx_core.compile.capturing.device import (
    cuda_device_queries,
    cuda_hooks,
    cuda_philox,
    gpu_draws,
    known_values,
    legacy_cuda_types,
    sdpa_choice,
)
from kx_core.model.boards import DeviceReport


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
        from kx_core.compile.capturing.device.placeholders import LEDGER

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
    legacy_cuda_types.install(torch)  # torch.cuda.FloatTensor(...) and its kin
    # the raw stream handle libraries pass to their launchers (0: the default stream)
    torch._C._cuda_getCurrentRawStream = lambda device=0: 0
    torch._C._cuda_getCurrentStream = lambda device=0: (0, 0, 1)  # (stream id, device, type)
    torch._C._cuda_getDefaultStream = lambda device=0: (0, 0, 1)
    torch._C._cuda_getDevice = lambda: 0
    torch._C._cuda_getDeviceCount = lambda: 1
    _fake_generators(torch, report)
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


def _fake_generators(torch: Any, report: DeviceReport) -> None:
    """torch.cuda's random state: one generator, a CPU one standing in for the GPU's
    (attention libraries seed dropout kernels from its philox seed and offset; torch.compile
    saves and restores the state around a trace)."""
    import torch.cuda.random as cuda_random

    class CaptureGenerator(torch.Generator):
        """The GPU's default generator: seeded as the GPU's is (torch.manual_seed seeds it;
        unseeded, it has the default seed), with the philox offset a CUDA generator keeps,
        advanced by each random op on the GPU as PyTorch advances it (`drew_random`), so
        that libraries reading seed and offset for their dropout kernels read a real run's."""

        _offset = 0
        _unknown: str | None = None  # the op after which kx does not know the offset

        @property
        def device(self) -> Any:
            return torch.device("cuda", 0)

        def manual_seed(self, seed: int) -> Any:
            # CUDAGeneratorImpl::set_current_seed starts the offset again at 0
            torch.Generator.manual_seed(self, int(seed))
            self._offset, self._unknown = 0, None
            return self

        def seed(self) -> int:
            value = torch.Generator.seed(self)
            self._offset, self._unknown = 0, None
            return value

        def get_offset(self) -> int:
            self._said()
            return self._offset

        def set_offset(self, offset: int) -> None:
            self._offset, self._unknown = int(offset), None

        def advance(self, increment: int | None, what: str) -> None:
            """A random op on the GPU drew `increment` philox counters (None: kx does not
            know how many; the offset is unknown until the file sets it again)."""
            if increment is None:
                self._unknown = self._unknown or what
            else:
                self._offset += (increment + 3) // 4 * 4  # philox_cuda_state rounds up to 4

        def _said(self) -> None:
            """A read of an offset kx does not know, by the file or a library (not by torch,
            which saves and restores the state around a trace or a checkpoint), is a
            placeholder."""
            if self._unknown is None:
                return
            from kx_core.compile.artifacts.file_kinds import is_engine_file
            from kx_core.compile.capturing.device.placeholders import LEDGER

            frame = sys._getframe(1)
            while frame is not None and is_engine_file(frame.f_code.co_filename):
                frame = frame.f_back
            if frame is not None and not LEDGER.inside_libraries(frame):
                LEDGER.use(f"the CUDA generator's philox offset after {self._unknown}", self._offset)

        # A CUDA generator's state is 16 bytes, not a CPU generator's 5056: its seed (uint64)
        # then its philox offset (int64), as CUDAGeneratorImpl::get_state writes them.
        # Libraries unpack it (`seed, offset = state.view(torch.int64)`) for their dropout
        # kernels' seed and offset, and set_state takes the same 16 bytes back.
        def get_state(self) -> Any:
            self._said()
            seed = self.initial_seed() & (2**64 - 1)
            seed = seed - 2**64 if seed >= 2**63 else seed  # the uint64's bits in an int64
            state = torch.tensor([seed, self._offset], dtype=torch.int64, device="cpu").view(torch.uint8)
            if self._unknown is not None:
                state._kx_unknown_offset = self._unknown  # set back, still unknown
            return state

        def set_state(self, state: Any) -> Any:
            if state.numel() != 16 or state.dtype != torch.uint8:
                raise RuntimeError(
                    f"RNG state is wrong size: a CUDA generator's state is 16 bytes, got {state.numel()}"
                )
            seed, offset = (int(v) for v in state.to("cpu").view(torch.int64))
            torch.Generator.manual_seed(self, seed & (2**64 - 1))
            self._offset = offset
            self._unknown = getattr(state, "_kx_unknown_offset", None)
            return self

        def clone_state(self) -> Any:
            twin = CaptureGenerator()
            torch.Generator.manual_seed(twin, self.initial_seed())
            twin._offset, twin._unknown = self._offset, self._unknown
            return twin

        def graphsafe_get_state(self) -> Any:
            """A new generator holding this one's state (as CUDA's returns)."""
            return self.clone_state()

        def graphsafe_set_state(self, state: Any) -> None:
            torch.Generator.manual_seed(self, state.initial_seed())
            self._offset = getattr(state, "_offset", 0)
            self._unknown = getattr(state, "_unknown", None)

    generator = CaptureGenerator()
    torch.cuda.default_generators = (generator,)
    _generators_of_the_file(torch, CaptureGenerator)
    _rng_ops_see_the_gpu(torch)
    if hasattr(torch._C, "_accelerator_getDefaultGenerator"):
        # the accelerator's default generator by index (Inductor's lowering of a graph that
        # takes the CUDA generator's state, torch >= 2.12, asks for it): the capture GPU's
        # (the C++ call checks the index against the GPUs the machine has: none)
        torch._C._accelerator_getDefaultGenerator = lambda index=0: torch.cuda.default_generators[int(index)]
    _RANDOM.update(
        generator=generator,
        kind=CaptureGenerator,
        sm_count=report.gpu.sm_count,
        threads_per_sm=report.gpu.max_threads_per_sm,
    )
    gpu_draws.PHILOX_INPUTS = philox_inputs  # (gpu_draws asks without importing this module)

    def manual_seed(seed: int) -> None:
        generator.manual_seed(int(seed))

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


def _generators_of_the_file(torch: Any, capture_generator: type) -> None:
    """`torch.Generator(device="cuda")` (diffusion pipelines, samplers, data loaders seed
    their own): a generator of the capture GPU, seeded as a new CUDA generator is (the
    default seed, offset 0), whose draws kx follows as the default one's. PyTorch's C++
    constructor asks the CUDA driver there is none of here ("CUDA driver version is
    insufficient"). torch.Generator stays the class every generator is an instance of."""
    original = torch.Generator
    if getattr(original, "_kx_capture", False):
        return

    class _Meta(type(original)):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, original)

        def __subclasscheck__(cls, sub: Any) -> bool:
            return issubclass(sub, original)

    class Generator(original, metaclass=_Meta):
        _kx_capture = True

        def __new__(cls, device: Any = "cpu") -> Any:
            if _is_cuda(torch, device):
                return capture_generator()
            return original(device)

    Generator.__name__ = Generator.__qualname__ = "Generator"
    Generator.__module__ = "torch"
    torch.Generator = Generator


def _is_cuda(torch: Any, device: Any) -> bool:
    if isinstance(device, int) and not isinstance(device, bool):
        return True  # a device index is the accelerator's
    try:
        return torch.device(device).type == "cuda"
    except (TypeError, RuntimeError):
        return False


# The capture GPU's generator and the figures PyTorch sizes its random kernels' grids by.
_RANDOM: dict[str, Any] = {}

# Random ops by the philox draws PyTorch's CUDA kernel makes per element group
# (ATen native/cuda/DistributionTemplates.h): uniform and normal numbers come four to a
# curand call (two for float64); nn.init's fills are uniform_ or normal_ on the tensor.
_UNIFORM_DRAWS = frozenset(
    {"rand", "rand_like", "uniform_", "exponential_", "geometric_", "cauchy_", "kaiming_uniform_",
     "xavier_uniform_", "trunc_normal_"}
)  # fmt: skip
_NORMAL_DRAWS = frozenset(
    {"randn", "randn_like", "normal", "normal_", "log_normal_", "kaiming_normal_", "xavier_normal_"}
)  # fmt: skip
_INTEGER_DRAWS = frozenset({"randint", "randint_like", "random_"})
# Random ops whose draws kx does not model: after them the offset is unknown.
_UNMODELLED_DRAWS = frozenset(
    {"multinomial", "poisson", "rrelu", "rrelu_", "rrelu_with_noise", "gumbel_softmax",
     "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_dropout", "feature_dropout_",
     "dropout1d", "dropout2d", "dropout3d", "orthogonal_", "sparse_", "_standard_gamma", "_sample_dirichlet",
     "binomial"}
)  # fmt: skip


def drew_random(name: str, args: tuple, kwargs: dict, out: Any) -> None:
    """After op `name` ran on capture tensors: a random op on the GPU advances its
    generator's philox offset as PyTorch's CUDA kernel does."""
    base = name.split(".")[0]
    if not _RANDOM or not (
        base in _UNIFORM_DRAWS or base in _NORMAL_DRAWS or base in _INTEGER_DRAWS or base in _UNMODELLED_DRAWS
        or base in ("bernoulli", "bernoulli_", "dropout", "dropout_", "native_dropout", "randperm")
        or (base == "scaled_dot_product_attention" and _dropout_p(args, kwargs, 6, "dropout_p") > 0)
    ):  # fmt: skip
        return
    if base.endswith("_"):  # the tensor it fills (nn.init's functions pass it by keyword)
        target = args[0] if args else next(iter(kwargs.values()), None)
    else:
        target = out[0] if isinstance(out, tuple) and out else out
    if not getattr(target, "is_meta", False) or known_values.is_host(target):
        return  # a CPU op (a real run's too): the CPU's own generator
    generator = kwargs.get("generator")
    if generator is None:
        generator = _RANDOM["generator"]
    elif not isinstance(generator, _RANDOM["kind"]):
        return
    generator.advance(_philox_increment(base, args, kwargs, target), f"torch.{base}")


def philox_inputs(kwargs: dict) -> tuple[int, int, int, int] | None:
    """(seed, philox offset, SMs, max threads per SM) a random op on the GPU draws with:
    the capture GPU's default generator, or the GPU generator the op names, where kx knows
    its offset; None otherwise."""
    if not _RANDOM:
        return None
    generator = kwargs.get("generator")
    if generator is None:
        generator = _RANDOM["generator"]
    elif not isinstance(generator, _RANDOM["kind"]):
        return None
    if generator._unknown is not None:
        return None
    seed = generator.initial_seed() & (2**64 - 1)
    return seed, generator._offset, _RANDOM["sm_count"], _RANDOM["threads_per_sm"]


def _dropout_p(args: tuple, kwargs: dict, index: int, key: str) -> float:
    value = kwargs.get(key, args[index] if len(args) > index else 0.0)
    return float(value) if isinstance(value, (int, float)) else 0.0


def _philox_increment(name: str, args: tuple, kwargs: dict, target: Any) -> int | None:
    """The philox counters op `name` draws on the capture GPU for `target` (its output or
    the tensor it fills), by ATen's calc_execution_policy: 256 threads a block, at most
    (max threads per SM / 256) blocks per SM, and each thread drawing 4 counters per
    `unroll` elements it makes; None where kx does not know."""
    import torch

    if name == "randperm":
        return _randperm_counters(args, kwargs)
    if name in _UNMODELLED_DRAWS or name == "scaled_dot_product_attention":
        return None
    numel = target.numel()
    if name in ("dropout", "dropout_", "native_dropout"):
        train = kwargs.get("train", kwargs.get("training", args[2] if len(args) > 2 else True))
        p = _dropout_p(args, kwargs, 1, "p")
        if train is False or not 0 < p < 1 or numel == 0:
            return 0  # at::dropout returns its input: nothing drawn
        return _counters(numel, 4)
    if numel == 0:
        return 0  # distribution_nullary_kernel returns before drawing
    if numel * target.element_size() > 2**31 - 1:
        return None  # split into 32-bit-indexed launches, each drawing again
    double = target.dtype == torch.float64
    if name in _UNIFORM_DRAWS or name in _NORMAL_DRAWS:
        return _counters(numel, 2 if double else 4)
    if name in ("bernoulli", "bernoulli_"):
        p = kwargs.get("p", args[1] if len(args) > 1 else None)
        if name == "bernoulli" and p is None or isinstance(p, torch.Tensor):
            return 10  # bernoulli_tensor_cuda_kernel: philox_cuda_state(10)
        return _counters(numel, 2 if double else 4)
    # integers: 64-bit draws (two to a curand call) for ranges of 2**28 or more, and for
    # random_() of int64 or float64
    span = _integer_range(name, args, kwargs)
    if span is None:
        wide = target.dtype in (torch.int64, torch.float64)
    else:
        wide = span >= 1 << 28
    return _counters(numel, 2 if wide else 4)


def _randperm_counters(args: tuple, kwargs: dict) -> int | None:
    """randperm_out_cuda (native/cuda/Randperm.cu) on the GPU, at every size: 64-bit keys
    from `random_(int64 min, int64 max)`, sorted, then a shuffle of equal keys that takes
    `philox_cuda_state(n)`. The H100's offsets after randperm(7 / 50 / 8191 / 40000): 12,
    56, 8196, 40004 (scripts/record_cuda_rng.py)."""
    n = args[0] if args else kwargs.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        return None  # (no draw for 0 or 1 element: not measured)
    return _counters(n, 2) + (n + 3) // 4 * 4


def _integer_range(name: str, args: tuple, kwargs: dict) -> int | None:
    """to - from of randint / randint_like / random_(from, to); None for random_()."""
    bounds = gpu_draws.integer_bounds(name, args, kwargs)
    if bounds is None:
        return None
    low, high = bounds
    if high is None:
        return None if low is None else 1 << 62
    return high - (low or 0)


def _counters(numel: int, unroll: int) -> int:
    grid = cuda_philox.grid_for(numel, _RANDOM["sm_count"], _RANDOM["threads_per_sm"])
    return cuda_philox.counters(numel, unroll, grid)


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


def _allocator_figure(name: str) -> Any:
    """torch.cuda.`name`(): what a real run's caching allocator holds, which a capture
    (no allocation) cannot know: 0, a placeholder said at the line that marks the kernels
    after it, as memory_stats() does. (A guess that marked them only once the file
    decides on it, as a timing does, would be lost in `total * 0.9 - allocated`: float's
    own subtraction returns a plain float, and the KV cache it sizes would go unsaid.)"""

    def figure(*args: Any, **kwargs: Any) -> int:
        from kx_core.compile.capturing.device.placeholders import LEDGER

        return LEDGER.use(f"torch.cuda.{name}() (a real run's allocator figure)", 0)

    figure.__name__ = name
    return figure


class DeviceProperties(SimpleNamespace):
    """torch.cuda.get_device_properties() of the capture device: the attributes of
    torch.cuda._CudaDeviceProperties (which has no constructor). Dynamo folds a call of
    get_device_properties in compiled code and keeps the result as a constant where its
    type is one of its constant types (inductor_capture adds this one, as the real type
    is one), so `props.multi_processor_count` in a compiled forward is no graph break."""


def _queries(report: DeviceReport) -> dict[str, Any]:
    """torch.cuda's questions about the device, answered as the capture device."""
    props = report.torch_properties()
    total = report.gpu.memory_bytes
    return {
        "is_available": lambda: True,
        "is_initialized": lambda: True,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "get_device_properties": lambda device=None: DeviceProperties(**props),
        "get_device_capability": lambda device=None: report.capability,
        "get_device_name": lambda device=None: report.name,
        "get_arch_list": lambda: [report.arch],
        "is_bf16_supported": lambda *a, **k: report.major >= 8 or report.is_hip,
        "mem_get_info": lambda device=None: (total, total),
        "memory_allocated": _allocator_figure("memory_allocated"),
        "max_memory_allocated": _allocator_figure("max_memory_allocated"),
        "memory_reserved": _allocator_figure("memory_reserved"),
        "max_memory_reserved": _allocator_figure("max_memory_reserved"),
        "memory_stats": _memory_stats,
    }


# The caching allocator's figures, as torch.cuda.memory_stats() names them (PyTorch's
# docs: each stat for each pool, current/peak/allocated/freed). Example key:
# "allocated_bytes.all.peak"
_STATS = (
    "allocation",
    "segment",
    "active",
    "inactive_split",
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
)
_POOLS = ("all", "large_pool", "small_pool")
_KINDS = ("current", "peak", "allocated", "freed")


def _memory_stats(device: Any = None) -> dict[str, int]:
    """torch.cuda.memory_stats() of the capture device: a real run's figures depend on
    what its allocator holds, which a capture does not allocate. Every key a real run's
    dict has (nano-vllm sizes its KV cache by `stats["allocated_bytes.all.peak"]`; an
    empty dict stopped it with a KeyError), each 0, as memory_allocated() answers;
    a placeholder said at the line, since a file sizes what it launches by them."""
    from kx_core.compile.capturing.device.placeholders import LEDGER

    LEDGER.use("torch.cuda.memory_stats() (a real run's allocator figures)", "0 for every figure")
    stats = {f"{s}.{p}.{k}": 0 for s in _STATS for p in _POOLS for k in _KINDS}
    return stats | dict.fromkeys(
        (
            "num_alloc_retries",
            "num_ooms",
            "num_sync_all_streams",
            "num_device_alloc",
            "num_device_free",
            "max_split_size",
        ),
        0,
    )


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


def _rng_ops_see_the_gpu(torch: Any) -> None:
    """PyTorch's random-state operators (torch._prims.rng_prims: the graph-safe one a
    compiled graph wraps a checkpointed random op in, `graphsafe_run_with_rng_state`, and
    the save/restore pair) choose their implementation by the device of their tensor
    arguments (`get_device`), and refuse one they do not know. A capture tensor stands for
    a GPU one: at such an operator's call in an Inductor graph (timm's ViT with gradient
    checkpointing: cuDNN attention, whose dropout draws from the generator) it is the
    CUDA one, as on a real run ("GraphSafe RNG operations only supported for CUDA, got
    None" stopped the file)."""
    try:
        from torch._prims import rng_prims
    except ImportError:
        return
    original = getattr(rng_prims, "get_device", None)
    if original is None or getattr(original, "_kx", False):
        return

    def get_device(args: Any, kwargs: Any) -> Any:
        device = original(args, kwargs)
        if device in (None, "meta") and any(getattr(a, "is_meta", False) for a in args):
            return "cuda"
        return device

    get_device._kx = True  # type: ignore[attr-defined]
    rng_prims.get_device = get_device
