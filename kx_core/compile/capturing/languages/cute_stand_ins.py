"""What the CuTe DSL sees of the GPU under kx's capture: kx's stand-ins for CUDA tensors
through `from_dlpack`, and the capture device behind the DSL's driver queries.

A CuTe DSL script usually makes its inputs with torch on the GPU and hands them to the
DSL: `from_dlpack(torch.randn(M, N, device="cuda"), assumed_align=16)`. Under kx's
capture such a tensor is a meta tensor (no GPU, no data), which DLPack cannot export, so
the script stopped there ("Cannot pack tensors on meta"). The DSL reads only a tensor's
description to compile (DLPack's device, dtype, shape, strides; its data pointer only
for alignment), so kx hands it a DLPack capsule describing exactly the CUDA tensor the
real run would have: device kDLCUDA 0, the stand-in's dtype, shape and strides, and a
data address aligned to 256 bytes (what the CUDA caching allocator gives) that points at
nothing. The compiled program is then the one the real run compiles; its launch, which
needs the GPU, is skipped (said once), and the file goes on to its next program; kx says once
per run, as a `placeholder` diagnostic at the call's line, that the tensors were
stand-ins.

Scripts also start the driver (`cutlass.cuda.initialize_cuda_context()`) and size
persistent grids by `cutlass.utils.HardwareInfo().get_max_active_clusters(n)`: under the
capture the first does nothing and the second answers from the capture device (the
target's GPU in kx's table: its SM count over the cluster size, one CTA an SM, what the
driver's occupancy query gives for a kernel that takes a whole SM's shared memory; the
L2 size and SM count as the table has them), each said once as a placeholder.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

# DLPack's C structs (dlpack.h, the unversioned DLManagedTensor the capsule "dltensor" holds)
_KDL_CUDA = 2
_ALIGNED_ADDRESS = 1 << 40  # 256-byte aligned, never dereferenced at compile time
# torch dtype name -> (DLDataTypeCode, bits): kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
_DTYPES = {
    "float32": (2, 32), "float16": (2, 16), "float64": (2, 64), "bfloat16": (4, 16),
    "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64), "uint8": (1, 8),
    "bool": (6, 8), "float8_e4m3fn": (2, 8), "float8_e5m2": (2, 8),
}  # fmt: skip


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [
    ("dl_tensor", _DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _DELETER),
]
_KEEP: list = []  # the structs and arrays a capsule points at live as long as the run
_NO_DELETE = _DELETER(lambda _p: None)

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class CudaTensorDescription:
    """A DLPack producer for a CUDA tensor of this shape, strides and dtype, with no data."""

    def __init__(self, shape: tuple[int, ...], strides: tuple[int, ...], dtype: str) -> None:
        if dtype not in _DTYPES:
            raise TypeError(f"kx has no DLPack code for dtype {dtype}")
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), dtype

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_KDL_CUDA, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):  # noqa: ARG002
        n = len(self.shape)
        shape = (ctypes.c_int64 * max(n, 1))(*self.shape)
        strides = (ctypes.c_int64 * max(n, 1))(*self.strides)
        code, bits = _DTYPES[self.dtype]
        managed = _DLManagedTensor()
        managed.dl_tensor = _DLTensor(
            _ALIGNED_ADDRESS, _DLDevice(_KDL_CUDA, 0), n, _DLDataType(code, bits, 1), shape, strides, 0
        )
        managed.deleter = _NO_DELETE
        _KEEP.extend((shape, strides, managed))
        return _capsule_new(ctypes.addressof(managed), b"dltensor", None)


def _stand_in(tensor):
    """The description of the CUDA tensor a kx stand-in (a meta tensor) stands for, or
    None for anything else (a real CPU tensor, an array, a description already)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(tensor, torch.Tensor) or not tensor.is_meta:
        return None
    return CudaTensorDescription(
        tuple(tensor.shape), tuple(tensor.stride()), str(tensor.dtype).replace("torch.", "")
    )


def install(tell) -> bool:
    """Put the stand-ins in the DSL (cutlass.cute.runtime's from_dlpack, cutlass.cuda's
    initialize_cuda_context, cutlass.utils's HardwareInfo) before the user's file imports
    them; `tell(what, file, line)` is called once per kind, with the user's line. False
    where the DSL does not import."""
    try:
        import cutlass.cute.runtime as runtime
    except Exception:  # noqa: BLE001 - no DSL (or a broken one): the file's own import says so
        return False
    original = runtime.from_dlpack
    if getattr(original, "_kx_stand_in", False):
        return True
    told: set[str] = set()

    def once(what: str) -> None:
        if what not in told:
            told.add(what)
            caller = _user_frame(sys._getframe(2))
            tell(what, caller.f_code.co_filename, caller.f_lineno)

    def from_dlpack(tensor_dlpack, *args, **kwargs):
        described = _stand_in(tensor_dlpack)
        if described is not None:
            once("from_dlpack")
            tensor_dlpack = described
        return original(tensor_dlpack, *args, **kwargs)

    from_dlpack.__doc__ = original.__doc__
    from_dlpack._kx_stand_in = True
    _rebind("from_dlpack", original, from_dlpack)
    _install_driver(once)
    _install_launch(once)
    return True


def _install_launch(once) -> None:
    """A compiled program's launch, which needs a GPU, is skipped (said once), so the file
    goes on to compile the programs after it, as its real run does; what the program
    would have written stays what it was (kx's placeholder data)."""
    try:
        from cutlass.base_dsl import jit_executor
    except Exception:  # noqa: BLE001 - another DSL layout: its launch then fails as it would
        return

    def run_compiled_program(self, exe_args):  # noqa: ARG001 - the DSL's signature
        once("launch")
        return 0

    for name in ("JitCompiledFunction", "JitExecutor"):
        cls = getattr(jit_executor, name, None)
        if cls is not None and hasattr(cls, "run_compiled_program"):
            cls.run_compiled_program = run_compiled_program


def _user_frame(frame):
    """The innermost frame outside the DSL and kx (a DSL helper such as
    create_cute_tensor_for_fp8 calls from_dlpack for the user's line)."""
    import os

    import cutlass

    skip = (os.path.dirname(cutlass.__file__), str(Path(__file__).parents[3]))
    f = frame
    while f is not None:
        if not f.f_code.co_filename.startswith(skip):
            return f
        f = f.f_back
    return frame


def _rebind(name: str, original, replacement) -> None:
    """Every loaded cutlass module's `name` that is `original` becomes `replacement`: the
    DSL's own helpers bound the name when they were imported (cutlass.torch,
    cutlass.utils.tensor_helpers, cute.testing, ...); modules imported later bind the
    replacement from its defining module."""
    for mod_name, module in list(sys.modules.items()):
        if mod_name.split(".")[0] == "cutlass" and getattr(module, name, None) is original:
            setattr(module, name, replacement)


def _install_driver(once) -> None:
    try:
        import cutlass.base_dsl.runtime.cuda as dsl_cuda
        import cutlass.utils.hardware_info as hardware_info
    except Exception:  # noqa: BLE001 - another DSL layout: its own driver calls then fail as they would
        return
    from kx_core.compile.capturing import capture_state

    report = capture_state.STATE.report
    gpu = getattr(report, "gpu", None)
    if gpu is None:
        return

    def initialize_cuda_context(device_id: int = 0, flags: int = 0):
        once("initialize_cuda_context")
        return None

    class HardwareInfo:
        """cutlass.utils.HardwareInfo answered by the capture device (see the module)."""

        def __init__(self, device_id: int = 0) -> None:
            once("HardwareInfo")
            self.device_id = device_id

        def get_max_active_clusters(self, cluster_size: int, stream=None) -> int:
            if cluster_size <= 0 or cluster_size > 32:
                raise ValueError(f"Cluster size must be between 1 and 32, {cluster_size} is not supported")
            return gpu.sm_count // cluster_size

        def get_l2_cache_size_in_bytes(self) -> int:
            return gpu.l2_bytes

        def get_device_multiprocessor_count(self) -> int:
            return gpu.sm_count

    _rebind("initialize_cuda_context", dsl_cuda.initialize_cuda_context, initialize_cuda_context)
    _rebind("HardwareInfo", hardware_info.HardwareInfo, HardwareInfo)

    # streams: launches are skipped (_install_launch), so there is nothing to wait for;
    # a stream made is the default one (a CUstream needs no driver)
    def stream_sync(stream=None) -> None:  # noqa: ARG001 - the DSL's signature
        return None

    def stream_create(*args, **kwargs):  # noqa: ARG001 - the DSL's signature
        return dsl_cuda.cuda.CUstream(0)

    for name, replacement in (
        ("stream_sync", stream_sync),
        ("stream_destroy", stream_sync),
        ("stream_create", stream_create),
    ):
        original = getattr(dsl_cuda, name, None)
        if original is not None:
            _rebind(name, original, replacement)
