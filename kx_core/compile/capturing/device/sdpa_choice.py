"""Which attention kernel `F.scaled_dot_product_attention` runs: PyTorch's own choice, asked
as on the capture GPU.

PyTorch's SDPA is a C++ composite that picks a backend (cuDNN, flash, memory-efficient or
math) by calling `_fused_sdp_choice_stub` for the query's device; on CUDA that is
`_fused_sdp_choice_cuda` (sdp_utils.cpp, `select_sdp_backend`): each backend's filters
(dtypes, head dims, masks, dropout, strides, the flags a file sets with `sdpa_kernel`)
and its hardware check, which asks `at::cuda::is_available()` and the current device's
`cudaDeviceProp` (the compute capability; on sm90 and sm100 with a recent cuDNN the
priority order puts cuDNN first). Without a GPU the hardware checks fail and math wins, so
under torch.compile attention became softmax Triton kernels a real run does not have (it
calls the fused kernel, an extern call in Inductor's code): silently.

Here the stub's CUDA entry is a trampoline that calls PyTorch's own `_fused_sdp_choice_cuda`
while libtorch_cuda's device questions answer as the capture GPU (cuda_device_queries.py).
Every filter, the priority order and the file's flags are PyTorch's; only the device is
the capture's. The answer is exact (no placeholder): it is what this torch picks on that GPU.

The C++ caller cannot take a Python exception, and a C++ exception must not cross the
trampoline's Python frames. So before PyTorch's selection runs, each enabled backend's
filter is asked through PyTorch's Python bindings (`torch.backends.cuda.can_use_*`, which
turn C++ errors into Python ones) on the same tensors (`THPVariable_Wrap`): where none
could run and math is off, the trampoline answers "no backend" and the composite raises
PyTorch's own "No viable backend" error at the file's line, as selection would have
raised; where a filter itself raised, math is taken and said as a placeholder.

A file may ask PyTorch itself (`torch.backends.cuda.can_use_flash_attention(params)` and
the efficient and cuDNN ones; dynamo folds these calls on its fakes): each is answered as
on the capture GPU too, on fakes of the GPU made from capture tensors where the file asks
eagerly. And an eager call on capture tensors (meta tensors: the composite runs math
there) gives its output the strides the GPU's kernel gives it (`gpu_layout`: the composite
run on those fakes), which a later compiled graph or kernel specializes on.

Where the capture GPU cannot be stood in for (cuda_device_queries.NOT_ANSWERED says why),
PyTorch's answer without a GPU is taken and said as a placeholder naming the backend;
where not even the stub is found, nothing changes and `NOT_ANSWERED` says why.

Runs only inside the capture worker, before the file.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

from kx_core.compile.capturing.device import cuda_device_queries
from kx_core.model.boards import DeviceReport

# at::native::_fused_sdp_choice_stub (libtorch_cpu.so) and the CUDA function it calls
_STUB = "_ZN2at6native22_fused_sdp_choice_stubE"
_CUDA_CHOICE = "_ZN2at6native22_fused_sdp_choice_cudaERKNS_6TensorES3_S3_RKSt8optionalIS1_EdbS4_IdEb"
_WRAP = "_Z16THPVariable_WrapRKN2at10TensorBaseE"  # THPVariable_Wrap(const at::TensorBase&)
# how many pointer slots of the stub are searched for its CUDA entry (the struct holds a
# few per device type)
_STUB_SLOTS = 16
MATH, ERROR = 0, -1

# Why the trampoline is not installed (None: it is).
NOT_ANSWERED: str | None = None


class _OptionalDouble(ctypes.Structure):
    """std::optional<double> as libstdc++ lays it out (passed by value in registers)."""

    _fields_ = [("value", ctypes.c_double), ("engaged", ctypes.c_bool)]


# int64_t (*)(const Tensor& q, const Tensor& k, const Tensor& v, const optional<Tensor>& mask,
#             double dropout_p, bool is_causal, optional<double> scale, bool enable_gqa)
_CHOICE_FN = ctypes.CFUNCTYPE(
    ctypes.c_int64,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_double,
    ctypes.c_bool,
    _OptionalDouble,
    ctypes.c_bool,
)


# PyTorch's filters of each fused backend, as torch._C binds them, by backend number
_CAN_USE = {
    3: "_can_use_cudnn_attention",
    1: "_can_use_flash_attention",
    2: "_can_use_mem_efficient_attention",
}
_ENABLED = {3: "cudnn_sdp_enabled", 1: "flash_sdp_enabled", 2: "mem_efficient_sdp_enabled"}


def install(torch: Any, report: DeviceReport) -> None:
    """Put the trampoline in the stub's CUDA entry and answer the file's own questions
    (see the module docstring)."""
    global _CHOOSER, NOT_ANSWERED
    if _CHOOSER is not None:
        return
    filters = {backend: getattr(torch._C, name, None) for backend, name in _CAN_USE.items()}
    try:
        _CHOOSER = _Chooser(torch, report, filters)
    except (OSError, ValueError, AttributeError) as exc:
        NOT_ANSWERED = str(exc)
    for backend, name in _CAN_USE.items():
        if filters[backend] is not None:
            setattr(torch._C, name, _asked_on_the_gpu(torch, filters[backend], backend))


def _asked_on_the_gpu(torch: Any, can_use: Any, backend: int) -> Any:
    """torch._C's filter of one backend (what `torch.backends.cuda.can_use_*` calls), asked
    as on the capture GPU, on fakes of the GPU where the file passes capture tensors."""

    def asked(params: Any, debug: bool = False) -> bool:
        from kx_core.compile.capturing.device.gpu_fakes import without_torch_function_modes

        with without_torch_function_modes():  # the capture's mode says a capture tensor is cuda's
            params = _params_on_the_gpu(torch, params)
        with cuda_device_queries.answering() as on_the_gpu:
            usable = can_use(params, debug)
        if not on_the_gpu:
            what = f"whether {_backend_name(backend)} runs scaled_dot_product_attention"
            cuda_device_queries.said(
                what, cuda_device_queries.NOT_ANSWERED or "", f"{usable}, PyTorch's answer on this machine"
            )
        return usable

    return asked


_FAKES: Any = None


def _fakes(torch: Any) -> Any:
    """One FakeTensorMode for the fakes of capture tensors (made at the first use: the
    import costs a second or two, paid only by files that ask eagerly)."""
    global _FAKES
    if _FAKES is None:
        from torch._subclasses.fake_tensor import FakeTensorMode

        _FAKES = FakeTensorMode(allow_non_fake_inputs=True)
    return _FAKES


def _on_the_gpu(torch: Any, t: Any) -> Any:
    """A fake of the GPU for capture tensor `t` (its shape, strides, dtype, requires_grad);
    anything else as it is."""
    if not (isinstance(t, torch.Tensor) and t.is_meta):
        return t
    mode = _fakes(torch)
    return mode.fake_tensor_converter.from_meta_and_device(mode, t, torch.device("cuda", 0))


def _params_on_the_gpu(torch: Any, params: Any) -> Any:
    query = getattr(params, "query", None)
    if not (isinstance(query, torch.Tensor) and query.is_meta):
        return params
    q, k, v, mask = (_on_the_gpu(torch, getattr(params, n)) for n in ("query", "key", "value", "attn_mask"))
    return type(params)(q, k, v, mask, params.dropout, params.is_causal, params.enable_gqa)


def gpu_layout(torch: Any, out: Any, args: tuple, kwargs: dict) -> Any:
    """The output of an eager scaled_dot_product_attention on capture tensors (math, on the
    meta device) with the strides the GPU's kernel gives it: PyTorch's composite run on fakes
    of the GPU, which picks as on the capture GPU. Where PyTorch finds no backend there (a
    file forcing one the GPU cannot run), it raises, as on the GPU."""
    if not getattr(out, "is_meta", False):
        return out
    mode = _fakes(torch)
    fake_args = tuple(_on_the_gpu(torch, a) for a in args)
    fake_kwargs = {k: _on_the_gpu(torch, v) for k, v in kwargs.items()}
    try:
        with mode:
            ref = torch._C._nn.scaled_dot_product_attention(*fake_args, **fake_kwargs)
    except RuntimeError as exc:
        if "No viable backend" in str(exc):
            raise
        return out  # not PyTorch's answer on the GPU: the meta layout is kept
    strides = tuple(ref.stride())
    if tuple(out.stride()) == strides or tuple(ref.shape) != tuple(out.shape):
        return out
    laid_out = torch.empty_strided(out.shape, strides, dtype=out.dtype, device=out.device)
    return laid_out.copy_(out)  # autograd records the copy: gradients reach q, k and v


_CHOOSER: _Chooser | None = None


class _Chooser:
    def __init__(self, torch: Any, report: DeviceReport, filters: dict[int, Any]) -> None:
        if sys.platform != "linux" or not torch.version.cuda:
            raise ValueError("not a CUDA build of torch on Linux")
        self.torch = torch
        self.report = report
        self.filters = filters
        self.lib = os.path.join(os.path.dirname(torch.__file__), "lib")
        cpu = ctypes.CDLL(os.path.join(self.lib, "libtorch_cpu.so"))
        self.cuda = ctypes.CDLL(os.path.join(self.lib, "libtorch_cuda.so"))
        python = ctypes.PyDLL(os.path.join(self.lib, "libtorch_python.so"))
        stub = ctypes.addressof(ctypes.c_char.in_dll(cpu, _STUB))
        cuda_choice = _address(getattr(self.cuda, _CUDA_CHOICE))
        slots = [stub + i * ctypes.sizeof(ctypes.c_void_p) for i in range(_STUB_SLOTS)]
        found = [s for s in slots if ctypes.c_void_p.from_address(s).value == cuda_choice]
        if len(found) != 1:
            raise ValueError("the SDPA stub's CUDA entry was not found")
        self.wrap = getattr(python, _WRAP)
        self.wrap.argtypes = [ctypes.c_void_p]
        self.wrap.restype = ctypes.py_object
        self._original = _CHOICE_FN(cuda_choice)
        self.trampoline = _CHOICE_FN(self._choose)  # kept alive with the chooser
        ctypes.c_void_p.from_address(found[0]).value = _address(self.trampoline)

    # -- the trampoline: never raises into C++ ---------------------------------------

    def _choose(
        self, q: int, k: int, v: int, mask: int, dropout: float, causal: bool, scale: Any, gqa: bool
    ) -> int:
        from kx_core.compile.capturing.device.placeholders import NeedsRealData

        try:
            try:
                return self.choose(q, k, v, mask, dropout, causal, scale, gqa)
            except NeedsRealData:
                raise
            except BaseException as exc:  # noqa: BLE001 - a C++ caller cannot take it
                return self._said(MATH, f"kx could not ask it: {type(exc).__name__}: {exc}")
        except NeedsRealData:
            # --stop-at-data: a guess stops the file; the composite raises at the file's line
            return ERROR

    def choose(
        self, q: int, k: int, v: int, mask: int, dropout: float, causal: bool, scale: Any, gqa: bool
    ) -> int:
        torch = self.torch
        query, key, value = (self._tensor(p) for p in (q, k, v))
        # std::optional<at::Tensor>: the tensor at offset 0, `engaged` after it
        engaged = ctypes.c_bool.from_address(mask + ctypes.sizeof(ctypes.c_void_p)).value
        attn_mask = self._tensor(mask) if engaged else None
        params = torch.backends.cuda.SDPAParams(query, key, value, attn_mask, dropout, causal, gqa)
        with cuda_device_queries.answering() as on_the_gpu:
            usable, raised = self._filters(params)
            fused_only = not torch.backends.cuda.math_sdp_enabled()
            # PyTorch's selection raises where it finds no backend: only asked where it finds one
            choice = (
                None
                if raised or (fused_only and not any(usable.values()))
                else self._original(q, k, v, mask, dropout, causal, scale, gqa)
            )
        why = cuda_device_queries.NOT_ANSWERED or ""
        if raised is not None:
            return self._said(MATH, f"its filters raised {type(raised).__name__}: {raised}")
        if choice is None:
            if not on_the_gpu and usable:
                # the file allows only fused kernels, none of which a GPU here says it runs
                return self._said(next(iter(usable)), f"{why}; the file allows only fused kernels")
            return ERROR  # PyTorch's "No viable backend" error, raised by the composite
        return choice if on_the_gpu else self._said(choice, why)

    def _tensor(self, address: int) -> Any:
        return self.wrap(address)  # a new reference, which ctypes's py_object result takes

    def _filters(self, params: Any) -> tuple[dict[int, bool], BaseException | None]:
        """{backend: usable} of the enabled fused backends, by PyTorch's own filters, and
        the exception one of them raised (None if none did)."""
        cuda = self.torch.backends.cuda
        usable: dict[int, bool] = {}
        for backend, can_use in self.filters.items():
            if can_use is not None and getattr(cuda, _ENABLED[backend])():
                try:
                    usable[backend] = bool(can_use(params, False))
                except Exception as exc:  # noqa: BLE001 - PyTorch's error, said as such
                    return usable, exc
        return usable, None

    def _said(self, choice: int, why: str) -> int:
        what = "attention kernel for scaled_dot_product_attention"
        cuda_device_queries.said(what, why, f"{_backend_name(choice)}, PyTorch's answer on this machine")
        return choice


def _backend_name(choice: int) -> str:
    names = {0: "math", 1: "flash attention", 2: "memory-efficient attention", 3: "cuDNN attention"}
    return names.get(choice, f"backend {choice}")


def _address(fn: Any) -> int:
    return ctypes.cast(fn, ctypes.c_void_p).value
