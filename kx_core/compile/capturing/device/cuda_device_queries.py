"""PyTorch's C++ questions about the GPU, answered as the capture GPU while PyTorch takes a
decision by them.

Some of PyTorch's decisions on GPU tensors are taken in C++ by asking the CUDA runtime
about the current device, and without a GPU they silently go the other way:
- which attention kernel `scaled_dot_product_attention` runs (sdpa_choice.py): the fused
  backends' hardware checks ask `at::cuda::is_available()` and the device's compute
  capability; without a GPU, math (softmax kernels a real run does not have);
- which convolution backend a bf16 convolution runs (`select_conv_backend`, through
  `CUDAHooks::supportsBFloat16ConvolutionWithCuDNNv8` and the dilated and depthwise
  checks): without a GPU the slow kernel, whose output is contiguous where cuDNN's is
  channels-last, so Inductor generated layout copies a real run does not have.
Every such question of libtorch_cuda.so goes through a few functions, called through its
global offset table: `c10::cuda::device_count()` (what `is_available` asks),
`c10::cuda::current_device()` and `at::cuda::getCurrentDeviceProperties()` /
`getDeviceProperties(index)` (the `cudaDeviceProp`). `answering()` writes those slots (found in the library's ELF file: elf_slots.py) for the duration of the
decision: the count is 1, the device 0, the properties the capture device's (laid out by CUDA's own
header: cuda_device_prop.py); on any other thread they answer as before (through the
window's callback: none of the capture's other threads asks), and after it the slots are
restored. The decision is then PyTorch's own, on the GPU the capture stands for.

Where the GPU cannot be stood in for (an AMD target, whose ROCm build asks other
questions; no slot or header found), `answering()` yields False and `NOT_ANSWERED` says
why: the caller says its guess.

Runs only inside the capture worker; the library is read at the first question.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kx_core.compile.capturing.device import cuda_device_prop, elf_slots
from kx_core.model.boards import DeviceReport

_DEVICE_COUNT = "_ZN3c104cuda12device_countEv"  # c10::cuda::device_count() (libc10_cuda.so)
_CURRENT_DEVICE = "_ZN3c104cuda14current_deviceEv"  # c10::cuda::current_device()
_PROPERTIES = "_ZN2at4cuda26getCurrentDevicePropertiesEv"  # at::cuda::getCurrentDeviceProperties()
_DEVICE_PROPERTIES = "_ZN2at4cuda19getDevicePropertiesEa"  # at::cuda::getDeviceProperties(DeviceIndex)
# the two every question goes through, and two some ask (cuDNN's decode check, sdp_utils)
_REQUIRED = {_DEVICE_COUNT, _PROPERTIES}
_QUESTIONS = _REQUIRED | {_CURRENT_DEVICE, _DEVICE_PROPERTIES}
# an exported function of libtorch_cuda.so, to find where the library is loaded
_ANCHOR = "_ZN2at6native22_fused_sdp_choice_cudaERKNS_6TensorES3_S3_RKSt8optionalIS1_EdbS4_IdEb"

# each question's C signature: DeviceIndex is int8_t, a cudaDeviceProp* a pointer
_SIGNATURES = {
    _DEVICE_COUNT: ctypes.CFUNCTYPE(ctypes.c_int8),
    _CURRENT_DEVICE: ctypes.CFUNCTYPE(ctypes.c_int8),
    _PROPERTIES: ctypes.CFUNCTYPE(ctypes.c_void_p),
    _DEVICE_PROPERTIES: ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int8),
}

# What a placeholder names where a decision could not be asked as on the GPU (capture.py
# words the diagnostic: "<what>: kx took <answer> and went on; ...").
WHAT = "PyTorch's choice of {what} on the {gpu} ({why})"

# Why the capture GPU is not stood in for (None: it is, or nothing was asked yet).
NOT_ANSWERED: str | None = None

_TORCH: Any = None
_REPORT: DeviceReport | None = None
_WINDOW: _Window | None = None
_CHECKED = False
_LOCK = threading.RLock()


def install(torch: Any, report: DeviceReport) -> None:
    """Remember the capture device; the library is read at the first question."""
    global _TORCH, _REPORT
    _TORCH, _REPORT = torch, report


@contextmanager
def answering() -> Iterator[bool]:
    """While inside, libtorch_cuda's device questions on this thread are the capture GPU's
    (yields True), or, where that cannot be (NOT_ANSWERED says why), are unchanged (False)."""
    with _LOCK:
        window = _window()
        if window is None:
            yield False
            return
        with window.open():
            yield True


def _window() -> _Window | None:
    global _WINDOW, _CHECKED, NOT_ANSWERED
    if not _CHECKED:
        _CHECKED = True
        try:
            if _TORCH is None or _REPORT is None:
                raise ValueError("no capture device")
            _WINDOW = _Window(_TORCH, _REPORT)
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            NOT_ANSWERED = str(exc)
    return _WINDOW


class _Window:
    """libtorch_cuda.so's calls of the device questions, answered as the capture GPU on
    the thread that opened it."""

    def __init__(self, torch: Any, report: DeviceReport) -> None:
        if sys.platform != "linux" or not torch.version.cuda:
            raise ValueError("not a CUDA build of torch on Linux")
        if report.is_hip:
            raise ValueError(
                "the target is AMD's: ROCm's PyTorch asks the GPU other questions (AOTriton's "
                "support for it), which this machine's CUDA build cannot ask"
            )
        lib = os.path.join(os.path.dirname(torch.__file__), "lib")
        path = os.path.join(lib, "libtorch_cuda.so")
        found = elf_slots.read_slots(path, _QUESTIONS, _ANCHOR)
        if found.anchor_value is None or not _REQUIRED <= set(found.slots):
            raise ValueError("libtorch_cuda.so's device questions were not found in its table")
        base = _address(getattr(ctypes.CDLL(path), _ANCHOR)) - found.anchor_value
        self.slots = {name: [base + s for s in found.slots[name]] for name in found.slots}
        site = os.path.dirname(os.path.dirname(torch.__file__))
        header = cuda_device_prop.runtime_header(torch.version.cuda, [site])
        if header is None:
            raise ValueError(f"CUDA {torch.version.cuda}'s driver_types.h was not found")
        with open(header, encoding="utf-8", errors="replace") as f:
            fields = cuda_device_prop.field_offsets(f.read())
        if "major" not in fields or "minor" not in fields:
            raise ValueError(f"cudaDeviceProp's compute capability was not found in {header}")
        self.properties = ctypes.create_string_buffer(cuda_device_prop.STRUCT_BYTES)
        cuda_device_prop.fill(memoryview(self.properties).cast("B"), fields, _device_prop_values(report))
        self.thread: int | None = None
        self.real = {name: ctypes.c_void_p.from_address(slots[0]).value for name, slots in self.slots.items()}
        props = ctypes.addressof(self.properties)
        here = {  # the capture GPU's answers
            _DEVICE_COUNT: lambda: 1,
            _CURRENT_DEVICE: lambda: 0,
            _PROPERTIES: lambda: props,
            _DEVICE_PROPERTIES: lambda index: props,
        }
        # kept alive with the window; on another thread each answers as before
        self.answers = {name: self._answer(name, here[name]) for name in self.slots}
        self.depth = 0

    def _answer(self, name: str, here: Any) -> Any:
        signature = _SIGNATURES[name]
        real = signature(self.real[name])
        return signature(lambda *args: here(*args) if self._here() else real(*args))

    def _here(self) -> bool:
        return self.thread == threading.get_ident()

    @contextmanager
    def open(self) -> Iterator[None]:
        from kx_core.compile.capturing.device.cuda_hooks import write_pointer

        if self.depth:  # already open on this thread (the caller holds the lock)
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        self.thread = threading.get_ident()
        self.depth = 1
        answers = {name: _address(answer) for name, answer in self.answers.items()}
        try:
            for name, slots in self.slots.items():
                for slot in slots:
                    write_pointer(slot, answers[name])
            yield
        finally:
            for name, slots in self.slots.items():
                for slot in slots:
                    write_pointer(slot, self.real[name])
            self.thread = None
            self.depth = 0


def _device_prop_values(report: DeviceReport) -> dict[str, object]:
    """cudaDeviceProp's fields as the capture GPU fills them (torch's names mapped)."""
    p = report.torch_properties()
    return {
        "name": p["name"],
        "totalGlobalMem": p["total_memory"],
        "sharedMemPerBlock": p["shared_memory_per_block"],
        "regsPerBlock": p["regs_per_multiprocessor"],
        "warpSize": p["warp_size"],
        "maxThreadsPerBlock": p["max_threads_per_block"],
        "major": report.major,
        "minor": report.minor,
        "multiProcessorCount": p["multi_processor_count"],
        "memoryBusWidth": p["memory_bus_width"],
        "l2CacheSize": p["L2_cache_size"],
        "maxThreadsPerMultiProcessor": p["max_threads_per_multi_processor"],
        "sharedMemPerMultiprocessor": p["shared_memory_per_multiprocessor"],
        "regsPerMultiprocessor": p["regs_per_multiprocessor"],
        "sharedMemPerBlockOptin": p["shared_memory_per_block_optin"],
    }


def _address(fn: Any) -> int:
    return ctypes.cast(fn, ctypes.c_void_p).value


def decided_on_the_gpu(torch: Any, name: str, what: str) -> None:
    """Make `torch._C.<name>`, a decision PyTorch takes in C++ by asking the device, take
    it as on the capture GPU (its callers look it up on torch._C when they call it); where
    the GPU cannot be stood in for, its answer here is said as a placeholder naming `what`."""
    decide = getattr(torch._C, name, None)
    if decide is None or getattr(decide, "_kx_on_the_gpu", False):
        return

    def on_the_gpu(*args: Any, **kwargs: Any) -> Any:
        with answering() as answered:
            out = decide(*args, **kwargs)
        if not answered:
            said(what, NOT_ANSWERED or "", f"{out}, PyTorch's answer on this machine")
        return out

    on_the_gpu._kx_on_the_gpu = True  # type: ignore[attr-defined]
    setattr(torch._C, name, on_the_gpu)


def said(what: str, why: str, answer: str) -> None:
    """A placeholder: PyTorch's choice of `what`, which kx could not ask as on the capture
    GPU (`why`), taken as `answer` (capture.py words it)."""
    from kx_core.compile.capturing.device.placeholders import LEDGER

    gpu = _REPORT.name if _REPORT is not None else "GPU"
    LEDGER.use(WHAT.format(what=what, gpu=gpu, why=why), answer)
