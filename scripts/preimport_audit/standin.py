"""Issue 51 research: a minimal torch.cuda stand-in (one H100), patched onto torch.cuda's attributes as
kx's capture device does; used by sim.py and stale_scan.py only."""

import torch


class _Props:
    name = "NVIDIA H100 80GB HBM3"
    major = 9
    minor = 0
    total_memory = 80 * 1024**3
    multi_processor_count = 132
    warp_size = 32
    L2_cache_size = 50 * 1024**2
    max_threads_per_multi_processor = 2048
    regs_per_multiprocessor = 65536
    shared_memory_per_block_optin = 232448
    gcnArchName = "NVIDIA H100"


P = _Props()


class FakeEvent:
    def __init__(self, *a, **k):
        pass

    def record(self, *a, **k):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, o):
        return 0.0


class FakeStream:
    def __init__(self, *a, **k):
        pass


def is_available():
    return True


def device_count():
    return 1


def get_device_properties(device=None):
    return P


def get_device_capability(device=None):
    return (9, 0)


def get_device_name(device=None):
    return P.name


def current_device():
    return 0


def set_device(d):
    pass


def synchronize(device=None):
    pass


def is_bf16_supported(including_emulation=True):
    return True


def is_initialized():
    return True


def _lazy_init():
    pass


def memory_allocated(device=None):
    return 0


def is_current_stream_capturing():
    return False


def get_rng_state(device="cuda"):
    return torch.zeros(16, dtype=torch.uint8)


def set_rng_state(new_state, device="cuda"):
    pass


NAMES = [
    "is_available",
    "device_count",
    "get_device_properties",
    "get_device_capability",
    "get_device_name",
    "current_device",
    "set_device",
    "synchronize",
    "is_bf16_supported",
    "is_initialized",
    "_lazy_init",
    "memory_allocated",
    "get_rng_state",
    "set_rng_state",
    "is_current_stream_capturing",
]


def install():
    g = globals()
    for n in NAMES:
        setattr(torch.cuda, n, g[n])
    torch.cuda.Event = FakeEvent
    torch.cuda.Stream = FakeStream


def in_order(mode: str) -> None:
    """Import dynamo and Inductor and install the stand-in in the order `mode` names:
    A = import first, then the stand-in (a warm server that imported them); B = the stand-in
    first (today's capture child); C = A, then refresh.refresh()."""
    if mode == "B":
        install()
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401

    if mode in ("A", "C"):
        install()
    if mode == "C":
        import refresh

        refresh.refresh()
