"""Meta kernels for ATen ops that have none: the op's own CPU kernel run on stand-ins.

An op with a CPU (and CUDA) kernel but no Meta kernel (`aten::_ctc_loss.Tensor`, what
`nn.CTCLoss` calls with tensor lengths, and its backward) stopped a capture with "attempted
to run this operator with Meta tensors, but there was no fake impl or Meta kernel
registered", where a real run computes on. PyTorch's fake tensors answer such an op the same
way (FakeTensorMode's fallback kernel runs the real kernel on zero-filled inputs and keeps
only the outputs' metadata). Here the stand-ins are the data kx knows (known_values) where
it knows it, zeros elsewhere; an op PyTorch tags as having a data-dependent output shape is
run a second time on distinct values where data is unknown, and kept only where both runs
give the same shapes (the shape then follows what kx knows, as CTC's follows the target
lengths).

The kernel is registered at the Meta dispatch key, under autograd, so the op keeps the
backward a real run records; the op's backward ops (named `<op>_backward`, ATen's habit)
are registered with it, since the autograd engine calls them outside the capture's
torch-function mode. The outputs' data is unknown, as any kernel's."""

from __future__ import annotations

import re
from typing import Any

from kx_core.compile.capturing.device import known_values

# Example: "aten::_ctc_loss.Tensor: attempted to run this operator with Meta tensors, but
# there was no fake impl or Meta kernel registered. You may have run into this message..."
_NO_META = re.compile(r"(\w+)::(\w+)(?:\.\w+)?: attempted to run this operator with Meta tensors")

# Example: "Could not run 'aten::mm' with arguments from the 'SparseMeta' backend. This could
# be because the operator doesn't exist for this backend..."
_NO_SPARSE_META = re.compile(r"Could not run '(\w+)::(\w+)' with arguments from the 'SparseMeta' backend")

_STAND_IN_LIMIT = 1 << 26  # elements of stand-ins an op may take on the CPU (256 MiB of fp32)

_registered: set[tuple[str, str]] = set()  # (op, dispatch key)
_libraries: list[Any] = []  # (a Library's registrations last as long as the object)


def register_for(torch: Any, error: BaseException) -> bool:
    """Give the op `error` names (a missing Meta kernel) and its backward ops a Meta kernel
    from their CPU kernels; whether one was registered now (the caller then runs the op
    again)."""
    match = _NO_META.search(str(error))
    sparse = match is None
    if sparse:
        match = _NO_SPARSE_META.search(str(error))
    if match is None:
        return False
    namespace, op = match.group(1), match.group(2)
    # (a sparse tensor's op: its kernel at the SparseMeta key, made from its SparseCPU one)
    key, cpu_key = ("SparseMeta", "SparseCPU") if sparse else ("Meta", "CPU")
    family = [
        name
        for name in torch._C._dispatch_get_all_op_names()
        if name.split(".")[0] in (f"{namespace}::{op}", f"{namespace}::{op}_backward")
        and (name, key) not in _registered
        and torch._C._dispatch_has_kernel_for_dispatch_key(name, cpu_key)
        and not torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
        and not torch._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd")
    ]
    if not family:
        return False
    ops = {}
    for name in family:
        packet_name, _, overload = name.split("::")[1].partition(".")
        overload_op = getattr(getattr(getattr(torch.ops, namespace), packet_name), overload or "default")
        # (an out= or in-place overload writes its arguments: kx's own rules for those
        # apply, fake_torch's out= rule and schema_writes)
        if not overload_op._schema.is_mutable:
            ops[name] = overload_op
    if not ops:
        return False
    library = torch.library.Library(namespace, "IMPL")
    _libraries.append(library)
    for name, overload_op in ops.items():
        kernel = _sparse_meta_kernel(torch, overload_op) if sparse else _meta_kernel(torch, overload_op)
        library.impl(name.split("::")[1], kernel, key)
        _registered.add((name, key))
    return True


def _meta_kernel(torch: Any, op: Any) -> Any:
    dynamic = any(tag in op.tags for tag in (torch.Tag.dynamic_output_shape, torch.Tag.data_dependent_output))

    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C.DisableTorchFunction():
            metas = [a for a in _tensors(torch, args, kwargs) if a.is_meta]
            if (
                dynamic
                and all(known_values.value_of(a) is not None for a in metas)
                and not any(a.requires_grad for a in metas)
            ):
                # kx's own rule for an op sized by its data (known_values.data_dependent)
                # computes it and keeps its data; it cannot give a backward, this can
                raise NotImplementedError(f"{op}: {_DECLINED}")
            if any(a.layout != torch.strided for a in metas):
                raise NotImplementedError(f"{op}: {_DECLINED} (a sparse or other non-strided input)")
            first, unknown = _run_on(torch, op, args, kwargs, _zeros)
            if any(r.layout != torch.strided for r in known_values.flat_tensors(first, torch, [])):
                # (a sparse result: kx's own rules for sparse tensors apply)
                raise NotImplementedError(f"{op}: {_DECLINED} (a non-strided result)")
            if dynamic and unknown:
                second, _ = _run_on(torch, op, args, kwargs, _distinct)
                if _shapes(torch, first) != _shapes(torch, second):
                    raise NotImplementedError(f"{op}: {_DECLINED} (other stand-ins give it other sizes)")
            return _as_meta(torch, first)

    return kernel


def _sparse_meta_kernel(torch: Any, op: Any) -> Any:
    """A sparse op's outputs (`torch.sparse.mm`, a sparse COO matrix times a dense one:
    pyGAT's SpecialSpmmFunction) laid out as its CPU kernel lays them out; a sparse stand-in
    holds the entries kx knows, else none (a dense result's size does not follow them)."""

    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C.DisableTorchFunction():
            first, _ = _run_on(torch, op, args, kwargs, _zeros)
            if any(r.layout != torch.strided for r in known_values.flat_tensors(first, torch, [])):
                raise NotImplementedError(f"{op}: {_DECLINED} (a non-strided result)")
            return _as_meta(torch, first)

    return kernel


# (declined, the op's NotImplementedError goes on to kx's rules for data-sized ops)
_DECLINED = "attempted to run this operator with Meta tensors: its output's size depends on its data"


def _tensors(torch: Any, args: tuple, kwargs: dict) -> list:
    return known_values.call_tensors(torch, args, kwargs)


def _zeros(torch: Any, t: Any) -> Any:
    return t.zero_()


def _distinct(torch: Any, t: Any) -> Any:
    """Stand-in values that differ from one another (and from zeros), so a size that
    follows the data (unique, nonzero) differs from the zeros' one."""
    values = torch.arange(1, t.numel() + 1, dtype=torch.float64).reshape(t.shape)
    return t.copy_(values % 2 if t.dtype == torch.bool else values)


def _run_on(torch: Any, op: Any, args: tuple, kwargs: dict, stand_in: Any) -> tuple[Any, bool]:
    """op on the CPU with each meta tensor replaced by its known data, else by a
    stand-in (`stand_in(torch, empty CPU tensor)`); (result, whether any was a stand-in)."""
    unknown = [False]
    elements = [0]

    def cpu(a: Any) -> Any:
        if isinstance(a, torch.Tensor) and a.is_meta and a.layout == torch.sparse_coo:
            return _sparse_stand_in(torch, a)
        if isinstance(a, torch.Tensor) and a.is_meta:
            elements[0] += a.numel()
            if elements[0] > _STAND_IN_LIMIT:
                raise NotImplementedError(
                    f"{op}: no Meta kernel, and its inputs are too large to run on the CPU"
                )
            known = known_values.value_of(a)
            if known is not None:
                return known[0].clone()
            unknown[0] = True
            out = torch.empty_strided(tuple(a.shape), a.stride(), dtype=a.dtype, device="cpu")
            return stand_in(torch, out) if out.numel() else out
        if isinstance(a, (list, tuple)):
            return type(a)(cpu(x) for x in a)
        if isinstance(a, torch.device) and a.type == "meta":
            return torch.device("cpu")
        return a

    cpu_args = tuple(cpu(a) for a in args)
    cpu_kwargs = {k: cpu(v) for k, v in kwargs.items()}
    with torch.no_grad():
        return op(*cpu_args, **cpu_kwargs), unknown[0]


def _sparse_stand_in(torch: Any, a: Any) -> Any:
    """A sparse COO capture tensor on the CPU: its entries where kx knows its indices and
    values, else none."""
    indices, values = a._indices(), a._values()
    known_indices, known_values_ = known_values.value_of(indices), known_values.value_of(values)
    if known_indices is not None and known_values_ is not None and indices.numel() <= _STAND_IN_LIMIT:
        i, v = known_indices[0].clone(), known_values_[0].clone()
    else:
        i = torch.zeros((indices.shape[0], 0), dtype=indices.dtype)
        v = torch.zeros((0, *values.shape[1:]), dtype=values.dtype)
    return torch.sparse_coo_tensor(i, v, tuple(a.shape), dtype=a.dtype, check_invariants=False)


def _shapes(torch: Any, result: Any) -> Any:
    if isinstance(result, torch.Tensor):
        return tuple(result.shape)
    if isinstance(result, (list, tuple)):
        return tuple(_shapes(torch, r) for r in result)
    return None


def _as_meta(torch: Any, result: Any) -> Any:
    """Meta tensors laid out as the CPU's results (sizes, strides, dtypes)."""
    if isinstance(result, torch.Tensor):
        return torch.empty_strided(tuple(result.shape), result.stride(), dtype=result.dtype, device="meta")
    if isinstance(result, (list, tuple)):
        return type(result)(_as_meta(torch, r) for r in result)
    return result
