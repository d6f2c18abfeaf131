"""CUPTI's PC sampling, through ctypes: which SASS instruction each sampled warp was at,
and why it was stalled.

kx drives CUPTI itself rather than through Proton because Proton keeps only what its
tree needs: it turns each PC into `file:line` (cuptiGetSassToSourceCorrelation) and
drops the PC, so per-instruction figures are gone; kx needs the PC (the SASS offset)
to carry a sample through its own links to every stage. The configuration is Proton's
(ConfigureData in third_party/proton/.../CuptiPCSampling.h): sampling period 2^10
cycles, a 128 MiB hardware buffer, a 16 MiB scratch buffer, 1024 PCs per read,
continuous collection with start/stop control; Proton's per-kernel totals are the
oracle (tests/gpu). The library and headers are those Triton's wheel ships
(triton/backends/nvidia/lib/cupti, include/cupti_pcsampling.h); the struct layouts
below follow that header, and tests/bench/test_pcsampling_layout.py checks them
against it with a C compiler.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from collections import defaultdict
from dataclasses import dataclass

SAMPLING_PERIOD = 10  # 2^10 cycles between samples, as Proton
HARDWARE_BUFFER = 128 << 20
SCRATCH_BUFFER = 16 << 20
PCS_PER_READ = 1024
STALL_NAME_SIZE = 128  # CUPTI_STALL_REASON_STRING_SIZE
_CUDA12_4_API = 22  # CUPTI_API_VERSION that added CUpti_PCSamplingPCData.correlationId

# CUpti_PCSamplingConfigurationAttributeType
_ATTR_PERIOD, _ATTR_STALL, _ATTR_SCRATCH, _ATTR_HARDWARE = 1, 2, 3, 4
_ATTR_MODE, _ATTR_START_STOP, _ATTR_DATA_BUFFER = 5, 6, 8
_MODE_CONTINUOUS = 1


class PCSamplingUnavailable(RuntimeError):
    """No CUPTI, no GPU, or CUPTI refused (the message says which and why)."""


# -- the header's structs (PACKED_ALIGNMENT: packed, then aligned to 8) -------------


class StallReason(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("index", ctypes.c_uint32), ("samples", ctypes.c_uint32)]


class PCData(ctypes.Structure):
    _pack_ = 1
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("cubinCrc", ctypes.c_uint64),
        ("pcOffset", ctypes.c_uint64),
        ("functionIndex", ctypes.c_uint32),
        ("pad", ctypes.c_uint32),
        ("functionName", ctypes.c_void_p),
        ("stallReasonCount", ctypes.c_size_t),
        ("stallReason", ctypes.POINTER(StallReason)),
        ("correlationId", ctypes.c_uint32),
        ("_align", ctypes.c_uint32),  # aligned(8): the array stride is 64
    ]


class PCSamplingData(ctypes.Structure):
    _pack_ = 1
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("collectNumPcs", ctypes.c_size_t),
        ("totalSamples", ctypes.c_uint64),
        ("droppedSamples", ctypes.c_uint64),
        ("totalNumPcs", ctypes.c_size_t),
        ("remainingNumPcs", ctypes.c_size_t),
        ("rangeId", ctypes.c_uint64),
        ("pPcData", ctypes.POINTER(PCData)),
        ("nonUsrKernelsTotalSamples", ctypes.c_uint64),
        ("hardwareBufferFull", ctypes.c_uint8),
        ("_align", ctypes.c_uint8 * 7),
    ]


class ConfigInfo(ctypes.Structure):
    """CUpti_PCSamplingConfigurationInfo: the attribute's union is three 64-bit words."""

    _fields_ = [
        ("attributeType", ctypes.c_int),
        ("attributeStatus", ctypes.c_int),
        ("data", ctypes.c_uint64 * 3),
    ]


def _params(*extra):
    """The header's `{size_t size; void* pPriv; CUcontext ctx; ...}` parameter structs;
    their size is up to the end of the last field (CUPTI_PCSAMPLING_STRUCT_SIZE)."""

    class Params(ctypes.Structure):
        _fields_ = [("size", ctypes.c_size_t), ("pPriv", ctypes.c_void_p), ("ctx", ctypes.c_void_p), *extra]

    return Params


ContextParams = _params()  # Enable, Disable, Start, Stop
ConfigParams = _params(("numAttributes", ctypes.c_size_t), ("pInfo", ctypes.POINTER(ConfigInfo)))
GetDataParams = _params(("pcSamplingData", ctypes.c_void_p))
NumStallParams = _params(("numStallReasons", ctypes.POINTER(ctypes.c_size_t)))
StallNamesParams = _params(
    ("numStallReasons", ctypes.c_size_t),
    ("stallReasonIndex", ctypes.POINTER(ctypes.c_uint32)),
    ("stallReasons", ctypes.POINTER(ctypes.c_char_p)),
)


def find_cupti() -> str | None:
    """libcupti: $TRITON_CUPTI_LIB_PATH, Triton's wheel, the nvidia-cuda-cupti wheel, the system."""
    places = []
    if env := os.environ.get("TRITON_CUPTI_LIB_PATH"):
        places.append(os.path.join(env, "libcupti.so"))
    try:
        import triton

        places.append(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/lib/cupti/libcupti.so"))
    except ImportError:
        pass
    try:
        import nvidia.cuda_cupti as wheel  # torch's dependency

        places += sorted(glob.glob(os.path.join(list(wheel.__path__)[0], "lib", "libcupti.so*")))
    except ImportError:
        pass
    places.append(ctypes.util.find_library("cupti") or "")
    return next((p for p in places if p and os.path.exists(p)), None)


@dataclass(frozen=True)
class PCSamples:
    """What one sampling window saw: per (function, SASS offset), samples per stall
    reason name; CUPTI's own total and dropped counts; the reason names by index."""

    by_pc: dict[tuple[str, int], dict[str, int]]
    total_samples: int  # the sum over every PC and reason
    dropped_samples: int
    reasons: dict[int, str]
    cupti_total_samples: int = 0  # CUpti_PCSamplingData.totalSamples, as CUPTI reported it

    def functions(self) -> set[str]:
        return {name for name, _ in self.by_pc}


class Sampler:
    """One context's PC sampling: `with Sampler() as s: ...; samples = s.window(fn)`."""

    def __init__(self) -> None:
        path = find_cupti()
        if path is None:
            raise PCSamplingUnavailable("libcupti not found (Triton's wheel ships it for NVIDIA GPUs)")
        try:
            self.cupti = ctypes.CDLL(path)
            self.cuda = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise PCSamplingUnavailable(f"cannot load CUPTI or the CUDA driver: {e}") from e
        version = ctypes.c_uint32()
        self._check(self.cupti.cuptiGetVersion(ctypes.byref(version)), "cuptiGetVersion")
        self.version = version.value
        self.ctx = ctypes.c_void_p()
        self.cuda.cuCtxGetCurrent(ctypes.byref(self.ctx))
        if not self.ctx.value:
            raise PCSamplingUnavailable("no current CUDA context: initialise CUDA (torch.cuda.init()) first")
        self._enabled = False

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            text = ctypes.c_char_p()
            self.cupti.cuptiGetResultString(status, ctypes.byref(text))
            why = text.value.decode(errors="replace") if text.value else f"error {status}"
            raise PCSamplingUnavailable(f"{what}: {why}")

    def _call(self, fn: str, params) -> None:
        self._check(getattr(self.cupti, fn)(ctypes.byref(params)), fn)

    def _context_params(self):
        return ContextParams(ctypes.sizeof(ContextParams), None, self.ctx)

    def __enter__(self) -> Sampler:
        self._call("cuptiPCSamplingEnable", self._context_params())
        self._enabled = True
        self._configure()
        return self

    def __exit__(self, *exc) -> None:
        if self._enabled:
            self._enabled = False
            self.cupti.cuptiPCSamplingDisable(ctypes.byref(self._context_params()))

    def _configure(self) -> None:
        count = ctypes.c_size_t()
        self._call(
            "cuptiPCSamplingGetNumStallReasons",
            NumStallParams(ctypes.sizeof(NumStallParams), None, self.ctx, ctypes.pointer(count)),
        )
        n = count.value
        self._indices = (ctypes.c_uint32 * n)()
        self._name_buffers = [ctypes.create_string_buffer(STALL_NAME_SIZE) for _ in range(n)]
        names = (ctypes.c_char_p * n)(*[ctypes.cast(b, ctypes.c_char_p) for b in self._name_buffers])
        self._call(
            "cuptiPCSamplingGetStallReasons",
            StallNamesParams(ctypes.sizeof(StallNamesParams), None, self.ctx, n, self._indices, names),
        )
        self.reasons = {self._indices[i]: self._name_buffers[i].value.decode() for i in range(n)}
        # the data buffer: PCS_PER_READ records, each with room for every stall reason
        self._pcs = (PCData * PCS_PER_READ)()
        self._stalls = [(StallReason * n)() for _ in range(PCS_PER_READ)]
        pc_size = ctypes.sizeof(PCData) if self.version >= _CUDA12_4_API else PCData.correlationId.offset
        for record, stalls in zip(self._pcs, self._stalls):
            record.size = pc_size
            record.stallReason = stalls
        self._data = PCSamplingData(
            size=ctypes.sizeof(PCSamplingData), collectNumPcs=PCS_PER_READ, pPcData=self._pcs
        )
        attrs = [
            (_ATTR_STALL, (n, ctypes.addressof(self._indices))),
            (_ATTR_PERIOD, (SAMPLING_PERIOD,)),
            (_ATTR_HARDWARE, (HARDWARE_BUFFER,)),
            (_ATTR_SCRATCH, (SCRATCH_BUFFER,)),
            (_ATTR_DATA_BUFFER, (ctypes.addressof(self._data),)),
            (_ATTR_START_STOP, (1,)),
            (_ATTR_MODE, (_MODE_CONTINUOUS,)),
        ]
        self._infos = (ConfigInfo * len(attrs))()
        for info, (kind, words) in zip(self._infos, attrs):
            info.attributeType = kind
            for i, w in enumerate(words):
                info.data[i] = w
        self._call(
            "cuptiPCSamplingSetConfigurationAttribute",
            ConfigParams(ctypes.sizeof(ConfigParams), None, self.ctx, len(attrs), self._infos),
        )

    def window(self, chunks, synchronize) -> PCSamples:
        """Sample while each of `chunks` (callables) runs, draining CUPTI's buffers after
        each: a long window at once overflows the hardware buffer (CUPTI_ERROR_OUT_OF_MEMORY
        from GetData, seen on an H200 with 300 ms of a matmul)."""
        by_pc: dict[tuple[str, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        reported = dropped = 0
        for chunk in chunks:
            self._data.totalNumPcs = self._data.remainingNumPcs = 0  # nothing left from before
            synchronize()
            self._call("cuptiPCSamplingStart", self._context_params())
            try:
                chunk()
                synchronize()
            finally:
                self._call("cuptiPCSamplingStop", self._context_params())
            got, dropped_here = self._drain(by_pc)
            reported += got
            dropped += dropped_here
        counted = {k: dict(v) for k, v in by_pc.items()}
        total = sum(sum(v.values()) for v in counted.values())
        return PCSamples(counted, total, int(dropped), dict(self.reasons), int(reported))

    def _drain(self, by_pc) -> tuple[int, int]:
        """As Proton: what Stop left in the buffer, then GetData until nothing remains."""
        reported = dropped = 0
        first = True
        while self._data.totalNumPcs > 0 or self._data.remainingNumPcs > 0 or first:
            reported = max(reported, self._data.totalSamples)
            dropped = max(dropped, self._data.droppedSamples)
            for i in range(self._data.totalNumPcs):
                record = self._pcs[i]
                name = ctypes.string_at(record.functionName).decode() if record.functionName else "?"
                counts = by_pc[(name, record.pcOffset)]
                for j in range(record.stallReasonCount):
                    stall = record.stallReason[j]
                    counts[self.reasons.get(stall.index, str(stall.index))] += stall.samples
            if self._data.remainingNumPcs > 0 or first:
                first = False
                self._data.totalNumPcs = self._data.totalSamples = self._data.droppedSamples = 0
                self._call(
                    "cuptiPCSamplingGetData",
                    GetDataParams(ctypes.sizeof(GetDataParams), None, self.ctx, ctypes.addressof(self._data)),
                )
            else:
                break
        return reported, dropped
