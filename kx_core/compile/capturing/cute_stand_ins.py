"""CuTe DSL's `from_dlpack` on kx's stand-ins for CUDA tensors.

A CuTe DSL script usually makes its inputs with torch on the GPU and hands them to the
DSL: `from_dlpack(torch.randn(M, N, device="cuda"), assumed_align=16)`. Under kx's
capture such a tensor is a meta tensor (no GPU, no data), which DLPack cannot export, so
the script stopped there ("Cannot pack tensors on meta"). The DSL reads only a tensor's
description to compile (DLPack's device, dtype, shape, strides; its data pointer only
for alignment), so kx hands it a DLPack capsule describing exactly the CUDA tensor the
real run would have: device kDLCUDA 0, the stand-in's dtype, shape and strides, and a
data address aligned to 256 bytes (what the CUDA caching allocator gives) that points at
nothing. The compiled program is then the one the real run compiles; launching it, which
dereferences the address, fails here as a launch without a GPU does, and kx says once
per run, as a `placeholder` diagnostic at the call's line, that the tensors were
stand-ins.
"""

from __future__ import annotations

import ctypes
import sys

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


def install(on_first_use) -> bool:
    """Wrap the DSL's `from_dlpack` (cutlass.cute.runtime's and cutlass.cute's) before the
    user's file imports it; `on_first_use(line)` is called once, with the user's line.
    False where the DSL does not import."""
    try:
        import cutlass.cute as cute
        import cutlass.cute.runtime as runtime
    except Exception:  # noqa: BLE001 - no DSL (or a broken one): the file's own import says so
        return False
    original = runtime.from_dlpack
    if getattr(original, "_kx_stand_in", False):
        return True
    told = []

    def from_dlpack(tensor_dlpack, *args, **kwargs):
        described = _stand_in(tensor_dlpack)
        if described is not None:
            if not told:
                told.append(True)
                caller = sys._getframe(1)
                on_first_use(caller.f_code.co_filename, caller.f_lineno)
            tensor_dlpack = described
        return original(tensor_dlpack, *args, **kwargs)

    from_dlpack.__doc__ = original.__doc__
    from_dlpack._kx_stand_in = True
    runtime.from_dlpack = from_dlpack
    if getattr(cute, "from_dlpack", None) is original:
        cute.from_dlpack = from_dlpack
    return True
