"""ATen's CUDA hooks where the autograd engine asks them, on a machine with no GPU.

A backward pass through tensors that say they are on the GPU (torch.compile's fakes,
which are cuda:0 so Inductor generates the GPU's kernels) runs PyTorch's C++ autograd
engine. Before running a graph with a node on the accelerator, the engine remembers the
caller's current stream on every device that has a CUDA primary context
(`GraphTask::stash_current_streams`): it asks `CUDAHooks::hasPrimaryContext(i)` for each
device the CUDA device guard counts. Where no GPU is visible, FakeTensorMode puts a
no-op guard in for CUDA (`torch._C._ensureCUDADeviceGuardSet`), which counts one
device, and the CUDA hooks of a CUDA build then refuse index 0 ("hasPrimaryContext
expects a valid device index, but got device_index=0"): AOTAutograd cannot trace any
backward. (A CPU-only build has no accelerator, so its engine never asks.)

The truthful answer here is "no context": there is no device. The hooks' own
`isAvailable` says exactly that (false where the CUDA runtime sees no device), so the
hooks' `hasPrimaryContext` entry is pointed at it. The engine then keeps no caller
stream, which on a GPU only orders work after the backward: nothing it traces changes,
so the backward graph and Inductor's kernels are the GPU's.

The entry is found by PyTorch's own declaration order of the hooks' virtual methods
(`AcceleratorHooksInterface.h`, shipped with every torch wheel), checked against the
binary by calling the two entries before it (`isBuilt` true, `isAvailable` false). Where
anything does not hold (a CPU-only build, a visible GPU, no header, another layout),
nothing is changed and `install` says why.

Runs only inside the capture worker, before the file.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from typing import Any

# A comment in a C++ header; removed before counting declarations.
# Example: "  // squelch -Werror=non-virtual-dtor" or "/* deprecated */"
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
# One virtual member function declaration and its name.
# Example: "  virtual bool hasPrimaryContext(DeviceIndex device_index) const = 0;"
# Example: "  virtual ~AcceleratorHooksInterface() = default;"
_VIRTUAL_RE = re.compile(r"\bvirtual\b[^;{(]*?(~?\w+)\s*\(")

_PROT_READ, _PROT_WRITE = 1, 2

# Why `install` changed nothing (None: the engine's question is answered, or has a real
# answer); a backward that fails to trace says it.
NOT_ANSWERED: str | None = None


def virtual_slots(header_text: str, struct: str) -> list[str]:
    """The vtable entries of `struct` as declared in `header_text`, in order (the
    Itanium C++ ABI gives a virtual destructor two entries: complete and deleting)."""
    text = _COMMENT_RE.sub("", header_text)
    start = text.find(f"struct TORCH_API {struct}")
    if start < 0:
        return []
    end = text.find("\n};", start)  # the struct's closing brace, at the start of a line
    slots: list[str] = []
    for m in _VIRTUAL_RE.finditer(text, start, end if end > 0 else len(text)):
        name = m.group(1)
        slots += [name, name] if name.startswith("~") else [name]
    return slots


def install(torch: Any) -> None:
    """Answer the engine's hasPrimaryContext with the hooks' isAvailable (see the module
    docstring); where nothing is changed, NOT_ANSWERED says why."""
    global NOT_ANSWERED
    NOT_ANSWERED = _answer(torch)


def _answer(torch: Any) -> str | None:
    if not torch.version.cuda or sys.platform != "linux":
        return "not a CUDA build on Linux"
    root = os.path.dirname(torch.__file__)
    header = os.path.join(root, "include", "ATen", "detail", "AcceleratorHooksInterface.h")
    try:
        with open(header, encoding="utf-8") as f:
            slots = virtual_slots(f.read(), "AcceleratorHooksInterface")
        built, available, has_context = (
            slots.index(n) for n in ("isBuilt", "isAvailable", "hasPrimaryContext")
        )
        aten = ctypes.CDLL(os.path.join(root, "lib", "libtorch_cpu.so"))
    except (OSError, ValueError) as exc:
        return f"torch's CUDA hooks not found ({exc})"
    get_hooks = aten._ZN2at6detail12getCUDAHooksEv  # at::detail::getCUDAHooks()
    get_hooks.restype = ctypes.c_void_p
    hooks = get_hooks()
    vtable = ctypes.c_void_p.from_address(hooks).value
    answer = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p)

    def entry(index: int) -> int:
        return ctypes.c_void_p.from_address(vtable + index * ctypes.sizeof(ctypes.c_void_p)).value

    if not answer(entry(built))(hooks):
        return "torch's CUDA hooks are not its CUDA build's"
    if answer(entry(available))(hooks):
        return None  # a GPU is visible: the engine's question has a real answer
    try:
        write_pointer(vtable + has_context * ctypes.sizeof(ctypes.c_void_p), entry(available))
    except OSError as exc:
        return f"the CUDA hooks' table could not be written ({exc})"
    return None


def write_pointer(address: int, value: int) -> None:
    """One pointer of a vtable or a global offset table, which the loader left read-only
    (RELRO)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    page = os.sysconf("SC_PAGE_SIZE")
    start = address & ~(page - 1)
    if libc.mprotect(start, page, _PROT_READ | _PROT_WRITE) != 0:
        raise OSError(ctypes.get_errno(), "mprotect")
    ctypes.c_void_p.from_address(address).value = value
    libc.mprotect(start, page, _PROT_READ)
