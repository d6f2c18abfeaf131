"""GPU specs: a table of datasheet numbers (each with its source), the local GPU's
properties through torch merged with the table, and empirical ceilings measured on the
local GPU (a copy for DRAM bandwidth, a large matmul for tensor throughput), cached per
device so they are measured once.

`GPU` carries the drill K1 fields first (so `GPU(name, sm_count=..., ...)` is the
drill's), then what the occupancy calculator and the roofline need."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from kx_core.base.jsonable import Jsonable
from kx_core.base.paths import cache_dir

PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")


@dataclass(frozen=True)
class GPU(Jsonable):
    name: str
    sm_count: int
    smem_per_sm: int  # bytes of shared memory per SM
    smem_per_block: int  # max bytes one CTA may use (opt-in)
    regs_per_sm: int  # 32-bit registers per SM
    max_threads_per_sm: int
    max_blocks_per_sm: int
    max_regs_per_thread: int
    peak_flops: float  # FLOP/s of the dtype modelled by default: dense fp16/bf16 tensor cores
    peak_bw: float  # bytes/s of DRAM bandwidth
    launch_overhead: float = 5e-6  # seconds; below ~this a kernel is launch-bound
    max_threads_per_block: int = 1024
    warp_size: int = 32
    l2_bytes: int = 0
    peaks: tuple[tuple[str, float], ...] = ()  # (precision, dense FLOP/s)
    arch: str = ""  # "sm_90", "gfx942"
    reg_alloc_unit: int = 256  # registers are given to a warp in multiples of this
    smem_alloc_unit: int = 128  # bytes
    smem_reserved_per_block: int = 1024  # the driver keeps 1 KB per CTA on sm_80 and later
    source: str = ""
    measured: tuple[tuple[str, float], ...] = field(default=())  # empirical ceilings: "bw", "bf16", ...
    # What the device reports to software (torch.cuda.get_device_properties, Triton's
    # driver): the capture device answers with these.
    memory_bytes: int = 0  # device memory as the driver reports it (nvidia-smi's total)
    sm_clock_khz: int = 0  # boost clock
    mem_clock_khz: int = 0
    mem_bus_width: int = 0  # bits

    def peak(self, precision: str = "fp16") -> float:
        """Datasheet dense peak FLOP/s for a precision (fp16 and bf16 share tensor cores)."""
        table = dict(self.peaks)
        if precision in table:
            return table[precision]
        return self.peak_flops

    def ceiling(self, what: str) -> float | None:
        """A measured ceiling ('bw' in bytes/s, or a precision in FLOP/s), if measured."""
        return dict(self.measured).get(what)


TB, GB, KB = 1e12, 1e9, 1024

# RTX 3070 (GA104, sm_86): the drills' numbers (K1), kept exactly so the drill figures hold.
# Per-precision peaks: NVIDIA Ampere GA102 whitepaper, appendix table for RTX 3070
# (FP32 20.3 TFLOPS; FP16 tensor with FP32 accumulate 40.6 dense; TF32 20.3 dense).
RTX3070 = GPU(
    "RTX 3070 (SM86)",
    sm_count=46,
    smem_per_sm=100 * KB,
    smem_per_block=99 * KB,
    regs_per_sm=65536,
    max_threads_per_sm=1536,
    max_blocks_per_sm=16,
    max_regs_per_thread=255,
    peak_flops=40e12,
    peak_bw=448e9,
    l2_bytes=4 * 1024 * KB,
    peaks=(("fp32", 20.3 * TB), ("tf32", 20.3 * TB), ("bf16", 40e12), ("fp16", 40e12)),
    arch="sm_86",
    memory_bytes=8192 * 1024 * KB,
    sm_clock_khz=1_725_000,
    mem_clock_khz=7_001_000,
    mem_bus_width=256,
    source="drill K1; NVIDIA Ampere GA102 GPU architecture whitepaper, appendix A (RTX 3070)",
)

# A100 SXM4 80 GB (sm_80): NVIDIA A100 Tensor Core GPU datasheet (FP32 19.5, TF32 156,
# BF16/FP16 312 TFLOPS dense; HBM2e 2,039 GB/s); limits from the CUDA C++ Programming
# Guide, compute capability 8.0 (164 KB shared per SM, 163 KB per block, 2048 threads,
# 32 blocks per SM); 40 MB L2 (A100 whitepaper).
A100_SXM = GPU(
    "A100 SXM4 80GB",
    sm_count=108,
    smem_per_sm=164 * KB,
    smem_per_block=163 * KB,
    regs_per_sm=65536,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    max_regs_per_thread=255,
    peak_flops=312 * TB,
    peak_bw=2039 * GB,
    l2_bytes=40 * 1024 * KB,
    peaks=(("fp32", 19.5 * TB), ("tf32", 156 * TB), ("bf16", 312 * TB), ("fp16", 312 * TB)),
    arch="sm_80",
    memory_bytes=81920 * 1024 * KB,
    sm_clock_khz=1_410_000,
    mem_clock_khz=1_593_000,
    mem_bus_width=5120,
    source="NVIDIA A100 datasheet; CUDA C++ Programming Guide, compute capability 8.0",
)

# Device memory, clocks and bus widths (all entries): as nvidia-smi / rocm-smi report them
# for these boards (MiB totals), boost clocks and bus widths from the same datasheets.

# H100 SXM5 (sm_90): NVIDIA H100 Tensor Core GPU datasheet, dense figures (the datasheet
# lists with-sparsity numbers, twice these): FP32 67, TF32 494.7, BF16/FP16 989.4,
# FP8 1,978.9 TFLOPS; HBM3 3.35 TB/s. Compute capability 9.0: 228 KB shared per SM,
# 227 KB per block, 2048 threads, 32 blocks per SM. 50 MB L2 (H100 whitepaper).
H100_SXM = GPU(
    "H100 SXM5 80GB",
    sm_count=132,
    smem_per_sm=228 * KB,
    smem_per_block=227 * KB,
    regs_per_sm=65536,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    max_regs_per_thread=255,
    peak_flops=989.4 * TB,
    peak_bw=3.35 * TB,
    l2_bytes=50 * 1024 * KB,
    peaks=(
        ("fp32", 67 * TB),
        ("tf32", 494.7 * TB),
        ("bf16", 989.4 * TB),
        ("fp16", 989.4 * TB),
        ("fp8", 1978.9 * TB),
    ),
    arch="sm_90",
    memory_bytes=81559 * 1024 * KB,
    sm_clock_khz=1_980_000,
    mem_clock_khz=2_619_000,
    mem_bus_width=5120,
    source="NVIDIA H100 datasheet (dense = half the sparsity figures); CUDA C++ Programming Guide, cc 9.0",
)

# H200 SXM (sm_90): NVIDIA H200 datasheet: the H100's compute (same dense peaks), HBM3e
# 141 GB at 4.8 TB/s.
H200 = replace(
    H100_SXM,
    name="H200 SXM 141GB",
    peak_bw=4.8 * TB,
    memory_bytes=143771 * 1024 * KB,  # nvidia-smi on the lent H200 (KINDS.md, 2026-10-27)
    mem_clock_khz=3_201_000,  # nvidia-smi on the lent H200
    mem_bus_width=6144,
    source="NVIDIA H200 datasheet (compute as H100 SXM, HBM3e 4.8 TB/s)",
)

# RTX 4090 (AD102, sm_89): NVIDIA Ada Lovelace architecture whitepaper, appendix A: FP32
# 82.6 TFLOPS; FP16/BF16 tensor with FP32 accumulate 165.2 dense; FP8 with FP32
# accumulate 330.3 dense; TF32 82.6 dense; GDDR6X 1,008 GB/s; 72 MB L2. Compute
# capability 8.9: 100 KB shared per SM, 99 KB per block, 1536 threads, 24 blocks per SM.
RTX4090 = GPU(
    "RTX 4090",
    sm_count=128,
    smem_per_sm=100 * KB,
    smem_per_block=99 * KB,
    regs_per_sm=65536,
    max_threads_per_sm=1536,
    max_blocks_per_sm=24,
    max_regs_per_thread=255,
    peak_flops=165.2 * TB,
    peak_bw=1008 * GB,
    l2_bytes=72 * 1024 * KB,
    peaks=(
        ("fp32", 82.6 * TB),
        ("tf32", 82.6 * TB),
        ("bf16", 165.2 * TB),
        ("fp16", 165.2 * TB),
        ("fp8", 330.3 * TB),
    ),
    arch="sm_89",
    memory_bytes=24564 * 1024 * KB,
    sm_clock_khz=2_520_000,
    mem_clock_khz=10_501_000,
    mem_bus_width=384,
    source="NVIDIA Ada Lovelace GPU architecture whitepaper, appendix A (RTX 4090)",
)

# MI300X (CDNA3, gfx942): AMD Instinct MI300X datasheet: 304 CUs; FP32 vector 81.7
# (matrix 163.4), TF32 653.7, FP16/BF16 1,307.4, FP8 2,614.9 TFLOPS dense; HBM3
# 5.3 TB/s; 64 KB LDS per CU; 4 SIMDs x 512 VGPRs x 64 lanes per CU; wave64; 256 MB
# Infinity Cache (4 MB L2 per XCD).
MI300X = GPU(
    "MI300X",
    sm_count=304,
    smem_per_sm=64 * KB,
    smem_per_block=64 * KB,
    regs_per_sm=4 * 512 * 64,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    max_regs_per_thread=512,
    peak_flops=1307.4 * TB,
    peak_bw=5.3 * TB,
    warp_size=64,
    l2_bytes=4 * 1024 * KB,
    peaks=(
        ("fp32", 163.4 * TB),
        ("tf32", 653.7 * TB),
        ("bf16", 1307.4 * TB),
        ("fp16", 1307.4 * TB),
        ("fp8", 2614.9 * TB),
    ),
    arch="gfx942",
    reg_alloc_unit=512,
    smem_reserved_per_block=0,
    memory_bytes=196592 * 1024 * KB,
    sm_clock_khz=2_100_000,
    mem_clock_khz=1_300_000,
    mem_bus_width=8192,
    source="AMD Instinct MI300X datasheet; AMD CDNA 3 architecture whitepaper",
)

SPECS: dict[str, GPU] = {
    "rtx3070": RTX3070,
    "a100": A100_SXM,
    "h100": H100_SXM,
    "h200": H200,
    "rtx4090": RTX4090,
    "mi300x": MI300X,
}

# which table entry a device name reported by torch belongs to (first match wins)
_NAME_HINTS = (
    ("h200", "h200"),
    ("h100", "h100"),
    ("a100", "a100"),
    ("4090", "rtx4090"),
    ("3070", "rtx3070"),
    ("mi300", "mi300x"),
)


def table_key(name: str) -> str | None:
    """The table's key for a key ('h100'), an entry's own name ('H200 SXM 141GB') or a
    device name containing a hint ('NVIDIA H200'); None for a GPU the table lacks."""
    key = name.lower().replace(" ", "")
    if key in SPECS:
        return key
    return next((k for hint, k in _NAME_HINTS if hint in key), None)


def spec(name: str) -> GPU:
    """A table entry by key ('h100') or by a device name containing a hint ('NVIDIA H200')."""
    key = table_key(name)
    if key is None:
        raise KeyError(f"no spec for {name!r}; known: {', '.join(SPECS)}")
    return SPECS[key]


def for_arch(arch: str) -> GPU:
    """The table GPU kx models for a compile target: sm_90 -> H100, sm_80 -> A100,
    sm_89 -> RTX 4090, sm_86 -> RTX 3070, gfx942 -> MI300X; another arch, its backend's
    nearest board (records.backends: each backend's `boards`)."""
    from kx_core.records.backends import board_for_arch

    return SPECS.get(board_for_arch(arch), H100_SXM)


def local_gpu(device: int = 0, exact: bool = False) -> GPU | None:
    """The local GPU: its table entry under the name nvidia-smi gives (torch-free, for the
    window), or with `exact` merged with torch's properties (torch's counts win; the
    table gives the peaks torch cannot report); measured ceilings when cached. None when
    there is no GPU."""
    if not exact:
        return _local_gpu_from_smi()
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    p = torch.cuda.get_device_properties(device)
    try:
        base = spec(p.name)
    except KeyError:
        base = H100_SXM if p.major >= 9 else A100_SXM
    is_hip = getattr(torch.version, "hip", None) is not None
    arch = getattr(p, "gcnArchName", "").split(":")[0] if is_hip else f"sm_{p.major}{p.minor}"
    got = replace(
        base,
        name=p.name,
        sm_count=p.multi_processor_count,
        smem_per_sm=getattr(p, "shared_memory_per_multiprocessor", base.smem_per_sm),
        smem_per_block=getattr(p, "shared_memory_per_block_optin", base.smem_per_block),
        regs_per_sm=getattr(p, "regs_per_multiprocessor", base.regs_per_sm),
        max_threads_per_sm=getattr(p, "max_threads_per_multi_processor", base.max_threads_per_sm),
        warp_size=getattr(p, "warp_size", base.warp_size),
        l2_bytes=getattr(p, "L2_cache_size", base.l2_bytes),
        arch=arch,
        source=f"torch.cuda.get_device_properties({device}) + {base.source}",
    )
    cached = _read_ceilings(got.name)
    return replace(got, measured=tuple(sorted(cached.items()))) if cached else got


def _local_gpu_from_smi() -> GPU | None:
    from kx_core.base.local_gpu import local_gpu_info

    info = local_gpu_info()
    if info is None:
        return None
    major, minor = info["compute_cap"].split(".")
    arch = f"sm_{major}{minor}"
    try:
        base = spec(info["name"])
    except KeyError:
        base = for_arch(arch)
    got = replace(
        base,
        name=info["name"],
        arch=arch,
        memory_bytes=int(info["memory_mib"]) << 20,
        source=f"nvidia-smi ({info['name']}) + {base.source}",
    )
    cached = _read_ceilings(got.name)
    return replace(got, measured=tuple(sorted(cached.items()))) if cached else got


def _ceiling_path(name: str) -> Path:
    return cache_dir() / "ceilings" / (name.replace(" ", "_").replace("/", "_") + ".json")


def _read_ceilings(name: str) -> dict[str, float]:
    try:
        return {k: float(v) for k, v in json.loads(_ceiling_path(name).read_text()).items()}
    except (OSError, ValueError):
        return {}


def measure_ceilings(device: int = 0, force: bool = False) -> dict[str, float]:
    """Empirical ceilings of the local GPU, measured once and cached: 'bw' from a
    device-to-device copy of 1 GiB (read + write bytes / time), 'bf16' and 'fp32' from
    8192^3 torch.matmul, each timed with triton.testing.do_bench (median)."""
    import torch
    from triton.testing import do_bench

    name = torch.cuda.get_device_properties(device).name
    if not force and (cached := _read_ceilings(name)):
        return cached
    out: dict[str, float] = {}
    with torch.cuda.device(device):
        n = (1 << 30) // 4
        out["bw"] = 2 * n * 4 / (_time_copy(torch, do_bench, n) * 1e-3)
        torch.backends.cuda.matmul.allow_tf32 = False
        size = 8192
        for precision, dtype in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
            out[precision] = 2 * size**3 / (_time_matmul(torch, do_bench, size, dtype) * 1e-3)
        torch.cuda.empty_cache()
    path = _ceiling_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(out))
    tmp.replace(path)
    return out


def _time_copy(torch, do_bench, n: int) -> float:
    src = torch.empty(n, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    return do_bench(lambda: dst.copy_(src), warmup=50, rep=300)


def _time_matmul(torch, do_bench, size: int, dtype) -> float:
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    return do_bench(lambda: a @ b, warmup=50, rep=300)
