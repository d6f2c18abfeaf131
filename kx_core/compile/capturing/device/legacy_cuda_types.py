"""torch.cuda's legacy tensor types on the capture device.

Older model code makes and checks GPU tensors with the legacy types:
`torch.arange(0, n, out=torch.cuda.LongTensor(n))` (Tacotron 2), `Tensor = torch.cuda.FloatTensor
if cuda else torch.FloatTensor; Tensor(batch, 1).fill_(1.0)` (GAN training scripts),
`isinstance(x, torch.cuda.FloatTensor)`, `x.type(torch.cuda.FloatTensor)`. Each type is a C++
class whose constructor allocates with CUDA's allocator, past kx's modes ("Found no NVIDIA
driver"), and whose isinstance compares dispatch keys (a capture tensor's are the meta device's).

During capture each of those names in torch.cuda is a stand-in that constructs through the
capture device and checks instances as the type does. The legacy constructor's forms
(torch/csrc/utils/tensor_new.cpp, `legacy_tensor_generic_ctor_new`), decided as PyTorch decides
them:
- no argument: an empty tensor;
- sizes (ints, or one torch.Size): uninitialised memory, `torch.empty` on the GPU;
- a tensor of the same type: that tensor (any other type raises);
- anything else is data (a list, a tuple, a numpy array): the host's own legacy type of the
  same name makes the tensor, so every rule of the data form is PyTorch's, and it is copied to
  the GPU, its values known as a real run's are.
`Tensor.type()` reads are fake_torch's (`type_named`)."""

from __future__ import annotations

import numbers
import sys
import warnings
from typing import Any

# the legacy type names torch.cuda has (each also a host type: torch.FloatTensor)
NAMES = (
    "BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
    "HalfTensor", "IntTensor", "LongTensor", "ShortTensor",
)  # fmt: skip


# What PyTorch warns once, at the first legacy CUDA constructor (python_tensor.cpp)
_CONSTRUCTOR_WARNING = (
    "The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods such as "
    "torch.tensor(data, dtype=*, device='cuda') to create tensors."
)
_warned: list[bool] = []


class _TensorType(type):
    """The type of each stand-in (`torch.cuda.LongTensor` is a class of it), named as
    PyTorch's own metaclass, `torch.tensortype`: dynamo knows legacy types by that name
    (`x.type(T)` in a compiled frame), and puts a call of one in the graph as it does the real
    type's, reading torch.cuda's names (install()). (A class standing in with a metaclass of
    another name was called by dynamo as a plain Python class: "LongTensor() takes no
    arguments".)"""

    dtype: Any
    _torch: Any
    _host_type: Any

    def __call__(cls, *args: Any, device: Any = None) -> Any:
        torch = cls._torch
        if device is not None and torch.device(device).type != "cuda":
            # (the message is PyTorch's own, check_legacy_ctor_device)
            raise RuntimeError(
                f"legacy constructor expects device type: cuda but device type: {torch.device(device).type} was passed"
            )
        if not _warned:
            _warned.append(True)
            warnings.warn(_CONSTRUCTOR_WARNING, UserWarning, stacklevel=2)
        if not args:
            return torch.empty(0, dtype=cls.dtype, device="cuda")
        if _is_size(torch, args):
            sizes = tuple(args[0]) if isinstance(args[0], torch.Size) else args
            return torch.empty(sizes, dtype=cls.dtype, device="cuda")
        if len(args) == 1 and isinstance(args[0], torch.Tensor):
            if isinstance(args[0], cls):
                return args[0]  # the legacy `new(Tensor other)`: the tensor itself
            raise TypeError(f"expected {cls.__name__} (got {args[0].type()})")
        return cls._host_type(*args).to("cuda")

    def __instancecheck__(cls, obj: Any) -> bool:
        torch = cls._torch
        return (
            isinstance(obj, torch.Tensor)
            and _on_the_gpu(obj)
            and obj.dtype == cls.dtype
            and obj.layout == torch.strided
        )

    def __subclasscheck__(cls, sub: Any) -> bool:
        return sub is cls

    def __repr__(cls) -> str:
        return f"<class 'torch.cuda.{cls.__name__}'>"


_TensorType.__module__, _TensorType.__name__, _TensorType.__qualname__ = "torch", "tensortype", "tensortype"


def _stand_in(torch: Any, name: str) -> Any:
    """The capture's `torch.cuda.<name>`."""
    host_type = getattr(torch, name)  # torch.LongTensor: the data form's maker
    return _TensorType(
        name,
        (),
        {
            "__module__": "torch.cuda",
            "__qualname__": name,
            "dtype": host_type.dtype,
            "is_cuda": True,
            "is_sparse": False,
            "_torch": torch,
            "_host_type": host_type,
        },
    )


def _on_the_gpu(t: Any) -> bool:
    """Whether a real run has tensor `t` on the GPU (a capture tensor, unless a real run has it
    on the host). (`t.is_cuda` read here, in kx's code, is the meta tensor's own False.)"""
    from kx_core.compile.capturing.device import device_checks

    return bool(t.is_cuda) or (t.is_meta and device_checks.device_of(t) == device_checks.GPU)


def _is_size(torch: Any, args: tuple) -> bool:
    """Whether a legacy constructor's arguments are its sizes: ints (`LongTensor(7)`,
    `FloatTensor(3, 8)`) or one torch.Size; a tuple or list of ints is data
    (`FloatTensor((2, 3))` holds 2 and 3)."""
    if len(args) == 1 and isinstance(args[0], torch.Size):
        return True
    return all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args)


def type_named(torch: Any, value: Any) -> tuple[bool, Any] | None:
    """(on the GPU, dtype) of a legacy type given to `Tensor.type(...)`: a name
    ('torch.cuda.FloatTensor', 'torch.HalfTensor') or a type (a stand-in or PyTorch's own,
    whose `is_cuda` and `dtype` say it; read so in a compiled frame too, where dynamo traces
    this: `type(t).__name__` there was a descriptor it could not put in a graph); None for
    anything else (a dtype: the call keeps the tensor's device)."""
    if isinstance(value, (_TensorType, type(torch.FloatTensor))):
        return bool(value.is_cuda), value.dtype
    if not isinstance(value, str):
        return None
    parts = value.split(".")
    if len(parts) == 3 and parts[:2] == ["torch", "cuda"] and parts[2] in NAMES:
        return True, getattr(torch, parts[2]).dtype
    if len(parts) == 2 and parts[0] == "torch" and parts[1] in NAMES:
        return False, getattr(torch, parts[1]).dtype
    return None


def as_to(torch: Any, tensor: Any, wanted: Any) -> Any:
    """`tensor.type(wanted)` as the `to` it is, for a traced call (a fake tensor: its device
    is the one a real run has); a dtype or anything else as PyTorch's own `type`."""
    named = type_named(torch, wanted)
    if named is None:
        return torch.Tensor.type(tensor, wanted)
    on_gpu, dtype = named
    return tensor.to(torch.device("cuda", 0) if on_gpu else torch.device("cpu"), dtype)


def type_name(torch: Any, dtype: Any, on_gpu: bool) -> str:
    """What `Tensor.type()` says of a tensor of `dtype`: 'torch.cuda.FloatTensor' on the GPU."""
    host = torch.empty(0, dtype=dtype, device="cpu").type()  # PyTorch's own name: 'torch.FloatTensor'
    return host.replace("torch.", "torch.cuda.", 1) if on_gpu else host


def install(torch: Any) -> None:
    """Put the stand-ins in torch.cuda, where dynamo finds them too. (Again in one process:
    the same.)"""
    from kx_core.compile.capturing.import_hooks import after_import

    stand_ins = {}
    for name in NAMES:
        current = getattr(torch.cuda, name, None)
        if current is not None:
            stand_ins[name] = current if isinstance(current, _TensorType) else _stand_in(torch, name)
            setattr(torch.cuda, name, stand_ins[name])

    set_default = getattr(torch.set_default_tensor_type, "__wrapped__", torch.set_default_tensor_type)
    made_the_gpu_default: list[bool] = []

    def set_default_tensor_type(t: Any) -> None:
        # A GPU type as the default makes factories given no device make GPU tensors, and
        # sets the default dtype: here the host type of its dtype sets the dtype (given the
        # CUDA type, PyTorch's C++ would allocate on CUDA wherever it makes a default tensor),
        # and the GPU becomes the default device, as `torch.set_default_device("cuda")` makes
        # it. (torch's own looks a name up in torch.cuda, where it now finds a stand-in.)
        if isinstance(t, str) and t.startswith("torch.cuda.") and t[len("torch.cuda.") :] in stand_ins:
            t = stand_ins[t[len("torch.cuda.") :]]
        if not isinstance(t, _TensorType):
            set_default(t)
            if made_the_gpu_default:
                # a host type again: factories make host tensors, as the capture's own
                # default device (meta, fake_torch) has them made
                made_the_gpu_default.clear()
                torch.set_default_device("meta")
            return
        set_default(getattr(torch, t.__name__))
        torch.set_default_device("cuda")
        made_the_gpu_default.append(True)

    set_default_tensor_type.__wrapped__ = set_default  # type: ignore[attr-defined]
    torch.set_default_tensor_type = set_default_tensor_type

    def known_to_dynamo(dynamo: Any) -> None:
        # dynamo puts a call of torch.cuda's legacy types in its graph, as it does torch's own
        # classes: it reads them from torch.cuda once, into a cached set, which must hold the
        # stand-ins. (Its table of types for `isinstance` holds the host's types only: there
        # `isinstance(x, torch.cuda.FloatTensor)` is False in a compiled frame on a GPU too, and
        # is left so.)
        user_defined = sys.modules.get("torch._dynamo.variables.user_defined")
        in_graph = getattr(getattr(user_defined, "UserDefinedClassVariable", None), "_in_graph_classes", None)
        if hasattr(in_graph, "cache_clear"):
            in_graph.cache_clear()

    after_import("torch._dynamo", known_to_dynamo)
