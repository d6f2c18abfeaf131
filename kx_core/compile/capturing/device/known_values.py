"""The data of capture tensors the file computes on the host side (issue 50, item 1).

A capture tensor has no data, so every read of it would be a placeholder; but much of what
a file reads back is data it made itself, not data a kernel wrote: sequence lengths from a
list (`torch.tensor([17, 300], device="cuda")`), their cumulative sums, a range, a mask,
a count, the weights of a model made on the CPU and moved with `.cuda()`. For such data
capture keeps a real CPU copy of the capture tensor's *storage* (its bytes, laid out as
the GPU's) and computes every op on known inputs on the CPU too, so `.item()`,
`.tolist()`, `torch.equal`, `nonzero`, a size taken from a tensor and `.cpu()` answer what
a real run reads, and steer the file as they steer it on the GPU.

- One copy per storage, kept as long as the storage lives (a finalizer on the storage):
  a view's value is the copy seen through the view's offset, sizes and strides, so a write
  through one view (`cu[1:] = lens.cumsum(0)`, `x[:, 0].fill_(1)`) is seen through every
  other view, as on the GPU.
- Exact values: from Python data, constants, ranges, CPU tensors moved to the GPU (the
  CPU's random numbers are the real ones), and whatever is computed from exact values only.
  Reading them is not a guess: no placeholder.
- Sampled values: random numbers drawn on the GPU (`randint`, `randn`, `normal_`, ...) are
  sampled on the CPU. The GPU's random numbers differ, so a read of a sampled value is
  still a placeholder (its diagnostic says so), only with a realistic value; they are
  computed for tensors of at most `SAMPLED_LIMIT` elements, as before.
- Unknown: what a kernel wrote (every tensor a launch was given: it may have written it),
  `torch.empty`, ops on unknown data, ops that are not torch's own, and what is past the
  budget or the work limits below. A read of those is a placeholder, said with the line.
- Writes are found by the storage's version counter (and, for a tensor that has none, an
  inference tensor, by the op's name): a write kx computed on the CPU updated the copy;
  any other write drops it (`written`).

Budget and cost (the figures are in NOTES.md): the copies alive together hold at most
`budget_bytes()` (256 MiB); an op's result is computed only if it fits, so a file that
makes a 2 GiB tensor never computes it. One op may cost at most `OP_WORK_LIMIT` element
operations and a capture `TOTAL_WORK_LIMIT`; past them results are unknown.

Runs only inside the capture worker.
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
import weakref
from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

from kx_core.compile.capturing.device import aten_layouts, gpu_draws
from kx_core.compile.capturing.device.placeholders import FILL

# The bytes all CPU copies may hold at once. 256 MiB holds the data files make on the host
# (a 4096x4096 fp32 Linear weight is 64 MiB; sequence offsets, masks and ranges are far
# smaller) and copies in well under a second; it is a fixed figure, not a share of this
# machine's memory, so that what a capture computes (and so its exit status) is the same
# on every machine. A worker given a small memory limit (--memory-limit) keeps an eighth
# of it instead.
BUDGET_BYTES = 256 << 20
SAMPLED_LIMIT = 1 << 16  # elements: random (sampled) data is never computed past this
# Element operations (inputs + outputs read and written; a contraction's multiply-adds;
# a sort's n log n) one op may cost on the CPU, and a whole capture. On the 2-core
# development machine an element operation costs 0.3-3.3 ns (an int64 cumsum the most,
# a fp16 matrix product 0.7): at most about 0.45 s for one op and 3.5 s for a capture,
# reached only by files that compute on large host data (NOTES.md has the figures).
OP_WORK_LIMIT = 1 << 27
TOTAL_WORK_LIMIT = 1 << 30

# Factories whose data is unknown (uninitialised memory on the GPU too).
EMPTY_FACTORIES = frozenset(
    {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}
)
# Ops whose result does not read their tensor arguments' data, only their shape and dtype.
DATA_INDEPENDENT = frozenset(
    {"zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like",
     "new_zeros", "new_ones", "new_full", "new_tensor"}
)  # fmt: skip
# Random ops (their results are sampled) by name; nn.init's fills among them.
RANDOM_OPS = frozenset(
    {"rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like",
     "bernoulli", "multinomial", "poisson", "uniform_", "normal_", "random_", "exponential_",
     "geometric_", "cauchy_", "log_normal_", "bernoulli_", "dropout", "dropout_", "native_dropout",
     "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
     "dropout1d", "dropout2d", "dropout3d", "rrelu", "rrelu_", "rrelu_with_noise", "gumbel_softmax",
     "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_", "trunc_normal_",
     "orthogonal_", "sparse_", "_standard_gamma", "_sample_dirichlet", "binomial"}
)  # fmt: skip
# Random ops that draw as many numbers from the generator whatever their data (a
# rejection sampler's count, poisson's or a gamma's, depends on it; multinomial's too)
FIXED_DRAWS = RANDOM_OPS - {"multinomial", "poisson", "_standard_gamma", "_sample_dirichlet", "binomial"}
# Elements a host random op kx does not compute may still be drawn for (see _drew_as_a_real_run)
DRAW_LIMIT = 1 << 27
# In-place ops that overwrite their whole target without reading it: an unknown target of
# them becomes known.
OVERWRITES = frozenset(
    {"fill_", "zero_", "copy_", "uniform_", "normal_", "random_", "exponential_", "geometric_",
     "cauchy_", "log_normal_", "bernoulli_", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_",
     "xavier_normal_", "trunc_normal_", "zeros_", "ones_", "constant_", "eye_"}
)  # fmt: skip
# Ops that hold no data of their own or only describe a tensor: nothing to compute.
_NO_VALUE = frozenset(
    {"__get__", "__set__", "size", "stride", "dim", "numel", "data_ptr", "element_size", "storage_offset",
     "untyped_storage", "storage", "_typed_storage", "is_contiguous", "__len__", "__repr__", "__str__",
     "__format__", "__hash__", "get_device", "is_floating_point", "is_complex", "nelement", "ndimension",
     "backward", "register_hook", "retain_grad", "requires_grad_", "record_stream", "__reduce_ex__",
     "__deepcopy__", "__setstate__", "__dlpack__", "__dlpack_device__", "tolist", "item", "numpy"}
)  # fmt: skip
_IN_PLACE_DUNDERS = frozenset(
    {"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
     "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"}
)  # fmt: skip
# Ops that multiply and add over a shared dimension: their cost is out.numel() * that size.
_CONTRACTIONS = frozenset(
    {"mm", "matmul", "__matmul__", "__rmatmul__", "bmm", "addmm", "addbmm", "baddbmm", "addmv", "mv",
     "linear", "einsum", "tensordot", "bilinear", "inner", "outer", "kron", "cdist", "chain_matmul",
     "multi_dot", "_scaled_mm", "scaled_dot_product_attention"}
)  # fmt: skip
_CONVOLUTIONS = ("conv", "convolution", "_convolution", "cudnn_convolution")
_SORTS = frozenset(
    {"sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "unique", "unique_consecutive",
     "quantile", "nanquantile", "mode", "searchsorted"}
)  # fmt: skip
# torch's own modules whose functions run code of the file's (a callable, a checkpointed
# region) or act on devices: never computed on the CPU.
_NOT_COMPUTED_MODULES = (
    "torch._higher_order_ops", "torch.utils", "torch._dynamo", "torch.autograd", "torch.distributed",
    "torch.cuda", "torch.compiler", "torch._inductor", "torch.fx", "torch.func", "torch._functorch",
    "torch.testing", "torch.library", "torch._library",
)  # fmt: skip


def budget_bytes() -> int:
    """The bytes the CPU copies may hold (see BUDGET_BYTES)."""
    try:
        limit_mb = int(os.environ.get("KX_MEMORY_LIMIT_MB") or 0)
    except ValueError:
        limit_mb = 0
    return min(BUDGET_BYTES, (limit_mb << 20) // 8) if limit_mb > 0 else BUDGET_BYTES


class _Copy:
    """The CPU copy of one capture storage: the same number of bytes, laid out as it.
    `written`: None where every byte is known; else a CPU storage of as many bytes, 0xFF
    where the file wrote known data into an unknown storage (`k = torch.empty(...)` then
    `k[..., i] = f` column by column, a KV cache's scatter_): the elements under it are
    known, the rest still unknown."""

    __slots__ = ("storage", "exact", "nbytes", "written")

    def __init__(self, storage: Any, exact: bool, nbytes: int, written: Any = None) -> None:
        self.storage = storage
        self.exact = exact
        self.nbytes = nbytes
        self.written = written

    def held(self) -> int:
        """The bytes this copy holds (its data, and its mask of written bytes)."""
        return self.nbytes + (self.written.nbytes() if self.written is not None else 0)


class _Store:
    """Every copy of this capture, by its capture storage (StorageImpl address), and what
    they cost."""

    def __init__(self) -> None:
        self.copies: dict[int, _Copy] = {}
        self.watched: dict[int, Any] = {}  # storage key -> its finalizer (one per storage)
        self.used = 0  # bytes held by the copies
        self.work = 0  # element operations computed so far
        self.budget = budget_bytes()
        self.made = count()  # copies made (a figure for tests and NOTES)
        # capture storages a real run has on the CPU: made with no device (the capture's
        # default device is meta, a real run's the CPU), and what ops on them only make
        self.host: set[int] = set()
        # the first random op on such a storage kx could not compute: from there on the
        # CPU generator's numbers are not a real run's (None: they are)
        self.cpu_rng_unknown: str | None = None


STORE = _Store()


def storage_key(t: Any) -> int | None:
    try:
        return t.untyped_storage()._cdata
    except (RuntimeError, AttributeError, NotImplementedError, TypeError):
        return None


def copy_of(t: Any) -> _Copy | None:
    if not STORE.copies:
        return None
    key = storage_key(t)
    return None if key is None else STORE.copies.get(key)


def _view(torch: Any, copy: _Copy, t: Any) -> Any:
    """The CPU tensor that `t` is over its storage's copy (None where it cannot be one)."""
    if t.layout != torch.strided:
        return None
    try:
        view = torch.empty(0, dtype=t.dtype, device="cpu")
        return view.set_(copy.storage, t.storage_offset(), tuple(t.shape), t.stride())
    except (RuntimeError, TypeError):  # past the copy's bytes (a storage resized): unknown
        return None


def value_of(t: Any) -> tuple[Any, bool] | None:
    """(the CPU value, exact) of a capture tensor whose data is known, else None. The value
    is a view of the storage's copy: clone it before handing it to the file."""
    import torch

    copy = copy_of(t)
    if copy is None:
        if t.numel() == 0 and t.layout == torch.strided:  # no data to know
            with torch._C.DisableTorchFunction():
                return torch.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device="cpu"), True
        return None
    with torch._C.DisableTorchFunction():
        if not _all_written(torch, copy, t):
            return None
        view = _view(torch, copy, t)
    return None if view is None else (view, copy.exact)


# The integer dtype of each element size: a view of a copy's mask of written bytes as one
# (offsets and strides count elements) holds -1 (uint8: 255) where all of an element's
# bytes are written
_MASK_DTYPES = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def _mask_view(torch: Any, copy: _Copy, t: Any) -> Any:
    """`t` seen over its copy's mask of written bytes, as integers of its element size
    (None where its elements are of no such size, or it is no strided view of it)."""
    name = _MASK_DTYPES.get(t.element_size())
    if name is None or copy.written is None or t.layout != torch.strided:
        return None
    try:
        view = torch.empty(0, dtype=getattr(torch, name), device="cpu")
        return view.set_(copy.written, t.storage_offset(), tuple(t.shape), t.stride())
    except (RuntimeError, TypeError):
        return None


def _all_written(torch: Any, copy: _Copy, t: Any) -> bool:
    """Whether every element of `t` is known in `copy` (its storage's)."""
    if copy.written is None:
        return True
    view = _mask_view(torch, copy, t)
    if view is None:
        return False
    return bool((view == (255 if view.dtype == torch.uint8 else -1)).all()) if view.numel() else True


def _known(torch: Any, t: Any, key: int | None) -> bool:
    """Whether capture tensor `t` (of storage `key`) has known data."""
    copy = STORE.copies.get(key) if key is not None else None
    return copy is not None and (copy.written is None or _all_written(torch, copy, t))


def _drop_key(key: int) -> None:
    copy = STORE.copies.pop(key, None)
    if copy is not None:
        STORE.used -= copy.held()


def _released(key: int) -> None:
    """The capture storage died: its copy goes, and its bytes return to the budget."""
    _drop_key(key)
    STORE.host.discard(key)
    STORE.watched.pop(key, None)


def _watch(meta_storage: Any, key: int) -> None:
    """Forget what is kept of a capture storage when it dies (one finalizer a storage)."""
    if key not in STORE.watched:
        finalizer = weakref.finalize(meta_storage, _released, key)
        finalizer.atexit = False
        STORE.watched[key] = finalizer


def is_host(t: Any) -> bool:
    """Whether capture tensor `t` is one a real run has on the CPU (made with no device)."""
    if not STORE.host:
        return False
    key = storage_key(t)
    return key is not None and key in STORE.host


def made_on_host(t: Any) -> None:
    """Capture tensor `t` is one a real run has on the CPU (device_checks: what an op inside
    a composite makes from such tensors only)."""
    if storage_key(t) is not None:
        _mark_host(t)


def _mark_host(t: Any) -> None:
    meta_storage = t.untyped_storage()
    key = meta_storage._cdata
    STORE.host.add(key)
    _watch(meta_storage, key)


def seeded() -> None:
    """The file seeded the CPU generator (torch.manual_seed): its numbers are a real run's."""
    STORE.cpu_rng_unknown = None


def _drew_as_a_real_run(torch: Any, func: Any, name: str, args: tuple, kwargs: dict, results: list) -> bool:
    """A host random op kx does not compute (over the budget, or data it lacks) still draws
    from the CPU generator what a real run's draws: it runs once more on real CPU tensors
    of the same shapes and dtypes, its numbers thrown away, so the host's draws after it
    are a real run's (corpus 14's dinov2 SSL driver: a teacher head's init over the budget
    left the generator behind, and the masked-patch counts drawn after it with
    `torch.rand(()).item()` were other counts than the GPU's, unsaid). False where the count
    drawn depends on the data or the op is over DRAW_LIMIT elements: the generator is then
    unknown (cpu_rng_unknown) and later host draws are said."""
    if name not in FIXED_DRAWS:
        return False
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
    made = [o for o in results if not any(o is t for t in tensors)]  # (an in-place op returns its target)
    if sum(t.numel() for t in (*tensors, *made)) > DRAW_LIMIT:
        return False

    def real(a: Any) -> Any:
        if isinstance(a, torch.Tensor) and a.is_meta:
            return torch.zeros(a.shape, dtype=a.dtype, device="cpu", requires_grad=False)
        return a

    try:
        with torch._C.DisableTorchFunction(), torch.no_grad():  # (the default device is the CPU's)
            func(*(real(a) for a in args), **{k: real(v) for k, v in kwargs.items()})
    except Exception:  # noqa: BLE001 - the op refused the stand-ins: the generator is unknown
        return False
    return True


def written(t: Any) -> None:
    """A write to `t`'s storage kx did not follow (a kernel launch): its copy is stale."""
    key = storage_key(t)
    if key is not None:
        _drop_key(key)


def _drew_as_the_gpu(torch: Any, name: str, args: tuple, kwargs: dict, named: list, results: list) -> bool:
    """A random op on the GPU whose draw kx makes as PyTorch's CUDA kernel does
    (gpu_draws): its target holds a real run's numbers, exact. False where it does not."""
    if name.endswith("_"):
        target = named[0] if len(named) == 1 else None
        if target is None or not _covers_storage(torch, target):
            return False  # (a view's draw would leave the rest of its storage unknown)
    else:
        target = results[0] if len(results) == 1 else None
    if target is None or not target.is_meta or not _fits(target):
        return False  # (checked before drawing: a draw that cannot be kept is not made)
    value = gpu_draws.exact(torch, name, args, kwargs, target)
    return (
        value is not None
        and _charge(value.numel())
        and adopt(torch, target, value, exact=True, take_storage=True)
    )


def _guessed(args: tuple, kwargs: dict) -> bool:
    """A Python number among the arguments is a placeholder's (placeholders.GuessedFloat:
    `torch.full((n,), loss.item())`): data made from it is not exact."""

    def any_guessed(a: Any, depth: int) -> bool:
        if getattr(type(a), "_kx_guessed", False):
            return True
        return depth < 2 and isinstance(a, (list, tuple)) and any(any_guessed(x, depth + 1) for x in a)

    return any(any_guessed(a, 0) for a in (*args, *kwargs.values()))


def _fits(t: Any) -> bool:
    """Whether a copy of capture tensor `t`'s storage fits the budget (in place of the
    copy it has)."""
    meta_storage = t.untyped_storage()
    old = STORE.copies.get(meta_storage._cdata)
    return STORE.used - (old.held() if old else 0) + meta_storage.nbytes() <= STORE.budget


def adopt(torch: Any, t: Any, value: Any, exact: bool, take_storage: bool = False) -> bool:
    """Give `t`'s storage a copy whose view through `t` holds `value` (a CPU tensor of t's
    shape and dtype); False where it does not fit the budget. `take_storage`: value's own
    storage (nothing else holds it) becomes the copy where it is laid out as t's."""
    if tuple(value.shape) != tuple(t.shape) or value.dtype != t.dtype or t.layout != torch.strided:
        return False
    if not _fits(t):
        return False
    nbytes = t.untyped_storage().nbytes()
    storage = value.untyped_storage() if take_storage else None
    if storage is None or not (
        storage.nbytes() == nbytes
        and value.storage_offset() == t.storage_offset()
        and value.stride() == t.stride()
    ):
        # the copy laid out as the GPU's storage (zeros where no element of t lies)
        storage = torch.UntypedStorage(nbytes, device="cpu")
        storage.fill_(0)
        view = torch.empty(0, dtype=t.dtype, device="cpu").set_(
            storage, t.storage_offset(), tuple(t.shape), t.stride()
        )
        # an expanded view (stride 0: one element stands at several indices, as einops'
        # `repeat` of a parameter returns) is written through index 0 of each expanded
        # dimension, as copy_ refuses a target whose elements share memory
        for d, (size, stride) in enumerate(zip(t.shape, t.stride())):
            if stride == 0 and size > 1:
                view, value = view.narrow(d, 0, 1), value.narrow(d, 0, 1)
        if aten_layouts.internal_overlap(tuple(view.shape), view.stride()):
            return False  # elements that overlap otherwise: the data stays unknown
        view.copy_(value)
    _install(t, storage, exact)
    return True


def _adopt_shared(pairs: list[tuple[Any, Any]], exact: bool, allocating: bool, sources: set[int]) -> None:
    """Results that view one new capture storage (`torch.where(mask)`'s, nonzero(as_tuple=
    True)'s columns of one index tensor): the CPU results' one storage becomes its copy,
    where the CPU laid them out as the capture tensors are (same storage size, offsets and
    strides); otherwise their data stays unknown."""
    storages = {r.untyped_storage().data_ptr() for _, r in pairs}
    o0, r0 = pairs[0]
    storage = r0.untyped_storage()
    if (
        not allocating
        or len(storages) != 1
        or storage.data_ptr() in sources
        or storage.nbytes() != o0.untyped_storage().nbytes()
        or STORE.used + storage.nbytes() > STORE.budget
        or any(
            o.dtype != r.dtype
            or tuple(o.shape) != tuple(r.shape)
            or o.stride() != r.stride()
            or o.storage_offset() != r.storage_offset()
            for o, r in pairs
        )
    ):
        return
    _install(o0, storage, exact)


def _install(t: Any, storage: Any, exact: bool, written: Any = None) -> None:
    """Make CPU `storage` (as many bytes as t's storage, laid out as it) t's storage's
    copy, watched so that it goes when the capture storage dies (`written`: its mask of
    written bytes, where only those are known)."""
    meta_storage = t.untyped_storage()
    key = meta_storage._cdata
    _drop_key(key)
    copy = _Copy(storage, exact, storage.nbytes(), written)
    STORE.copies[key] = copy
    STORE.used += copy.held()
    next(STORE.made)
    _watch(meta_storage, key)


def from_host(torch: Any, out: Any, host: Any) -> None:
    """`out` is a copy on the GPU of real CPU tensor `host` (`.cuda()`): its data is exact."""
    if not _charge(host.numel() + out.numel()):
        return
    with torch._C.DisableTorchFunction():
        adopt(torch, out, host.detach(), exact=True)


def moved(torch: Any, out: Any, source: Any) -> None:
    """`out` is a new copy on the GPU of capture tensor `source` (a host tensor's `.cuda()`):
    it has source's data, where known."""
    known = value_of(source)
    if known is not None and _charge(source.numel() + out.numel()):
        with torch._C.DisableTorchFunction():
            adopt(torch, out, known[0], known[1])


def _cpu_result(torch: Any, func: Any, cpu_args: tuple, cpu_kwargs: dict) -> Any:
    """func's result on the CPU arguments (warnings of the CPU's own kernels kept quiet), or
    None where the CPU cannot run it either: the op's own error stands."""
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            return func(*cpu_args, **cpu_kwargs)
    except Exception:  # noqa: BLE001 - any error of the op's own: the caller's rule stands
        return None


def deep_copied(torch: Any, out: Any, source: Any) -> None:
    """`out` is `copy.deepcopy(source)`: Tensor.__deepcopy__ clones a meta tensor inside the
    capture mode's handler, where the clone's data is not followed (CleanRL's SAC deep-copies
    its networks and `log_alpha` for an eager twin, whose `log_alpha.exp().item()` was then a
    placeholder). The copy has source's data where known, and lives where source does."""
    moved(torch, out, source)
    if is_host(source):
        _mark_host(out)


def _charge(work: int) -> bool:
    """Whether `work` element operations may be computed; counts them if so."""
    if work > OP_WORK_LIMIT or STORE.work + work > TOTAL_WORK_LIMIT:
        return False
    STORE.work += work
    return True


def _version(t: Any) -> int | None:
    try:
        return t._version
    except (RuntimeError, AttributeError):  # an inference tensor has no version counter
        return None


def call_tensors(torch: Any, args: tuple, kwargs: dict) -> list:
    """The tensors among a call's arguments, positional then keyword (flat_tensors of each)."""
    return flat_tensors(tuple(kwargs.values()), torch, flat_tensors(args, torch, []))


def flat_tensors(obj: Any, torch: Any, into: list, depth: int = 0) -> list:
    """The tensors of an argument or result, lists and tuples opened two levels deep."""
    if isinstance(obj, torch.Tensor):
        into.append(obj)
    elif depth < 2 and isinstance(obj, (list, tuple)):
        for x in obj:
            flat_tensors(x, torch, into, depth + 1)
    return into


def _torch_own(torch: Any, func: Any) -> bool:
    """Whether `func` is torch's own op (a Tensor method, a torch function, an aten or prims
    op), which computes the same on CPU tensors; not a library's custom op or a function
    that runs code of the file's."""
    module = getattr(func, "__module__", None)
    if module is None:
        return getattr(func, "__objclass__", None) is torch._C.TensorBase
    if module.startswith("torch._ops."):
        return module in ("torch._ops.aten", "torch._ops.prims")
    return (module == "torch" or module.startswith("torch.")) and not module.startswith(_NOT_COMPUTED_MODULES)


def in_place_targets(torch: Any, name: str, args: tuple, kwargs: dict) -> list:
    """The tensors an op writes by its name's convention: `x.add_(1)`, `x[i] = v`,
    `x += 1`, `torch._foreach_mul_(xs, 2)`, `out=`, `inplace=True`."""
    base = name.split(".")[0]
    targets: list = []
    # (nn.init's functions hand torch function handlers every argument by keyword)
    first = args[0] if args else next(iter(kwargs.values()), None)
    if (
        (base.endswith("_") and not base.startswith("__"))
        or base in _IN_PLACE_DUNDERS
        or kwargs.get("inplace") is True
    ):
        flat_tensors(first, torch, targets)
    if kwargs.get("out") is not None:
        flat_tensors(kwargs["out"], torch, targets)
    return targets


def _covers_storage(torch: Any, t: Any) -> bool:
    """Whether `t`'s elements are every byte of its storage, each once."""
    try:
        nbytes = t.untyped_storage().nbytes()
        return (
            t.layout == torch.strided
            and t.numel() * t.element_size() == nbytes
            and aten_layouts.non_overlapping_and_dense(tuple(t.shape), t.stride())
        )
    except (RuntimeError, AttributeError):
        return False


def _work(name: str, metas: list, hosts: list, outs: list) -> int:
    """The element operations of an op (see OP_WORK_LIMIT)."""
    n_in = sum(t.numel() for t in metas) + sum(t.numel() for t in hosts)
    n_out = sum(o.numel() for o in outs)
    work = n_in + n_out
    if name in _CONTRACTIONS or name.startswith(_CONVOLUTIONS):
        # multiply-adds: each output element over the shared dimension (at most the
        # largest input size along any dimension; for a convolution a filter's elements)
        shared = max((max(t.shape, default=1) for t in metas + hosts), default=1)
        if name.startswith(_CONVOLUTIONS) and len(metas) > 1 and metas[1].dim() > 1:
            shared = metas[1].numel() // max(metas[1].shape[0], 1)
        work = max(work, n_out * shared)
        if name == "scaled_dot_product_attention" and metas:
            work = max(work, 2 * metas[0].numel() * max(metas[0].shape[-2] if metas[0].dim() > 1 else 1, 1))
    elif name in _SORTS:
        work *= max(1, math.ceil(math.log2(max(n_in, 2))))
    return work


class Values:
    """Computes the copies of an op's results from its inputs' copies (fake_torch's function
    mode calls `before` and `after` around each op it runs on capture tensors)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.cpu = torch.device("cpu")

    # ------------------------------------------------------------ around each op

    def before(self, name: str, args: tuple, kwargs: dict, named_device: bool = False) -> Any:
        """What `after` needs to know of the inputs as they were: each capture tensor's
        version counter and storage (None for ops that hold no data). `named_device`: the
        call named a device (a GPU's), so what it makes is not the host's."""
        if name.split(".")[0] in _NO_VALUE:
            return None
        torch = self.torch
        with torch._C.DisableTorchFunction():
            tensors = call_tensors(torch, args, kwargs)
            python = torch._C.DispatchKey.Python
            if any(torch._C._dispatch_keys(t).has(python) for t in tensors):
                # a tensor subclass with its own __torch_dispatch__ (a quantized weight made
                # by _make_wrapper_subclass) has no storage of its own: its data is in the
                # tensors it holds, whose ops (its dispatch runs them) kx follows; asking
                # its storage for data raised "invalid python storage"
                return None
            metas = [t for t in tensors if t.is_meta]
            hosts = [t for t in tensors if not t.is_meta]
            keys = [storage_key(t) for t in metas]
            # (a version counter matters only where a copy may go stale)
            copies = STORE.copies
            states = [(_version(t) if key in copies else None, key) for t, key in zip(metas, keys)]
            return metas, hosts, states, named_device

    def after(
        self,
        func: Any,
        name: str,
        args: tuple,
        kwargs: dict,
        out: Any,
        before: Any,
        computed: bool = False,
        handled: frozenset | set = frozenset(),
    ) -> None:
        """Called after `func(*args, **kwargs)` made `out` on capture tensors (`computed`:
        its results' data was computed already, by `data_dependent`; `handled`: storages
        the op wrote whose writes were followed among its own aten ops, engine_ops)."""
        if before is None:
            return
        torch = self.torch
        with torch._C.DisableTorchFunction():
            self._after(func, name.split(".")[0], args, kwargs, out, before, computed, handled)

    def _after(
        self,
        func: Any,
        name: str,
        args: tuple,
        kwargs: dict,
        out: Any,
        before: Any,
        computed: bool,
        handled: frozenset | set = frozenset(),
    ) -> None:
        torch = self.torch
        metas, hosts, states, named_device = before
        if (
            metas
            and not any(key in STORE.copies or key in STORE.host for _, key in states)
            and name not in OVERWRITES
            and name not in _PURE_WRITES
            and name not in DATA_INDEPENDENT
            and "out" not in kwargs
        ):
            return  # (the common case of a kernel file: every input unknown, nothing to do)
        # a real run makes this on the CPU: no device named, and every capture tensor it
        # reads is the host's
        on_host = not named_device and all(key in STORE.host for _, key in states)
        named = in_place_targets(torch, name, args, kwargs)
        # the capture tensors the op wrote: a version counter moved, or its name says so
        written_ = [
            (t, key)
            for t, (version, key) in zip(metas, states)
            if key is not None
            and key not in handled
            and (
                any(t is n for n in named)
                # (an inference tensor has no version counter: its writes are known by name)
                or (key in STORE.copies and version is not None and _version(t) != version)
            )
        ]
        input_keys = {key for _, key in states}
        # (a sparse result has no storage to carry a copy: its data stays unknown)
        results = (
            [o for o in flat_tensors(out, torch, []) if o.layout == torch.strided]
            if not isinstance(out, dict)
            else []
        )
        # results on a storage of their own (not a view of an input), whose data is not
        # known yet (a data-dependent op's result already has its copy)
        new = [o for o in results if o.is_meta and storage_key(o) not in input_keys]
        if on_host:
            for o in new:
                _mark_host(o)
        fresh = [] if computed else [o for o in new if storage_key(o) not in STORE.copies]
        if not fresh and not written_:
            return
        written_keys = {key for _, key in written_}
        unknown_written = [(t, k) for t, k in written_ if k not in STORE.copies]
        shape_only = _shape_only(name, args, kwargs)  # (zeros_like's, new_full's self)
        unread = [
            t
            for t, (_, key) in zip(metas, states)
            if key not in written_keys
            and not _known(torch, t, key)
            and t is not shape_only
            and not self._selects_written(func, name, args, kwargs, t, key)
        ]
        # an unknown input with a placeholder's presumed value (`next_token == eos_id` all
        # False) read with known data (`eos_reached |= ~known_mask & that`): the op runs on
        # the presumption as PyTorch computes it, a guessed (not exact) result, where else
        # the known data would be lost and a later read would be a bare placeholder (llama's
        # decode loop read its `all(eos_reached)` as True and stopped after the prompt)
        presumed = {
            id(t): fill for t in unread if isinstance(fill := getattr(t, FILL, None), (bool, int, float))
        }
        unknown_read = [t for t in unread if id(t) not in presumed]
        random = name in RANDOM_OPS
        if (
            random
            and not on_host
            and not computed
            and _drew_as_the_gpu(torch, name, args, kwargs, named, results)
        ):
            return
        computable = (
            not unknown_read
            and name not in EMPTY_FACTORIES
            and (metas or hosts or not written_)
            and _torch_own(torch, func)
            and not any(_runs_code(a) for a in (*args, *kwargs.values()))
        )
        overwrite = name in OVERWRITES or "out" in kwargs
        # targets whose storage is known only where the file wrote (a partial copy)
        partial_written = [(t, k) for t, k in written_ if k in STORE.copies and not _known(torch, t, k)]
        whole = not partial_written
        if unknown_written or partial_written:
            # the old data of an unknown target matters unless the op overwrites all of it
            # (whole: the copy is all known), or writes known data without reading the
            # target (a pure write: what it wrote becomes known, the rest stays unknown);
            # and no other argument views it
            named_only = all(any(t is n for n in named) for t, _ in (*unknown_written, *partial_written))
            whole = whole and overwrite and all(_covers_storage(torch, t) for t, _ in unknown_written)
            computable = computable and named_only and (whole or _pure_write(torch, name, args, kwargs))
        # random numbers a real run draws on the CPU are the CPU generator's, as here
        # (until kx fails to draw some: cpu_rng_unknown); the GPU's are sampled
        exact = (
            (not random or (on_host and STORE.cpu_rng_unknown is None))
            and all(
                STORE.copies[k].exact
                for t, (_, k) in zip(metas, states)
                if k in STORE.copies and t is not shape_only
            )
            and not _guessed(args, kwargs)
            and not presumed
        )
        draws = random and on_host and exact  # on the CPU generator itself, as a real run
        if computable and not exact:
            computable = all(t.numel() <= SAMPLED_LIMIT for t in metas) and all(
                o.numel() <= SAMPLED_LIMIT for o in results if o.is_meta
            )
        if computable:
            new_bytes = sum({storage_key(o): o.untyped_storage().nbytes() for o in fresh}.values())
            # (a target known only in part holds a mask of written bytes as large as it)
            new_bytes += sum({k: t.untyped_storage().nbytes() for t, k in unknown_written}.values()) * (
                1 if whole else 2
            )
            computable = STORE.used + new_bytes <= STORE.budget and _charge(
                _work(name, metas, hosts, results)
            )
        result = (
            self._compute(
                func, name, args, kwargs, metas, states, unknown_written, draws, shape_only, presumed
            )
            if computable
            else None
        )
        if result is None:
            for _, key in written_:
                _drop_key(key)
            if random and on_host and not _drew_as_a_real_run(torch, func, name, args, kwargs, results):
                # the CPU generator did not draw what a real run's drew
                STORE.cpu_rng_unknown = STORE.cpu_rng_unknown or f"torch.{name}"
            return
        value, views, temps, cpu_args, cpu_kwargs = result
        # the writes the CPU made are the GPU's: a copy written in place stays, where its
        # view still is the capture tensor's (not resized, not moved to other storage)
        for t, key in written_:
            copy = STORE.copies.get(key)
            view = views.get(id(t))
            if key in temps and whole:
                _install(t, temps.pop(key), exact)  # an unknown target, overwritten whole
            elif key in temps or (copy is not None and copy.written is not None):
                # a pure write into storage known in part: what it wrote is known
                if key in temps:
                    mask = torch.UntypedStorage(temps[key].nbytes(), device="cpu")
                    mask.fill_(0)
                    _install(t, temps.pop(key), exact, written=mask)
                    copy = STORE.copies[key]
                else:
                    copy.exact = copy.exact and exact
                if not _mark_written(torch, name, copy, t, cpu_args, cpu_kwargs):
                    _drop_key(key)
            elif copy is None or view is None or not _still_its_view(t, view, copy):
                _drop_key(key)
            elif overwrite and _covers_storage(torch, t):
                copy.exact = exact
            else:
                copy.exact = copy.exact and exact
        if not fresh:
            return
        produced = flat_tensors(value, torch, []) if not isinstance(value, dict) else []
        if len(produced) != len(results):
            return
        fresh_ids = {id(o) for o in fresh}
        sources = {v.untyped_storage().data_ptr() for v in (*views.values(), *hosts)}
        sources.update(s.data_ptr() for s in temps.values())
        allocating = bool(metas) or name in _ALLOCATING
        counts: dict[int, int] = {}
        for o in fresh:
            counts[storage_key(o)] = counts.get(storage_key(o), 0) + 1
        shared: dict[int, list[tuple[Any, Any]]] = {}
        for o, r in zip(results, produced):
            if id(o) not in fresh_ids or r.is_meta:
                continue
            if counts.get(storage_key(o), 0) != 1:
                shared.setdefault(storage_key(o), []).append((o, r))
                continue
            take = allocating and r.untyped_storage().data_ptr() not in sources
            adopt(torch, o, r.detach(), exact, take_storage=take)
        for pairs in shared.values():
            _adopt_shared(pairs, exact, allocating, sources)

    def _selects_written(self, func: Any, name: str, args: tuple, kwargs: dict, t: Any, key: Any) -> bool:
        """Whether a selection (`cache[:, pos]`, index_select, gather, take) from `t`, whose
        storage is known only where the file wrote (a partial copy), reads written elements
        only: the same selection made on the mask of written bytes says (its indices must be
        known). A KV cache filled position by position and read at the positions written
        was unknown, as if unwritten."""
        copy = STORE.copies.get(key) if key is not None else None
        if name not in _SELECTIONS or copy is None or copy.written is None or not args or args[0] is not t:
            return False
        torch = self.torch
        mask = _mask_view(torch, copy, t)
        known = self.cpu_arguments(args[1:], kwargs)
        if mask is None or known is None:
            return False
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                selected = func(mask, *known[0], **known[1])
        except Exception:  # noqa: BLE001 - the CPU refuses it: unknown, as before
            return False
        full = 255 if mask.dtype == torch.uint8 else -1
        return isinstance(selected, torch.Tensor) and bool((selected == full).all())

    def _compute(
        self,
        func: Any,
        name: str,
        args: tuple,
        kwargs: dict,
        metas: list,
        states: list,
        unknown_written: list,
        draws: bool,
        shape_only: Any = None,
        presumed: dict[int, Any] | None = None,
    ) -> tuple[Any, dict, dict, tuple, dict] | None:
        """func run on the CPU copies: (its result, {id(capture tensor): its CPU view},
        {storage key: a new copy's storage, for unknown targets it overwrote}, the
        arguments as the CPU ran them); None where the CPU refuses it. `draws`: the op draws from the CPU generator as a real run's
        does; otherwise what it draws is given back."""
        torch = self.torch
        views: dict[int, Any] = {}
        temps: dict[int, Any] = {}
        for t, key in unknown_written:
            if key not in temps:
                storage = torch.UntypedStorage(t.untyped_storage().nbytes(), device="cpu")
                storage.fill_(0)
                temps[key] = storage
        for t, (_, key) in zip(metas, states):
            copy = STORE.copies.get(key)
            if key in temps:
                view = _view(torch, _Copy(temps[key], True, 0), t)
            elif copy is not None:
                view = _view(torch, copy, t)
            elif t is shape_only:  # only its shape and dtype are read
                view = torch.zeros((), dtype=t.dtype, device="cpu").expand(tuple(t.shape))
            elif presumed and id(t) in presumed:  # a placeholder's presumed value, everywhere
                view = torch.full((), presumed[id(t)], dtype=t.dtype, device="cpu").expand(tuple(t.shape))
            else:
                return None
            if view is None:
                return None
            views[id(t)] = view

        def cpu(a: Any) -> Any:
            return self._on_cpu(a, lambda t: views[id(t)])  # (KeyError: a tensor with no view)

        try:
            cpu_args = tuple(cpu(a) for a in args)
            cpu_kwargs = {k: cpu(v) for k, v in kwargs.items()}
        except (KeyError, TypeError):
            return None
        cpu_kwargs.pop("pin_memory", None)
        # the file's CPU random numbers stay the ones a real run draws: whatever the op
        # draws on the CPU comes back to the generator
        generator = torch.default_generator
        state = None if draws else generator.get_state()
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                value = func(*cpu_args, **cpu_kwargs)
        except Exception:  # noqa: BLE001 - the CPU refuses it (no CPU kernel, a dtype): unknown
            return None
        finally:
            if state is not None:
                generator.set_state(state)
        return value, views, temps, cpu_args, cpu_kwargs

    # ------------------------------------------------------------ other entry points

    def cpu_arguments(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, bool] | None:
        """(args, kwargs, exact) with every capture tensor replaced by its CPU value; None
        where one's data is unknown."""
        exact = [True]

        def known(t: Any) -> Any:
            value = value_of(t)
            if value is None:
                raise LookupError
            exact[0] = exact[0] and value[1]
            return value[0]

        def cpu(a: Any) -> Any:
            return self._on_cpu(a, known)

        try:
            return tuple(cpu(a) for a in args), {k: cpu(v) for k, v in kwargs.items()}, exact[0]
        except LookupError:
            return None

    def _on_cpu(self, a: Any, tensor_value: Callable[[Any], Any], depth: int = 0) -> Any:
        """`a` as the CPU runs it: each capture tensor replaced by `tensor_value(t)`, a
        device the capture names (cuda, meta, hip) by the CPU, inside lists and tuples two
        levels deep (named tuples kept)."""
        torch = self.torch
        if isinstance(a, torch.Tensor):
            return tensor_value(a) if a.is_meta else a
        if _cpu_device(torch, a) is not a:
            return self.cpu
        if depth < 2 and isinstance(a, (list, tuple)):
            items = [self._on_cpu(x, tensor_value, depth + 1) for x in a]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        return a

    def sparse_on_host(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The real CPU tensor a real run makes where an op made a sparse capture tensor from
        host tensors only, every one's data known; else None (a GPU input's sparse result is
        the GPU's, a sparse meta tensor)."""
        torch = self.torch
        metas = call_tensors(torch, args, kwargs)
        if not all(is_host(t) for t in metas if t.is_meta):
            return None
        known = self.cpu_arguments(args, kwargs)
        if known is None:
            return None
        cpu_args, cpu_kwargs, exact = known
        with torch._C.DisableTorchFunction():
            work = _work("sparse", flat_tensors(cpu_args, torch, []), [], [])
            if not exact or not _charge(work):
                return None
            return _cpu_result(torch, func, cpu_args, cpu_kwargs)

    def data_dependent(self, func: Any, name: str, args: tuple, kwargs: dict) -> Any:
        """The result of an op meta kernels cannot shape (its output size depends on the
        data: nonzero, masked_select, unique, a boolean index), as capture tensors carrying
        the CPU result: None unless every capture tensor among the arguments has known data.
        A size from sampled data is a placeholder, said."""
        torch = self.torch
        known = self.cpu_arguments(args, kwargs)
        if known is None:
            return None
        cpu_args, cpu_kwargs, exact = known
        with torch._C.DisableTorchFunction():
            tensors = call_tensors(torch, cpu_args, cpu_kwargs)
            made = _data_dependent_size(torch, name, cpu_args, cpu_kwargs)
            if made * 8 > STORE.budget - STORE.used or not _charge(_work(name, tensors, [], []) + made):
                return None
            result = _cpu_result(torch, func, cpu_args, cpu_kwargs)
            if result is None:
                return None
            meta = torch.device("meta")
            inputs = {t.untyped_storage().data_ptr() for t in tensors} - {0}
            bases: dict[tuple[int, int], Any] = {}

            def shaped(r: Any) -> Any:
                """A capture tensor laid out as CPU result `r`; results that are views of one
                storage (`torch.where(mask)`'s columns of one nonzero) view one capture
                storage, whose copy is theirs."""
                if not isinstance(r, torch.Tensor):
                    return r
                if r.layout != torch.strided:
                    # a sparse result (whisper's `heads.to_sparse()` of a tensor made with no
                    # device): a capture tensor has no such layout, and the real run's is a
                    # CPU tensor, as its input was; so is this
                    return r
                storage = r.untyped_storage()
                key = (storage.data_ptr(), storage.nbytes())
                new = key not in bases
                if new:
                    bases[key] = torch.UntypedStorage(storage.nbytes(), device=meta)
                out = torch.empty(0, dtype=r.dtype, device=meta)
                out.set_(bases[key], r.storage_offset(), tuple(r.shape), r.stride())
                if new and key[0] not in inputs and STORE.used + key[1] <= STORE.budget:
                    _install(out, storage, exact)
                return out

            shaped_result = (
                type(result)(shaped(r) for r in result)
                if isinstance(result, (tuple, list))
                else shaped(result)
            )
            if name == "__getitem__" and isinstance(result, torch.Tensor):
                rebuilt = _with_history(torch, args, result, exact)
                if rebuilt is not None:
                    shaped_result = rebuilt
        if not exact and not _size_exact(self, name, args, kwargs):
            from kx_core.compile.capturing.device.placeholders import LEDGER

            sizes = [tuple(r.shape) for r in flat_tensors(result, torch, [])]
            LEDGER.use(
                f"torch.{name} of random data (its size from kx's own sample)",
                sizes[0] if len(sizes) == 1 else sizes,
            )
        return shaped_result


# How many calls the capture's torch function mode is handling now (fake_torch counts them):
# the engine's ops are followed only where the innermost of them is the backward call
CALLS = [0]


def engine_ops(values: Values, inside: bool = False) -> Any:
    """A dispatch mode, on while `loss.backward()` or `torch.autograd.grad` runs, that
    computes the copies of what the autograd engine's own ops make (the backward formulas
    ATen runs in C++: `mse_loss_backward`, `mm`, `threshold_backward`, AccumulateGrad's
    clone or add into `.grad`), as the capture's torch function mode does for the file's
    calls; the engine calls no Python, so the gradients of every eager op were unknown, so
    were the parameters after an optimizer's step, and a training loop's `loss.item()` was
    a placeholder from its second step on. Python the engine runs (a custom Function's
    backward, torch.compile's compiled backward) is the function mode's again: inside it
    (a deeper call) this mode only passes ops on.

    `inside`: on while one of the file's calls runs and autograd records it (follows_inside):
    the intermediates the call's own aten ops make and autograd saves for the backward
    (`Tensor.__rtruediv__` is Python, `self.reciprocal() * other`: ReciprocalBackward0 saves
    the reciprocal; `F.layer_norm`'s mean and rstd) get their copies too; random draws are
    left to the function mode (it draws as the GPU), and the storages the aten ops wrote
    are gathered in `wrote` so that the call's own rule does not write them again
    (`F.batch_norm`'s running statistics)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    depth = CALLS[0]
    seeded = torch.Tag.nondeterministic_seeded

    class EngineValues(TorchDispatchMode):
        kx_engine = True

        def __init__(self) -> None:
            super().__init__()
            self.wrote: set[int] = set()

        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
        ) -> Any:
            kwargs = kwargs or {}
            if CALLS[0] != depth or (inside and seeded in func.tags):
                return func(*args, **kwargs)
            name = func.overloadpacket.__name__
            # (an aten factory always names its device, the capture's for a GPU tensor: what
            # it makes is no host tensor, as a file's `torch.zeros(n)` with none would be;
            # `_pad_packed_sequence`'s padded output was taken for the host's, and the
            # compiled decoder it fed ran into kx's own "mat2 is on cpu", Tacotron 2)
            before = values.before(name, args, kwargs, named_device=kwargs.get("device") is not None)
            try:
                out = func(*args, **kwargs)
            except ZeroDivisionError:
                out = _shaped_on_the_cpu(func, args, kwargs)
                if out is None:
                    raise
            if inside and before is not None:
                metas, _, states, _ = before
                named = in_place_targets(torch, name, args, kwargs)
                self.wrote.update(
                    key
                    for t, (version, key) in zip(metas, states)
                    if key is not None
                    and (any(t is n for n in named) or (version is not None and _version(t) != version))
                )
            values.after(func, name, args, kwargs, out, before)
            return out

    return EngineValues()


def follows_inside(torch: Any, name: str, args: tuple, kwargs: dict) -> bool:
    """Whether the file's call `name` is followed inside (engine_ops' `inside`): autograd
    records it (grad on, a capture tensor among its arguments requires grad, with known
    data somewhere), and it is not one that writes its arguments by name (those keep the
    function mode's rule alone)."""
    if not STORE.copies or not torch.is_grad_enabled() or name in ("backward", "grad"):
        return False
    tensors = call_tensors(torch, args, kwargs)
    if not any(t.is_meta and t.requires_grad for t in tensors):
        return False
    return not in_place_targets(torch, name, args, kwargs)


def _shaped_on_the_cpu(func: Any, args: tuple, kwargs: dict) -> Any:
    """The capture tensors an op makes, laid out as its CPU kernel lays them out, where its
    meta kernel, a Python decomposition, divides by a count that is zero: the gradient of
    `mse_loss` over an empty tensor (`2.0 / input.numel()`) raised ZeroDivisionError, where
    a real run's kernel computes on no elements. Run on CPU tensors of the arguments'
    layouts (what they hold does not size the result). None where no argument is empty."""
    import torch

    def cpu(a: Any) -> Any:
        if isinstance(a, torch.Tensor) and a.is_meta:
            return torch.empty_strided(tuple(a.shape), a.stride(), dtype=a.dtype, device="cpu")
        return _cpu_device(torch, a)

    metas = [a for a in flat_tensors((args, tuple(kwargs.values())), torch, []) if a.is_meta]
    if not any(a.numel() == 0 for a in metas):
        return None
    result = func(*torch.utils._pytree.tree_map(cpu, args), **torch.utils._pytree.tree_map(cpu, kwargs))
    return torch.utils._pytree.tree_map(
        lambda r: (
            torch.empty_strided(tuple(r.shape), r.stride(), dtype=r.dtype, device="meta")
            if isinstance(r, torch.Tensor)
            else r
        ),
        result,
    )


@contextlib.contextmanager
def engine_paused() -> Iterator[None]:
    """engine_ops' mode off while the engine runs Python (a custom Function's backward,
    torch.compile's compiled backward): dynamo compiles no frame while a dispatch mode is
    on ("found no compiled frames": a compiled helper first called in a backward), and
    the function mode follows that Python's calls itself."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode_temporarily

    if getattr(_get_current_dispatch_mode(), "kx_engine", False):
        with _pop_mode_temporarily():
            yield
    else:
        yield


def mask_indices(m: Any) -> tuple[list[Any], bool] | None:
    """Boolean capture tensor `m`'s nonzero() index tensors (capture tensors carrying their
    data) and whether they are exact; None where m's data is unknown."""
    import torch

    known = value_of(m)
    if known is None:
        return None
    meta = torch.device("meta")
    cols = []
    with torch._C.DisableTorchFunction():
        for column in known[0].bool().nonzero(as_tuple=True):
            t = torch.empty(column.shape, dtype=column.dtype, device=meta)
            adopt(torch, t, column, known[1])
            cols.append(t)
    return cols, known[1]


def _with_history(torch: Any, args: tuple, result: Any, exact: bool) -> Any:
    """`x[mask]` of an `x` that needs a gradient, indexed again on the capture device with
    the mask's nonzero() indices (PyTorch's own rule: a boolean index is its nonzero
    indices), so the result has the backward a real run records (a result made from the
    CPU's answer had none: "element 0 of tensors does not require grad"). Its data is the
    CPU's result. None where x needs no gradient or the index is not one kx can rebuild.
    Called with torch functions off (the capture's mode is not entered again)."""
    x = args[0]
    if not (torch.is_grad_enabled() and getattr(x, "requires_grad", False)) or len(args) < 2:
        return None
    index: list[Any] = []
    for part in args[1] if isinstance(args[1], tuple) else (args[1],):
        if isinstance(part, torch.Tensor) and part.dtype in (torch.bool, torch.uint8):
            known = mask_indices(part) if part.is_meta else None
            if known is None:
                return None
            index.extend(known[0])
        elif isinstance(part, (list, tuple)):
            return None  # a nested index: left to the CPU's answer
        else:
            index.append(part)
    out = x[tuple(index)]
    if tuple(out.shape) != tuple(result.shape):
        return None
    adopt(torch, out, result.detach(), exact)
    return out


# Ops that select elements of their first argument by index arguments (known_values reads a
# partial copy through them where the selected elements are all written)
_SELECTIONS = frozenset({"__getitem__", "index", "index_select", "gather", "take", "take_along_dim"})


# Ops whose result's size depends on their index or mask arguments' data only, never on
# the data they select from: `x[t]` with t exact has an exact size whatever x holds.
_SIZED_BY_INDEX = {"__getitem__", "index", "masked_select", "index_select", "take"}


def _size_exact(values: Values, name: str, args: tuple, kwargs: dict) -> bool:
    """Whether a data-dependent result's size comes from exact data alone (its values may
    still be sampled: a read of them is said where it happens)."""
    from kx_core.compile.capturing.device.placeholders import FROM_DATA

    if name in FROM_DATA:  # (`torch.tensor(items)`: its size is the nesting's, never the data's)
        return True
    if name not in _SIZED_BY_INDEX or not args:
        return False
    known = values.cpu_arguments(args[1:], {k: v for k, v in kwargs.items() if k != "input"})
    return known is not None and known[2]


# An input of a compiled graph whose data is unknown (graph_inputs)
UNKNOWN = object()


def graph_inputs(torch: Any, graph: Any, inputs: list) -> tuple[list, list[bool]] | None:
    """A compiled graph's inputs as through_graph reads them: (the CPU copies of their data,
    UNKNOWN where it is not known; whether each is exact), taken before the compiled code
    runs; None where no input is known or running the graph would pass the work limit.
    Its kernels may write an input's storage (Inductor reuses a backward's saved activation
    as its output: `in_out_ptr0`), which makes the copy go; so the copies are cloned, as
    the graph reads them (within the budget)."""
    # (called with the capture's function mode on: each tensor attribute read here went
    # through it, 30-40 us a read, 1 ms a call of a compiled ODE function with its weights)
    with torch._C.DisableTorchFunction():
        return _graph_inputs(torch, graph, inputs)


def _graph_inputs(torch: Any, graph: Any, inputs: list) -> tuple[list, list[bool]] | None:
    values = [value_of(a) if isinstance(a, torch.Tensor) and a.is_meta else None for a in inputs]
    known = [v[0] for v in values if v is not None]
    known += [a for a in inputs if isinstance(a, torch.Tensor) and not a.is_meta]
    calls = sum(1 for n in graph.graph.nodes if n.op in ("call_function", "call_method", "call_module"))
    if not known or not _charge(sum(t.numel() for t in known) * max(calls, 1)):
        return None
    spare = STORE.budget - STORE.used
    cpu_inputs: list = []
    input_exact: list[bool] = []
    for a, value in zip(inputs, values):
        if not (isinstance(a, torch.Tensor) and a.is_meta):
            cpu_inputs.append(a)
            input_exact.append(True)
        elif value is None or value[0].nbytes > spare:
            cpu_inputs.append(UNKNOWN)
            input_exact.append(False)
        else:
            spare -= value[0].nbytes
            cpu_inputs.append(value[0].clone())
            input_exact.append(value[1])
    return cpu_inputs, input_exact


def through_graph(torch: Any, graph: Any, inputs: tuple[list, list[bool]], outputs: Any) -> None:
    """The data of a compiled graph's outputs that depend on known data only: the graph
    (dynamo's, before Inductor's passes; or AOTAutograd's forward and backward of a
    training graph) run on the CPU copies of its inputs (`graph_inputs`, taken before the
    compiled code ran), node by node, as a real run's kernels compute it; a node reading an
    unknown input, or one the CPU cannot run (a Triton kernel), is unknown, and so is all
    it feeds; a random draw is a sample (inexact), and so is all it feeds. A decoder keeps
    its positions on the GPU and reads `pos_end.max().item()` after a compiled region made
    it beside logits from unknown weights (LLMs-from-scratch's batched KV cache): the
    Inductor kernels that make it are skipped, so every such read was a placeholder.
    Bounded by the work limits."""
    unknown = UNKNOWN
    cpu_inputs, input_exact = inputs

    def flat_args(node_args: Any) -> list:
        found: list = []
        torch.fx.node.map_aggregate(node_args, found.append)
        return found

    exact: dict[Any, bool] = {}  # node -> its value is exact (every input it reads is)
    input_flags = iter(input_exact)

    from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

    seeded = torch.Tag.nondeterministic_seeded

    class Draws(TorchDispatchMode):
        """Whether a node draws random numbers: ATen tags every op that does
        (`nondeterministic_seeded`: dropout, rand, bernoulli, ...). The GPU's draws are not
        the CPU's (and Inductor draws with its own philox), so such a node is a sample:
        inexact, and unknown past SAMPLED_LIMIT elements, as a draw outside a graph is."""

        drew = False

        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
        ) -> Any:
            if seeded in getattr(func, "tags", ()):
                self.drew = True
            return func(*args, **(kwargs or {}))

    class Partial(torch.fx.Interpreter):
        def run_node(self, n: Any) -> Any:
            if n.op == "placeholder":
                exact[n] = next(input_flags, False)
                return super().run_node(n)
            exact[n] = all(exact.get(m, True) for m in n.all_input_nodes)
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            if n.op == "output":
                return super().run_node(n)
            if any(a is unknown for a in flat_args((args, kwargs))):
                return unknown
            if n.op == "call_method" and n.target == "cuda" and args:
                return args[0]  # (already where the CPU copies are)
            args, kwargs = _on_the_cpu(torch, args, kwargs)
            draws = Draws()
            try:
                with self._set_current_node(n), draws:
                    value = getattr(self, n.op)(n.target, args, kwargs)
            except Exception:  # noqa: BLE001 - not computable on the CPU: unknown from here
                return unknown
            if not draws.drew:
                return value
            # a sample, as the function mode makes of a GPU draw outside a graph (the prenet
            # dropout of a compiled decoder and of its eager twin then steer alike), drawn
            # from the host's numbers as they stand and given back, as the function mode
            # does op by op: the same draw made eagerly after the same manual_seed is the
            # same sample, as on the GPU (VITS's noise, compiled and eager under Inductor's
            # fallback_random, gave two output lengths)
            torch.default_generator.set_state(host_numbers)
            exact[n] = False
            sampled = isinstance(value, torch.Tensor) and value.numel() <= SAMPLED_LIMIT
            return value if sampled else unknown

    with (
        _disable_current_modes(),
        torch._C.DisableTorchFunction(),
        torch.no_grad(),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        # (what the graph's samples draw from the CPU generator goes back to it: a real
        # run's GPU draws leave the host's numbers as they are)
        host_numbers = torch.default_generator.get_state()
        try:
            results = Partial(graph).run(*cpu_inputs)
        except Exception:  # noqa: BLE001 - the graph as a whole would not run here
            return
        finally:
            torch.default_generator.set_state(host_numbers)
        # the compiled code returns what the graph returns, output for output
        outs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        values = list(results) if isinstance(results, (list, tuple)) else [results]
        (output_node,) = [n for n in graph.graph.nodes if n.op == "output"]
        made = (
            output_node.args[0] if isinstance(output_node.args[0], (list, tuple)) else [output_node.args[0]]
        )
        if not (len(outs) == len(values) == len(made)):
            return
        for out, value, node in zip(outs, values, made):
            if getattr(out, "is_meta", False) and isinstance(value, torch.Tensor) and not value.is_meta:
                adopt(
                    torch,
                    out,
                    value.detach(),
                    exact.get(node, False) if isinstance(node, torch.fx.Node) else True,
                )


def _cpu_device(torch: Any, a: Any) -> Any:
    """`a`, where it names a device (a torch.device, or a name such as "cuda:0"), named as
    the CPU, where the copies are."""
    if isinstance(a, torch.device) or (isinstance(a, str) and a.startswith(("cuda", "meta", "hip"))):
        return torch.device("cpu")
    return a


def _on_the_cpu(torch: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A graph node's arguments with the GPU named as the CPU: the graph's factories and
    moves (`torch.arange(T, device=device(type='cuda', index=0))`, aten's
    `full(..., device=cuda:0)`, `x.to(device)`) make their data where the copies are."""

    def cpu(a: Any) -> Any:
        return _cpu_device(torch, a)

    return tuple(torch.fx.node.map_aggregate(args, cpu)), {k: cpu(v) for k, v in kwargs.items()}


def _data_dependent_size(torch: Any, name: str, args: tuple, kwargs: dict) -> int:
    """The elements a data-dependent op makes where they may be far more than it reads
    (bincount's bins are its largest value + 1; repeat_interleave's the repeats' sum): the
    CPU is asked only if they fit the budget. 0 for the others (no more than they read)."""
    x = args[0] if args else None
    if not isinstance(x, torch.Tensor) or x.numel() == 0:
        return 0
    if name == "bincount" and not x.dtype.is_floating_point:
        return max(int(x.max()) + 1, int(kwargs.get("minlength", args[2] if len(args) > 2 else 0) or 0))
    if name == "repeat_interleave":
        repeats = kwargs.get("repeats", args[1] if len(args) > 1 else x)
        if isinstance(repeats, torch.Tensor) and not repeats.dtype.is_floating_point:
            return int(repeats.sum()) * (x.numel() if repeats is not x and repeats.numel() == 1 else 1)
    return 0


# Factories that allocate their result (so their CPU result's storage can be the copy);
# a move (`to`, `as_tensor` of a NumPy array) may return the host's own memory.
_ALLOCATING = frozenset(
    {"tensor", "arange", "range", "linspace", "logspace", "zeros", "ones", "full", "eye", "scalar_tensor",
     "tril_indices", "triu_indices", "rand", "randn", "randint", "randperm", "normal", "zeros_like",
     "ones_like", "full_like", "rand_like", "randn_like", "randint_like", "new_zeros", "new_ones",
     "new_full", "new_tensor"}
)  # fmt: skip


def _shape_only(name: str, args: tuple, kwargs: dict) -> Any:
    """The argument of a DATA_INDEPENDENT op whose shape and dtype only are read (its
    first: `zeros_like(x)`, `x.new_full(...)`), or None."""
    if name not in DATA_INDEPENDENT:
        return None
    return args[0] if args else next(iter(kwargs.values()), None)


def _runs_code(a: Any) -> bool:
    """A callable argument (a function, a module; not a dtype or class): computing the op
    on the CPU would run the file's code again."""
    return callable(a) and not isinstance(a, type)


# Writes that put known data into (part of) their target without reading what it held:
# into storage whose data is unknown they make the part they write known. The indexed ones
# write where their indices say (`x[i] = v`, `cache.scatter_(1, pos, xk)`, a masked fill).
_PURE_WRITES = frozenset(
    {"__setitem__", "index_put_", "masked_fill_", "scatter_", "index_copy_", "index_fill_"}
) | (OVERWRITES - {"uniform_", "normal_", "random_", "exponential_", "geometric_", "cauchy_",
                   "log_normal_", "bernoulli_", "kaiming_uniform_", "kaiming_normal_",
                   "xavier_uniform_", "xavier_normal_", "trunc_normal_"})  # fmt: skip


def _pure_write(torch: Any, name: str, args: tuple, kwargs: dict) -> bool:
    """Whether op `name` only writes its target (see _PURE_WRITES): not an accumulating
    index_put_ or a reducing scatter_, which read it."""
    if name not in _PURE_WRITES:
        return False
    if name == "index_put_":
        return not (kwargs.get("accumulate") or (len(args) > 3 and args[3]))
    if name == "scatter_":
        return "reduce" not in kwargs and len(args) <= 4
    return True


def _argument(args: tuple, kwargs: dict, position: int, key: str) -> Any:
    return args[position] if len(args) > position else kwargs.get(key)


def _mark_written(torch: Any, name: str, copy: _Copy, t: Any, cpu_args: tuple, cpu_kwargs: dict) -> bool:
    """Mark in `copy`'s mask the bytes pure write `name` on target `t` wrote: the same write
    made on the mask, with all-ones for its value (the arguments as the CPU ran them).
    Once every byte is written the copy is known whole (its mask goes). False where the
    write cannot be told."""
    mask = _mask_view(torch, copy, t)
    if mask is None:
        return False
    full = 255 if mask.dtype == torch.uint8 else -1
    try:
        with torch._C.DisableTorchFunction(), torch.no_grad():
            if name == "__setitem__":
                mask[cpu_args[1]] = full
            elif name == "index_put_":
                indices = _argument(cpu_args, cpu_kwargs, 1, "indices")
                mask.index_put_(tuple(indices), torch.tensor(full, dtype=mask.dtype))
            elif name == "masked_fill_":
                mask.masked_fill_(_argument(cpu_args, cpu_kwargs, 1, "mask"), full)
            elif name in ("scatter_", "index_copy_", "index_fill_"):
                dim, index = (
                    _argument(cpu_args, cpu_kwargs, 1, "dim"),
                    _argument(cpu_args, cpu_kwargs, 2, "index"),
                )
                (mask.scatter_ if name == "scatter_" else mask.index_fill_)(dim, index, full)
            else:  # fill_, zero_, copy_: the whole of t
                mask.fill_(full)
            whole = torch.empty(0, dtype=torch.uint8, device="cpu").set_(copy.written)
            if bool((whole == 255).all()):
                STORE.used -= copy.written.nbytes()
                copy.written = None
    except Exception:  # noqa: BLE001 - a write kx cannot retrace: the storage goes unknown
        return False
    return True


def _still_its_view(t: Any, view: Any, copy: _Copy) -> bool:
    """Whether CPU `view` still is capture tensor `t` over `copy` after a write (an `out=`
    may resize, `set_` may move a tensor to other storage)."""
    return (
        view.untyped_storage().data_ptr() == copy.storage.data_ptr()
        and copy.storage.nbytes() == copy.nbytes
        and t.untyped_storage().nbytes() == copy.nbytes
        and tuple(view.shape) == tuple(t.shape)
        and view.stride() == t.stride()
        and view.storage_offset() == t.storage_offset()
    )
