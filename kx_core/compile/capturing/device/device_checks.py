"""The check a real run makes before an op runs on the GPU: every tensor on one device.

Under capture a GPU tensor and a tensor a real run has on the CPU (made with no device,
known_values.is_host, or a real CPU tensor) are both meta tensors, so an op given one of each
ran where the GPU raises: `torch.isin(next_token, stop_tokens)` with the stop tokens made on
the host (karpathy/nano-llama31's generate) raised on the H100 before any kernel and ran on
under kx with exit 0 (issue 50, corpus 11).

PyTorch decides it in two places, and kx asks the same sources rather than listing ops:
- The CUDA wrapper torchgen generates for an op checks every tensor among its out and
  positional arguments (`c10::impl::check_and_update_common_device`), unless the op's entry
  in native_functions.yaml says `device_check: NoCheck`. Whether the op has a CUDA kernel is
  the dispatcher's own answer; the entry is read from the yaml torchgen ships in the wheel.
- A NoCheck op built on TensorIterator (`structured_inherits: TensorIteratorBase`, its own
  or its structured delegate's) lets a 0-dim CPU tensor join GPU tensors (a CPU scalar) and
  refuses any other CPU tensor. Other NoCheck ops (indexing, copies, `to`) move or accept
  tensors by their own code: not checked here.

Checked where the capture's torch function mode sees the call (the file's own calls, and
torch's Python code). A composite op (no CUDA kernel of its own: F.linear, matmul, embedding)
given both kinds runs under a dispatch mode that checks each op it calls from C++ the same
way (`composite_checks`): a model never moved to the GPU meets its GPU input in F.linear's
addmm, which raises in a real run (`wrapper_CUDA_addmm`).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any

from kx_core.compile.capturing.device import known_values

# `- func: isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, ...) -> Tensor`
_FUNC_RE = re.compile(r"^- func: (([\w.]+)\(.*)$", re.M)
# `  structured: True`
_STRUCTURED_RE = re.compile(r"^  structured: True", re.M)
# `  device_check: NoCheck   # TensorIterator`
_NO_CHECK_RE = re.compile(r"^  device_check: NoCheck", re.M)
# `  structured_delegate: add.out`
_DELEGATE_RE = re.compile(r"^  structured_delegate: ([\w.]+)", re.M)
# `  structured_inherits: TensorIteratorBase`
_ITERATOR_RE = re.compile(r"^  structured_inherits: TensorIteratorBase", re.M)

# the Python operators whose aten op has the operator's name without underscores
_OPERATORS = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
}  # fmt: skip

CPU, GPU = "cpu", "cuda:0"


@dataclass(frozen=True)
class _Entry:
    signature: str  # the entry's `func:`, as torchgen parses it
    no_check: bool
    iterator: bool  # built on TensorIterator (its own entry or its structured delegate's)
    structured: bool  # its CUDA kernel is a structured one's (its own or its delegate's)


@functools.lru_cache(maxsize=1)
def _entries() -> dict[str, _Entry]:
    """native_functions.yaml's device rules by `name.overload`, from the copy torchgen
    ships with torch; empty where it is missing (no check is made then)."""
    try:
        import torchgen
    except ImportError:
        return {}
    path = os.path.join(
        os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml"
    )
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}
    starts = [(m.start(), m.group(2), m.group(1)) for m in _FUNC_RE.finditer(text)]
    raw: dict[str, tuple[str, bool, str | None, bool, bool]] = {}
    for (start, name, signature), (end, _, _) in zip(starts, [*starts[1:], (len(text), "", "")]):
        body = text[start:end]
        delegate = _DELEGATE_RE.search(body)
        raw[name] = (
            signature.split("#")[0].strip(),
            _NO_CHECK_RE.search(body) is not None,
            delegate.group(1) if delegate else None,
            _ITERATOR_RE.search(body) is not None,
            _STRUCTURED_RE.search(body) is not None,
        )
    entries = {}
    for name, (signature, no_check, delegate, iterator, structured) in raw.items():
        if delegate in raw:
            iterator = iterator or raw[delegate][3]
        entries[name] = _Entry(signature, no_check, iterator, structured or delegate is not None)
    return entries


def check(torch: Any, func: Any, args: tuple, kwargs: dict) -> bool:
    """Raise as a real run's op would where `func(*args, **kwargs)` mixes GPU tensors with
    tensors a real run has on the CPU (see the module doc). True where `func` is given both
    kinds and is no op with a CUDA kernel (a composite, or a function of torch's Python): its
    call is to run under `composite_checks`."""
    devices = _devices_present(torch, args, kwargs)
    if devices != {CPU, GPU}:
        return False  # (the common case: one device, or no capture tensor)
    name = getattr(func, "__name__", "")
    if name in ("__radd__", "__rmul__", "__rsub__", "__rtruediv__"):
        return False  # (a reflected operator's first operand is a Python number)
    name = _OPERATORS.get(name, name)
    packet = getattr(torch.ops.aten, name, None) if name.isidentifier() else None
    bound = None if packet is None else _bind(torch, packet, args, kwargs)
    if bound is None:
        # a function of torch's Python (F.embedding, torch.functional.einsum) or an op
        # called as no aten overload takes it: the ops it reaches are checked
        return True
    overload, tensors = bound
    qualified = f"aten::{name}" + ("" if overload == "default" else f".{overload}")
    if not _has_cuda_kernel(torch, qualified):
        return _has_kernel(torch, qualified, "CompositeImplicitAutograd") or _has_kernel(
            torch, qualified, "CompositeExplicitAutograd"
        )
    _check_entry(_entries().get(name if overload == "default" else f"{name}.{overload}"), tensors)
    return False


def _check_entry(entry: _Entry | None, tensors: list[tuple[str, Any, bool]]) -> None:
    if entry is None:
        return
    if not entry.no_check:
        _same_device([(name, t) for name, t, _ in tensors], entry)
    elif entry.iterator:
        # TensorIterator's operands are the op's Tensor arguments; a list of tensors is the
        # op's own to prepare (index and index_put_ move their indices to self's device
        # first: `x[torch.arange(n), gpu_index]` runs on the GPU, as CLIP's encode_text)
        _tensor_iterator_devices([t for _, t, listed in tensors if not listed])


def composite_checks() -> Any:
    """A dispatch mode under which every op with a CUDA kernel that a composite calls is
    checked as `check` checks the file's own calls. CompositeImplicitAutograd ops are
    decomposed above the mode by the dispatcher itself; a CompositeExplicitAutograd one (an
    embedding's index_select) reaches it whole and is run through its composite kernel with
    the mode on. What an op makes only from tensors a real run has on the CPU is the host's
    too, as at the torch function level (known_values)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class _CompositeChecks(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            # the ops whose composite kernel runs now: one that dispatches its own op again
            # (aten::detach's, under an LSTM's packed-sequence path in a compiled training
            # forward, Tacotron 2's encoder in corpus 18) is run as it is there, not again
            # through its composite kernel, which recursed until Python's limit
            self.expanding: set[Any] = set()

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            qualified = func.name()
            if _has_cuda_kernel(torch, qualified):
                tensors = _schema_tensors(torch, func._schema, args, kwargs)
                _check_entry(_entries().get(qualified.removeprefix("aten::")), tensors)
                out = func(*args, **kwargs)
            elif func not in self.expanding and _has_kernel(torch, qualified, "CompositeExplicitAutograd"):
                self.expanding.add(func)
                try:
                    with self:
                        out = func._op_dk(torch._C.DispatchKey.CompositeExplicitAutograd, *args, **kwargs)
                finally:
                    self.expanding.discard(func)
            else:
                out = func(*args, **kwargs)
            _host_results(torch, args, kwargs, out)
            return out

    return _CompositeChecks()


def _schema_tensors(torch: Any, schema: Any, args: tuple, kwargs: dict) -> list[tuple[str, Any, bool]]:
    """The tensor arguments of an aten call (`_checked_order`)."""
    params = list(schema.arguments)
    given = {**dict(zip((p.name for p in params), args)), **kwargs}
    return _checked_order(torch, params, given)


def _checked_order(torch: Any, params: list, given: dict) -> list[tuple[str, Any, bool]]:
    """The tensor arguments in the order an op's CUDA wrapper checks them (out first, then
    the positional ones), each with its name and whether it came in a list."""
    out = [p for p in params if p.kwarg_only and p.name in given and _tensor_like(p)]
    ordered = [*out, *(p for p in params if not p.kwarg_only and _tensor_like(p))]
    tensors = []
    for p in ordered:
        value = given.get(p.name)
        listed = isinstance(value, (list, tuple))
        tensors += [
            (p.name, t, listed) for t in (value if listed else (value,)) if isinstance(t, torch.Tensor)
        ]
    return tensors


def _host_results(torch: Any, args: tuple, kwargs: dict, out: Any) -> None:
    """Mark what an op inside a composite made from host tensors only as the host's."""
    devices = _devices_present(torch, args, kwargs)
    if devices != {CPU}:
        return
    inputs = {known_values.storage_key(t) for t in (*args, *kwargs.values()) if isinstance(t, torch.Tensor)}
    results = out if isinstance(out, (list, tuple)) else (out,)
    for o in results:
        if isinstance(o, torch.Tensor) and o.is_meta and known_values.storage_key(o) not in inputs:
            known_values.made_on_host(o)


def device_of(t: Any) -> str | None:
    """The device a real run has capture tensor `t` on (None: neither the CPU nor the GPU)."""
    if t.is_meta:
        return CPU if known_values.is_host(t) else GPU
    return CPU if t.device.type == "cpu" else None


def _devices_present(torch: Any, args: tuple, kwargs: dict) -> set[str]:
    found: set[str] = set()
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        for t in items:
            if isinstance(t, torch.Tensor):
                device = device_of(t)
                if device:
                    found.add(device)
    return found


def _has_cuda_kernel(torch: Any, qualified: str) -> bool:
    return _has_kernel(torch, qualified, "CUDA")


def _has_kernel(torch: Any, qualified: str, key: str) -> bool:
    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key))
    except RuntimeError:
        return False


def _tensor_like(arg: Any) -> bool:
    return "Tensor" in str(arg.type)


def _bind(
    torch: Any, packet: Any, args: tuple, kwargs: dict
) -> tuple[str, list[tuple[str, Any, bool]]] | None:
    """The overload of `packet` these arguments fit, as Python's argument parser picks it
    (the first whose parameters take them), and its tensor arguments in the order the CUDA
    wrapper checks them (out first, then the positional ones), each with its name."""
    for overload in packet.overloads():
        schema = getattr(packet, overload)._schema
        params = list(schema.arguments)
        positional = [p for p in params if not p.kwarg_only]
        if len(args) > len(positional):
            continue
        given = dict(zip((p.name for p in positional), args))
        names = {p.name for p in params}
        if any(k not in names or k in given for k in kwargs):
            continue
        given.update(kwargs)
        if any(p.name not in given and not p.has_default_value() for p in params):
            continue
        if not all(_fits(torch, p, given[p.name]) for p in params if p.name in given):
            continue
        return overload, _checked_order(torch, params, given)
    return None


def _fits(torch: Any, param: Any, value: Any) -> bool:
    is_tensor = isinstance(value, torch.Tensor)
    if _tensor_like(param):
        if value is None:
            return "?" in str(param.type) or "Optional" in str(param.type)
        if isinstance(value, (list, tuple)):
            return "[]" in str(param.type) or "List" in str(param.type)
        return is_tensor
    return not is_tensor


def _wrapper_name(entry: _Entry) -> str:
    """The name torchgen gives the op's CUDA wrapper, which the error names:
    `wrapper_CUDA_isin_Tensor_Tensor` (structured), `wrapper_CUDA__index_select`."""
    from torchgen.api import dispatcher, native
    from torchgen.model import FunctionSchema

    schema = FunctionSchema.parse(entry.signature)
    if entry.structured:
        return f"wrapper_CUDA_{native.name(schema)}"
    return f"wrapper_CUDA_{schema.name.overload_name}_{dispatcher.name(schema)}"


def _same_device(tensors: list[tuple[str, Any]], entry: _Entry) -> None:
    """c10::impl::check_and_update_common_device over the wrapper's arguments."""
    common = None
    for arg, t in tensors:
        device = device_of(t)
        if device is None:
            continue
        if common is None:
            common = device
        elif device != common:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but got {arg} is on {device}, "
                f"different from other tensors on {common} (when checking argument in method "
                f"{_wrapper_name(entry)})"
            )


def _tensor_iterator_devices(tensors: list[Any]) -> None:
    """TensorIterator's check: a 0-dim CPU tensor may join GPU tensors, nothing else may."""
    operands = [(d, t.dim() == 0) for t in tensors if (d := device_of(t))]
    common = next((d for d, scalar in operands if not (d == CPU and scalar)), CPU)
    for device, scalar in operands:
        if device != common and not (device == CPU and scalar and common == GPU):
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{common} and {device}!"
            )
