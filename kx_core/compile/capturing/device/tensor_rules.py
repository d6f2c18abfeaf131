"""ATen's layouts and refusals applied to capture tensors (fake_torch's function mode
calls these around each op it runs on meta tensors).

Meta kernels give the shapes and dtypes a GPU kernel would; where their strides or their
checks differ from what a CUDA tensor gets (kx_core.compile.capturing.device.aten_layouts holds the rules),
these put the real answer on the meta result or raise what the GPU would raise.

Runs only inside the capture worker; torch is imported by the caller.
"""

from __future__ import annotations

from typing import Any

from kx_core.compile.capturing.device import aten_layouts


class LayoutRules:
    """Output layouts ATen gives where meta kernels give another."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.meta = torch.device("meta")
        self._pointwise: dict[str, bool] = {}

    def convolution_layout(self, out: Any, args: tuple) -> Any:
        """A GPU convolution's output in the memory format its backend writes (the meta
        kernel gives a contiguous one): channels-last where its input or weight is."""
        memory_format = self.convolution_memory_format(
            args[0] if args else None, args[1] if len(args) > 1 else None
        )
        return self._in_format(out, memory_format)

    def convolution_backward_layout(self, outs: Any, args: tuple) -> Any:
        """convolution_backward's (grad_input, grad_weight, grad_bias): the first two in
        the memory format of the convolution's backend, as PyTorch's fake kernel gives them
        to Inductor (which asserts those strides on the extern call's results); the bias's
        gradient is 1-d."""
        if not isinstance(outs, tuple) or len(outs) != 3 or len(args) < 3:
            return outs
        memory_format = self.convolution_memory_format(args[1], args[2])
        return (self._in_format(outs[0], memory_format), self._in_format(outs[1], memory_format), outs[2])

    def convolution_memory_format(self, input: Any, weight: Any) -> Any:
        """The memory format of a convolution of these operands on the GPU: PyTorch's own
        rule for its backend (`_conv_determine_backend_memory_format`, which its fake
        convolution kernel applies at compile time), for cuDNN, the backend a CUDA build
        picks for a dense floating-point convolution (PyTorch's choice of backend asks
        for CUDA tensors: a meta tensor gets none). None where it keeps the meta layout."""
        torch = self.torch
        if not (isinstance(input, torch.Tensor) and isinstance(weight, torch.Tensor)):
            return None
        if input.dim() not in (4, 5) or weight.dim() != input.dim():
            return None
        backend = getattr(getattr(torch._C, "_ConvBackend", None), "Cudnn", None)
        if backend is None:
            return None
        memory_format = torch._C._conv_determine_backend_memory_format(input, weight, backend)
        if memory_format in (torch.channels_last, torch.channels_last_3d):
            return memory_format
        return None

    def _in_format(self, out: Any, memory_format: Any) -> Any:
        torch = self.torch
        if memory_format is None or not getattr(out, "is_meta", False) or out.dim() not in (4, 5):
            return out
        if out.is_contiguous(memory_format=memory_format) and not out.is_contiguous():
            return out
        strides = torch.empty(out.shape, device=self.meta).to(memory_format=memory_format).stride()
        if out.stride() == strides:
            return out
        if out.requires_grad:
            return out.as_strided(out.shape, strides)
        return torch.empty_strided(out.shape, strides, dtype=out.dtype, device=self.meta)

    def is_pointwise(self, name: str) -> bool:
        """An elementwise op ATen runs through TensorIterator (tagged pointwise), by the
        name of the torch function or Tensor method (`add`, `__mul__`, `where`)."""
        known = self._pointwise.get(name)
        if known is None:
            base = name.strip("_")
            base = DUNDER_OPS.get(base, base)
            known = base in ELEMENTWISE_UNTAGGED and (not name.endswith("_") or name.startswith("__"))
            # copies and casts keep their input's layout (empty_like's rule), not TensorIterator's
            if not known and base not in LAYOUT_COPIES and (not name.endswith("_") or name.startswith("__")):
                try:
                    packet = getattr(self.torch.ops.aten, base)
                    known = any(
                        self.torch.Tag.pointwise in getattr(packet, o).tags for o in packet.overloads()
                    )
                except (AttributeError, RuntimeError):
                    known = False
            self._pointwise[name] = known
        return known

    def iterator_layout(self, out: Any, args: tuple, kwargs: dict, name: str = "") -> Any:
        """`out` with the strides TensorIterator gives a real elementwise op's output
        (a meta kernel may order size-1 dimensions otherwise: aten_layouts). A Python
        number is an operand (a wrapped 0-d tensor) of the binary ops that wrap it
        (`x + 1`, `x > 0`); of the others it is a parameter (`clamp(x, -4, 4)`, `x ** 2`),
        and their TensorIterator has the tensor alone."""
        torch = self.torch
        if out.layout != torch.strided or any(out is a for a in args):
            return out
        base = name.strip("_")
        numbers_are_operands = DUNDER_OPS.get(base, base) in SCALAR_OPERANDS
        operands = []
        for a in (*args, *kwargs.values()):
            if isinstance(a, torch.Tensor):
                operands.append((tuple(a.shape), a.stride()))
            elif isinstance(a, (bool, int, float, complex)) and numbers_are_operands:
                operands.append(((), ()))
        strides = aten_layouts.elementwise_output_strides(tuple(out.shape), operands)
        if not strides or list(out.stride()) == strides:
            return out
        if out.requires_grad:  # keep the autograd history: a view with those strides
            return out.as_strided(out.shape, strides)
        return torch.empty_strided(out.shape, strides, dtype=out.dtype, device=self.meta)

    def op_layout(self, name: str, out: Any, x: Any) -> Any:
        """The output(s) of op `name` laid out as ATen lays them out (PRESERVING,
        CONTIGUOUS_OUTPUT), where the meta kernel lays them out otherwise; sort's
        (values, indices) both."""
        torch = self.torch
        if isinstance(out, tuple) and out and all(getattr(o, "is_meta", False) for o in out):
            return type(out)([self.op_layout(name, o, x) for o in out])
        if not getattr(out, "is_meta", False) or out.layout != torch.strided:
            return out
        if name in CONTIGUOUS_OUTPUT:
            return self._restrided(out, aten_layouts.contiguous_strides(tuple(out.shape)))
        return self.preserved_layout(out, x)

    def _restrided(self, out: Any, strides: Any) -> Any:
        if list(out.stride()) == list(strides):
            return out
        if out.requires_grad:  # keep the autograd history: a view with those strides
            return out.as_strided(out.shape, strides)
        return self.torch.empty_strided(out.shape, strides, dtype=out.dtype, device=self.meta)

    def preserved_layout(self, out: Any, x: Any) -> Any:
        """`out` with the strides `at::empty_like(x, MemoryFormat::Preserve)` gives, where
        ATen makes an op's output so (flip) and its meta kernel makes a contiguous one."""
        torch = self.torch
        if (
            not isinstance(x, torch.Tensor)
            or out.layout != torch.strided
            or tuple(out.shape) != tuple(x.shape)
        ):
            return out
        return self._restrided(out, aten_layouts.empty_like_strides(tuple(x.shape), x.stride()))

    def meta_like(self, x: Any, kwargs: dict, name: str = "") -> Any:
        # torch's meta *_like ops are Python references that import sympy (0.5 s) on
        # first use; empty_strided has a C++ meta kernel and, with ATen's preserve_format
        # strides, gives the tensor a real *_like gives
        dtype = kwargs.get("dtype") or x.dtype
        if name.startswith("rand") and not (dtype.is_floating_point or dtype.is_complex):
            # a GPU has no random-number kernel for integers either (randint_like has one)
            raise NotImplementedError(f"\"normal_kernel_cuda\" not implemented for '{scalar_name(dtype)}'")
        stride = aten_layouts.empty_like_strides(tuple(x.shape), x.stride())
        return self.torch.empty_strided(
            x.shape,
            stride,
            dtype=dtype,
            device=self.meta,
            requires_grad=bool(kwargs.get("requires_grad", False)),
        )


LAYOUT_COPIES = frozenset(
    {
        "clone",
        "contiguous",
        "to",
        "type",
        "copy",
        "float",
        "half",
        "double",
        "bfloat16",
        "int",
        "long",
        "bool",
        "detach",
    }
)
# Tensor dunder methods -> the aten op they run
DUNDER_OPS = {
    "truediv": "div", "rtruediv": "div", "floordiv": "floor_divide", "rfloordiv": "floor_divide",
    "mod": "remainder", "rmod": "remainder", "radd": "add", "rmul": "mul", "rpow": "pow",
    "and": "bitwise_and", "rand": "bitwise_and", "or": "bitwise_or", "ror": "bitwise_or",
    "xor": "bitwise_xor", "rxor": "bitwise_xor", "invert": "bitwise_not", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}  # fmt: skip


# Ops whose outputs ATen lays out as empty_like(input, preserve_format) does: flip
# (TensorTransformations), sort's values and indices (its structured meta function: the
# input's strides where dense, else dense strides inferred from them).
PRESERVING = frozenset({"flip", "fliplr", "flipud", "sort", "argsort", "msort", "nan_to_num"})
# Ops whose output ATen makes contiguous whatever the input's layout: their structured
# meta functions give no strides (triu, tril, softmax, log_softmax, isin), and
# masked_fill clones its input contiguous before filling it.
CONTIGUOUS_OUTPUT = frozenset(
    {"triu", "tril", "softmax", "log_softmax", "_softmax", "_log_softmax", "masked_fill", "isin"}
)
# Binary ops ATen runs through TensorIterator whose aten op is not tagged pointwise (aliases,
# floor_divide): `t // 3` of a transposed tensor keeps its order as `t + 3` does.
ELEMENTWISE_UNTAGGED = frozenset(
    {"floor_divide", "divide", "multiply", "subtract", "greater", "greater_equal", "less", "less_equal",
     "not_equal", "arctan2"}
)  # fmt: skip
# Elementwise ops whose Python-number arguments ATen wraps into 0-d tensor operands of
# their TensorIterator (the binary arithmetic, comparison, bitwise and logical ops and
# where); for other ops a number is a parameter of the kernel.
SCALAR_OPERANDS = frozenset(
    {"add", "sub", "rsub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
     "remainder", "fmod", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal",
     "less_equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
     "bitwise_right_shift", "logical_and", "logical_or", "logical_xor", "where", "atan2", "arctan2",
     "hypot", "copysign", "xlogy", "nextafter", "heaviside", "maximum", "minimum", "fmax", "fmin"}
)  # fmt: skip
# Backward ops whose CUDA kernels read the forward's saved statistics (mean, rstd) by
# pointer, one per normalized row, whatever shape they are given, where the meta kernel
# broadcasts them against the input: their argument places. stable-fast's LayerNorm
# Function saves mean and rstd as (M,) and calls aten.native_layer_norm_backward with them.
STATISTICS_BY_COUNT = {"native_layer_norm_backward": (3, 4)}
CONVOLUTIONS = frozenset({"convolution", "_convolution", "conv2d", "cudnn_convolution", "conv_transpose2d"})
CONVOLUTION_BACKWARDS = frozenset({"convolution_backward"})
MATMULS = frozenset({"matmul", "mm", "bmm", "__matmul__", "__rmatmul__", "addmm", "baddbmm"})


def statistics_shaped(name: str, args: tuple) -> tuple:
    """`args` with the saved statistics of a STATISTICS_BY_COUNT op in the shape its
    forward gives them (the input's leading dims, then a 1 per normalized dim), where
    they hold one element per normalized row: what the GPU's kernel reads."""
    places = STATISTICS_BY_COUNT.get(name)
    if not places or len(args) <= max(places) or not hasattr(args[1], "shape"):
        return args
    x, normalized = args[1], list(args[2])
    lead = list(x.shape[: x.dim() - len(normalized)])
    rows = 1
    for d in lead:
        rows *= d
    want = lead + [1] * len(normalized)
    out = list(args)
    for i in places:
        s = out[i]
        if hasattr(s, "numel") and s.numel() == rows and list(s.shape) != want:
            out[i] = s.reshape(want)
    return tuple(out)


def check_same_dtype(name: str, args: tuple) -> None:
    """A real matrix product refuses operands of two dtypes; a meta one does not. Not for
    a tracer's fake tensors (Helion traces a kernel body where `torch.addmm(fp32_acc,
    fp16, fp16)` is its tile matmul, lowered to tl.dot: nothing runs it eagerly)."""
    if any(type(a).__name__ == "FakeTensor" for a in args):
        return
    dtypes = {a.dtype for a in args if getattr(a, "is_meta", False) or hasattr(a, "dtype") and a.dim()}
    if len(dtypes) > 1:
        a, b = sorted(map(str, dtypes))
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got: {a} != {b}")


def _overlap_view(t: Any) -> tuple:
    return (tuple(t.shape), t.stride(), t.storage_offset() * t.element_size(), t.numel(), t.element_size())


# In-place ops ATen lets write an expanded tensor (their TensorIterator does not check
# for internal overlap; masked_fill_ only warns that it is deprecated).
WRITES_EXPANDED = frozenset({"fill_", "masked_fill_", "zero_", "index_fill_"})


def check_in_place(torch: Any, out: Any, inputs: tuple, kwargs: dict, cast: bool, name: str = "") -> None:
    """What a real in-place op refuses: a result type its tensor cannot hold, writing to
    an expanded tensor (but for WRITES_EXPANDED), or reading a tensor that partly overlaps
    the one it writes (a meta tensor has no data pointers, so torch's own checks cannot
    see the overlaps)."""
    if cast:
        others = [t for t in inputs if isinstance(t, (torch.Tensor, bool, int, float, complex))]
        if others:
            try:
                result = torch.result_type(out, others[0]) if len(others) == 1 else None
            except (RuntimeError, TypeError):
                result = None
            if result is not None and not torch.can_cast(result, out.dtype):
                raise RuntimeError(
                    f"result type {scalar_name(result)} can't be cast to the desired output type {scalar_name(out.dtype)}"
                )
    if name not in WRITES_EXPANDED and aten_layouts.internal_overlap(tuple(out.shape), out.stride()):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    storage = out.untyped_storage()._cdata
    for t in (*inputs, *kwargs.values()):
        if getattr(t, "is_meta", False) and t is not out and t.untyped_storage()._cdata == storage:
            if aten_layouts.partial_overlap(_overlap_view(out), _overlap_view(t)):
                raise RuntimeError(
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation."
                )


def scalar_name(dtype: Any) -> str:
    """ATen's name of a dtype in messages ('Half' for torch.float16)."""
    names = {
        "float16": "Half", "float32": "Float", "float64": "Double", "bfloat16": "BFloat16",
        "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    }  # fmt: skip
    text = str(dtype).removeprefix("torch.")
    return names.get(text, text)


def check_cat(tensors: Any) -> None:
    """A real cat refuses a 0-d tensor (a meta one fails with an IndexError instead)."""
    for i, t in enumerate(tensors if isinstance(tensors, (list, tuple)) else ()):
        if getattr(t, "is_meta", False) and t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")


def check_as_strided(x: Any, args: tuple, kwargs: dict) -> None:
    """A real tensor refuses an as_strided view past its storage; a meta one does not."""
    size = kwargs.get("size", args[1] if len(args) > 1 else None)
    stride = kwargs.get("stride", args[2] if len(args) > 2 else None)
    offset = kwargs.get("storage_offset", args[3] if len(args) > 3 else None)
    if size is None or stride is None:
        return
    offset = x.storage_offset() if offset is None else int(offset)
    message = aten_layouts.as_strided_error(
        [int(v) for v in size],
        [int(v) for v in stride],
        offset,
        x.element_size(),
        x.untyped_storage().nbytes(),
    )
    if message is not None:
        raise RuntimeError(message)


def schema_writes(torch: Any, name: str, args: tuple, kwargs: dict) -> tuple[list, Any] | None:
    """(the capture tensors an ATen op writes, what it returns) by the op's own schema,
    for an op with no meta kernel: `torch._fused_sgd_(params, grads, momentum_buffers,
    ...) -> ()`, the single-kernel optimizer step of `SGD(fused=True)`, declares all three
    lists written (`Tensor(a!)[]`) and returns nothing. Such an op changes only the data
    of what it writes, never a shape, so a capture can go on with that data unknown. None
    where the name is no ATen op, no overload's schema takes these arguments, or the
    op writes nothing (its missing meta kernel is then a real gap, said as before)."""
    for schema in _aten_schemas(torch, name):
        positional = [a for a in schema.arguments if not a.kwarg_only]
        named = {a.name: a for a in schema.arguments}
        if len(args) > len(positional) or any(k not in named for k in kwargs):
            continue
        bound = {a.name: v for a, v in zip(positional, args)} | dict(kwargs)
        writes = [a for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
        if not writes:
            return None
        written: list = []
        for a in writes:
            value = bound.get(a.name)
            values = value if isinstance(value, (list, tuple)) else (value,)
            written.extend(t for t in values if isinstance(t, torch.Tensor) and t.is_meta)
        # a return aliasing a written argument (`Tensor(a!)` in both) is that argument
        by_set = {frozenset(a.alias_info.before_set): bound.get(a.name) for a in writes}
        returns = [
            by_set.get(frozenset(r.alias_info.before_set)) if r.alias_info else None for r in schema.returns
        ]
        if any(r is None for r in returns):
            return None  # a fresh result: its shape needs the missing kernel
        result = None if not returns else returns[0] if len(returns) == 1 else tuple(returns)
        return written, result
    return None


# ATen's types the argument parser fills from a one-element tensor by reading its value,
# as the schema's type kinds name them (a Scalar is "NumberType", printed "number")
_NUMBER_TYPES = frozenset({"IntType", "SymIntType", "FloatType", "NumberType", "BoolType"})
_NUMBER_PLACES: dict[str, tuple[frozenset[int], frozenset[str]]] = {}


def number_places(torch: Any, name: str) -> tuple[frozenset[int], frozenset[str]]:
    """(positions, keyword names) where every overload of the ATen op `name` takes a
    number, not a tensor: PyTorch's argument parser reads a one-element tensor given there
    (`torch.histc(x, bins=offs.max() + 1)` calls its `.item()`), which a capture tensor
    cannot answer in C++ ("Tensor.item() cannot be called on meta tensors"); kx reads it
    as the file's own `int(t)` would. Empty for a name that is no ATen op."""
    if name in _NUMBER_PLACES:
        return _NUMBER_PLACES[name]
    positions: set[int] | None = None
    names: set[str] | None = None
    for schema in _aten_schemas(torch, name) if not name.startswith("_") else ():
        if any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments):
            continue  # an out= or in-place overload: the functional one decides
        here = {a.name for a in schema.arguments if a.type.kind() in _NUMBER_TYPES}
        at = {
            i for i, a in enumerate(schema.arguments) if not a.kwarg_only and a.type.kind() in _NUMBER_TYPES
        }
        positions = at if positions is None else positions & at
        names = here if names is None else names & here
    found = (frozenset(positions or ()), frozenset(names or ()))
    _NUMBER_PLACES[name] = found
    return found


_SIZE_PLACES: dict[str, tuple[frozenset[int], frozenset[str]]] = {}


def size_places(torch: Any, name: str) -> tuple[frozenset[int], frozenset[str]]:
    """(positions, keyword names) where an overload of the ATen op `name` takes a list of
    integers (a size: `SymInt[] size`) and none takes a tensor: PyTorch's argument parser
    reads a one-element tensor among its elements (`torch.empty((1, n_blocks, 4))` with a
    0-dim GPU count, MultipoleAttention's split-KV buffers), which a capture tensor cannot
    answer in C++. Where the list is given as varargs (`x.view(n, -1)`), its elements start
    at that position."""
    if name in _SIZE_PLACES:
        return _SIZE_PLACES[name]
    lists: set[int] = set()
    names: set[str] = set()
    tensors: set[int] = set()
    tensor_names: set[str] = set()
    for schema in _aten_schemas(torch, name) if not name.startswith("_") else ():
        for i, a in enumerate(schema.arguments):
            kind = a.type.kind()
            element = a.type.getElementType().kind() if kind in ("ListType", "OptionalType") else None
            if kind == "OptionalType" and element == "ListType":
                element = a.type.getElementType().getElementType().kind()
            if element in ("IntType", "SymIntType"):
                names.add(a.name)
                if not a.kwarg_only:
                    lists.add(i)
            elif kind == "TensorType" or (kind == "OptionalType" and element == "TensorType"):
                tensor_names.add(a.name)
                if not a.kwarg_only:
                    tensors.add(i)
    found = (frozenset(lists - tensors), frozenset(names - tensor_names))
    _SIZE_PLACES[name] = found
    return found


def _aten_schemas(torch: Any, name: str) -> list:
    """The schemas of every overload of the ATen op `name` ('histc' -> histc, histc.out);
    none where `name` is no ATen op."""
    packet = getattr(torch.ops.aten, name.split(".")[0], None)
    if packet is None or not hasattr(packet, "overloads"):
        return []
    return [getattr(packet, overload)._schema for overload in packet.overloads()]
