"""The data of small capture tensors the file computes on the host side.

A capture tensor has no data, so every read of it is a placeholder; but much of what a
file reads back is data it made itself, not data a kernel wrote: sequence lengths from a
list (`torch.tensor([17, 300], device="cuda")`), their cumulative sums, a range, a
constant, a count. For a small tensor (at most `LIMIT` elements) made from known data,
capture keeps a real CPU copy (`_kx_value`) and computes every op on known inputs on the
CPU too, so `.item()`, `.tolist()` and `.cpu()` answer what a real run reads, and the
buffers and block sizes they choose are the real run's.

- Exact values: from Python data, constants, ranges, and CPU tensors moved to the GPU;
  and whatever is computed from exact values only. Reading them is not a guess.
- Sampled values: random factories (`randint`, `rand`, `randn`, ...) sample on the CPU.
  The GPU's random numbers differ, so a read of a sampled value is still a placeholder
  (its diagnostic says so), only with a realistic value.
- A write kx cannot follow (a kernel launch, an op on unknown data) makes every tensor of
  that storage unknown: values are stamped with their storage's version.

Runs only inside the capture worker.
"""

from __future__ import annotations

from typing import Any

LIMIT = 1 << 16  # elements: larger tensors are never computed on the CPU
VALUE, EXACT, VERSION = "_kx_value", "_kx_exact", "_kx_version"

# storage (its StorageImpl address) -> how many writes kx could not follow
_VERSIONS: dict[int, int] = {}

# Factories whose data is known from their arguments; random ones are sampled.
EXACT_FACTORIES = frozenset(
    {"tensor", "as_tensor", "asarray", "arange", "range", "linspace", "logspace", "zeros", "ones", "full", "eye",
     "zeros_like", "ones_like", "full_like", "new_tensor", "new_zeros", "new_ones", "new_full", "scalar_tensor"}
)  # fmt: skip
RANDOM_FACTORIES = frozenset(
    {"rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like", "bernoulli",
     "multinomial", "uniform_", "normal_", "random_", "exponential_"}
)  # fmt: skip
# Reads that never change a tensor (and ops kx answers itself): no value work.
_NO_VALUE = frozenset(
    {"__get__", "size", "stride", "dim", "numel", "data_ptr", "element_size", "storage_offset"}
)


def _storage_key(t: Any) -> int:
    return t.untyped_storage()._cdata


def value_of(t: Any) -> tuple[Any, bool] | None:
    """(the CPU copy, exact) of a capture tensor whose data is known, else None."""
    value = getattr(t, VALUE, None)
    if value is None:
        return None
    try:
        if _VERSIONS.get(_storage_key(t), 0) != getattr(t, VERSION, -1):
            return None
    except (RuntimeError, AttributeError):
        return None
    return value, bool(getattr(t, EXACT, False))


def attach(t: Any, value: Any, exact: bool) -> None:
    """Give capture tensor `t` the CPU copy `value` (same shape and dtype)."""
    try:
        if tuple(value.shape) != tuple(t.shape) or value.dtype != t.dtype or value.device.type != "cpu":
            return
        setattr(t, VALUE, value)
        setattr(t, EXACT, exact)
        setattr(t, VERSION, _VERSIONS.get(_storage_key(t), 0))
    except (AttributeError, RuntimeError, TypeError):  # a subclass refusing attributes
        pass


def written(t: Any) -> None:
    """A write to `t`'s storage kx did not follow: every value of that storage is stale."""
    try:
        key = _storage_key(t)
    except (RuntimeError, AttributeError):
        return
    _VERSIONS[key] = _VERSIONS.get(key, 0) + 1


def _small(t: Any) -> bool:
    return t.numel() <= LIMIT


class Values:
    """Computes the CPU copy of an op's result from its inputs' copies (fake_torch's
    function mode calls `after` with each op it ran on capture tensors)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.cpu = torch.device("cpu")
        self.generator = torch.Generator()
        self.generator.manual_seed(0)

    def _to_cpu(self, a: Any, exact: list[bool]) -> Any:
        """An argument with capture tensors replaced by their CPU copies; raises LookupError
        for a capture tensor whose data is unknown."""
        torch = self.torch
        if isinstance(a, torch.Tensor):
            if not a.is_meta:
                return a
            known = value_of(a)
            if known is None:
                raise LookupError
            exact[0] = exact[0] and known[1]
            return known[0]
        if isinstance(a, torch.device) or (isinstance(a, str) and a.startswith(("cuda", "meta", "hip"))):
            return self.cpu
        if isinstance(a, (list, tuple)):
            return type(a)(self._to_cpu(x, exact) for x in a)
        return a

    def data_dependent(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The result of an op meta kernels cannot shape (its output size depends on the
        data), as capture tensors carrying the CPU result: None unless every capture
        tensor among the arguments has known data."""
        torch = self.torch
        exact = [True]
        try:
            cpu_args = self._to_cpu(args, exact)
            cpu_kwargs = {k: self._to_cpu(v, exact) for k, v in kwargs.items()}
        except LookupError:
            return None
        try:
            with torch.no_grad():
                result = func(*cpu_args, **cpu_kwargs)
        except Exception:  # noqa: BLE001 - the CPU cannot run it either: the op's own error stands
            return None
        meta = torch.device("meta")

        def shaped(r: Any) -> Any:
            if not isinstance(r, torch.Tensor):
                return r
            out = torch.empty_strided(r.shape, r.stride(), dtype=r.dtype, device=meta)
            if r.numel() <= LIMIT:
                attach(out, r, exact[0])
            return out

        if isinstance(result, (tuple, list)):
            return type(result)(shaped(r) for r in result)
        return shaped(result)

    def after_like(self, func: Any, name: str, like: Any, args: tuple, kwargs: dict, out: Any) -> None:
        """A `*_like` factory answered by kx: its data depends on the shape only."""
        if name not in EXACT_FACTORIES and name not in RANDOM_FACTORIES or not _small(out):
            return
        shape_only = self.torch.empty(tuple(like.shape), dtype=like.dtype, device=self.cpu)
        self.after(func, name, (shape_only, *args[1:]), kwargs, out)

    def after(self, func: Any, name: str, args: tuple, kwargs: dict, out: Any) -> None:
        """Called after `func(*args, **kwargs)` made `out` on capture tensors."""
        torch = self.torch
        if name in _NO_VALUE:
            return
        in_place = (
            (name.endswith("_") and not name.endswith("__")) or name == "__setitem__" or "out" in kwargs
        )
        target = (args[0] if args else None) if in_place and "out" not in kwargs else kwargs.get("out")
        metas = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor) and a.is_meta]
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, torch.Tensor)]
        if not all(_small(t) for t in metas) or not all(o.is_meta and _small(o) for o in outs):
            if in_place and isinstance(target, torch.Tensor) and target.is_meta:
                written(target)
            return
        exact = [name not in RANDOM_FACTORIES]
        if not metas and name not in EXACT_FACTORIES and name not in RANDOM_FACTORIES:
            # a factory kx cannot know the data of (empty, empty_like, ...)
            return
        try:
            cpu_args = self._to_cpu(args, exact)
            cpu_kwargs = {k: self._to_cpu(v, exact) for k, v in kwargs.items()}
        except LookupError:
            if in_place and isinstance(target, torch.Tensor) and target.is_meta:
                written(target)
            return
        if "device" in kwargs or not metas:
            # (a factory: the capture's default device is meta, and the copy is the CPU's)
            cpu_kwargs["device"] = self.cpu
        cpu_kwargs.pop("requires_grad", None)
        if name in RANDOM_FACTORIES and "generator" not in cpu_kwargs and not name.endswith("_"):
            # sampled from a generator of kx's own: the file's CPU random numbers stay the
            # ones a real run draws
            cpu_kwargs["generator"] = self.generator
        try:
            with torch.no_grad():
                result = func(*cpu_args, **cpu_kwargs)
        except Exception:  # noqa: BLE001 - the CPU disagrees (an op without a CPU kernel): unknown
            if in_place and isinstance(target, torch.Tensor) and target.is_meta:
                written(target)
            return
        if in_place and isinstance(target, torch.Tensor):
            # the copy was updated in place: the target's other views are stale, it is not
            written(target)
            source = cpu_kwargs.get("out") if "out" in kwargs else cpu_args[0]
            attach(target, source, exact[0] and bool(getattr(target, EXACT, True)))
            return
        results = result if isinstance(result, (tuple, list)) else (result,)
        for o, r in zip(outs, [r for r in results if isinstance(r, torch.Tensor)]):
            attach(o, r, exact[0])
