"""Torch without a GPU and without data, for capture.

The user's file creates tensors on 'cuda' (or on `driver.active.get_active_torch_device()`),
slices and transposes them, and launches kernels. In the worker those tensors live on
torch's meta device: no storage, but exact shapes, strides, dtypes and storage offsets,
and views work on every torch build.

Why meta tensors and not `FakeTensorMode`: FakeTensorMode imports torch._dynamo, 1.7 s
of every capture on a 2-core machine (more than compiling a small kernel), and on a
CPU-only torch it cannot even slice a fake *cuda* tensor ("PyTorch is not linked with
support for cuda devices"). Meta tensors cost nothing.

- GPU devices ('cuda', 'cuda:0', torch.device('cuda'), `.cuda()`) become meta; tensors
  made with no device are meta too (known_values keeps them as the host's: their data is
  computed on the CPU as a real run's is, and `.cuda()` copies them); an explicit
  device='cpu' stays a real CPU tensor.
- The data the file makes itself (from Python data, ranges, the host, ops on those) is
  known within a budget (known_values): its reads are exact.
- To the file and the libraries it calls, a meta tensor says it is on the GPU
  (`x.device` is cuda:0, `x.is_cuda` is True); torch's own code still sees meta.
- `data_ptr()` of a meta tensor is an aligned base plus storage_offset * itemsize, so
  Triton's divisibility-by-16 specialisation sees what a real launch would: aligned for
  a fresh allocation, unaligned for a view that starts 4 bytes in.
- Where the file reads other data (what a kernel wrote: `.item()`, `allclose`,
  `assert_close`, `.cpu()`, timing), placeholders.py answers with a placeholder and
  records the read.
- torch.cuda answers as the capture device (fake_cuda.py).
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from kx_core.compile.artifacts import file_kinds
from kx_core.compile.capturing.device import (
    autocast_rules,
    cpu_shaped_ops,
    deferred_dynamo,
    device_checks,
    fake_cuda,
    known_values,
    legacy_cuda_types,
    placeholders,
    sdpa_choice,
    tensor_rules,
)
from kx_core.compile.capturing.device.placeholders import LEDGER
from kx_core.model.boards import DeviceReport

# The capture's torch function mode, once `install` entered it. The dispatcher calls an
# op's kernel inside the mode's handler, where the mode is off: what runs a library's GPU
# implementation there turns it on again (languages/torch_library.py), and what dynamo
# traces past it asks for it (languages/inductor_capture.py).
CAPTURE_MODE: Any = None

# A fake allocation base: 2 MiB aligned like the CUDA caching allocator's large blocks.
FAKE_BASE_ADDRESS = 0x7F00_0000_0000


# torch's code that computes meta tensors (see _MetaRules.sees_meta)
_META_CODE = (
    "_refs", "_prims", "_prims_common", "_meta_registrations.py", "_decomp", "_higher_order_ops",
    "_subclasses/meta_utils.py", "_library", "_ops.py", "_tensor.py", "_utils.py", "functional.py",
    "utils/_device.py", "testing",
)  # fmt: skip


def _is_gpu_device(device: Any) -> bool:
    text = str(device)
    return text.startswith("cuda") or text.startswith("hip")


def install(report: DeviceReport) -> list[Any]:
    """Make GPU and default tensors meta tensors that say they are on the GPU; answer
    torch.cuda as the capture device (fake_cuda) and data reads with placeholders
    (placeholders). Returns the entered modes (kept alive for the process)."""
    global CAPTURE_MODE
    import torch
    from torch.overrides import TorchFunctionMode

    deferred_dynamo.install()
    _nonzero_of_known_masks(torch)
    # this job's memory limit (a warm worker imported known_values before it was set)
    known_values.STORE.budget = known_values.budget_bytes()
    rules = _MetaRules(torch)
    is_compiling = torch.compiler.is_compiling
    active_mode = torch._C._get_dispatch_mode
    tracing_modes = (torch._C._TorchDispatchModeKey.FAKE, torch._C._TorchDispatchModeKey.PROXY)
    tensor_type = torch.Tensor.type

    class MetaDeviceMode(TorchFunctionMode):
        """Rewrites every GPU device argument to meta; answers data reads of meta
        tensors with placeholders; makes meta tensors say they live on the GPU."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            # (is_compiling first: dynamo, inlining this handler, folds it to True)
            if is_compiling() or any(active_mode(key) is not None for key in tracing_modes):
                # torch.compile traces this mode with the call: its fake tensors are the
                # GPU's already (inductor_capture), so the traced call is the call itself.
                # So is a call traced under a fake or proxy mode with dynamo done: AOT
                # autograd tracing an autograd.Function's backward (make_fx), torch.export;
                # its results are fakes, whose data known_values must not take (on torch
                # 2.11 reading a fake's storage raised, and the compile ran eagerly)
                if func is tensor_type and len(args) > 1:
                    # `x.type(torch.cuda.HalfTensor)`: the `to` it is (PyTorch's own, given
                    # a CUDA type's name, initialises CUDA in C++ first: "Found no NVIDIA
                    # driver"); AOT records the same aten::to either way
                    return legacy_cuda_types.as_to(torch, args[0], args[1])
                return func(*args, **(kwargs or {}))
            calls = known_values.CALLS
            calls[0] += 1
            try:
                return rules.call(func, args, dict(kwargs or {}))
            finally:
                calls[0] -= 1

    _never_a_dynamo_frame(torch, MetaDeviceMode.__torch_function__)
    _patch_data_ptr(torch)
    from kx_core.compile.capturing.import_hooks import after_import

    after_import("torch.nested._internal.nested_tensor", _nested_tensors_on_the_capture_device)
    _data_loader_paths(torch, rules.meta)
    fake_cuda.install(report)
    torch.testing.assert_close = _assert_close
    _seeding_is_said(torch)
    _lazy_distributed_submodules()
    torch.set_default_device(rules.meta)
    device_mode = MetaDeviceMode()
    device_mode.__enter__()
    CAPTURE_MODE = device_mode
    _mode_in_backward()
    return [device_mode]


def _seeding_is_said(torch: Any) -> None:
    """torch.manual_seed (and torch.seed) also tell known_values that the CPU generator's
    numbers are a real run's again, after a random op on host data kx could not draw."""
    import torch.random as random_module

    for name in ("manual_seed", "seed"):
        original = getattr(random_module, name)

        def seeding(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            result = _original(*args, **kwargs)
            known_values.seeded()
            return result

        seeding.__name__ = seeding.__qualname__ = name
        seeding.__doc__ = original.__doc__
        setattr(random_module, name, seeding)
        if getattr(torch, name, None) is original:
            setattr(torch, name, seeding)


def _never_a_dynamo_frame(torch: Any, handler: Any) -> None:
    """The capture mode's handler, where it runs eagerly inside a torch.compile'd call (a
    frame dynamo gave up on runs eagerly, and dynamo tries to compile every frame it calls),
    is not compiled by dynamo, nor is anything it calls: dynamo traces `is_compiling()`
    there as true, so its graph is the bare call, without the capture's rules (and, cached
    on guards that do not tell `Tensor.device.__get__` from `Tensor.size`, it answered
    `idx.size()` with the device). Dynamo still inlines the handler where it traces a
    file's frame: inlining does not ask a code object's strategy."""
    frames = getattr(getattr(torch._C, "_dynamo", None), "eval_frame", None)
    if frames is None or not hasattr(frames, "set_code_exec_strategy"):
        return
    skip = frames._FrameAction.SKIP
    frames.set_code_exec_strategy(handler.__code__, frames._FrameExecStrategy(skip, skip))


class _MetaRules:
    """What the capture's torch function mode does with each call (see the module doc)."""

    def __init__(self, torch: Any):
        self.torch = torch
        self.meta = torch.device("meta")
        self.gpu_device = torch.device("cuda", 0)
        # what a tensor a real run has on the host says its device is (see __get__): equal
        # to the GPU's, but another object, so that where the file passes it on
        # (`torch.zeros(..., device=w.device)`, `x.to(w.device)`) it names the host
        self.host_seen_as_gpu = torch.device("cuda", 0)
        self._constructors: Any = None  # torch.utils._device._device_constructors(), once
        torch_dir = os.path.dirname(os.path.realpath(torch.__file__))
        # torch's meta kernels, references and decompositions work on the meta device
        # (a reference that made its output on the device its input says it is on would
        # allocate on the GPU); the rest of torch (nn, optim, dynamo, inductor, functorch)
        # decides as it would for a GPU tensor, as the file does
        self.meta_code = tuple(os.path.join(torch_dir, d) for d in _META_CODE)
        self.layouts = tensor_rules.LayoutRules(torch)
        self.values = known_values.Values(torch)
        self.like_factories = {
            torch.empty_like,
            torch.zeros_like,
            torch.ones_like,
            torch.rand_like,
            torch.randn_like,
            torch.full_like,
        }

    def to_meta(self, value: Any) -> Any:
        # a bare int as a factory's device is an accelerator ordinal: `device=0` is cuda:0
        # (TileLang's helpers pass torch.cuda.current_device())
        ordinal = isinstance(value, int) and not isinstance(value, bool)
        return self.meta if ordinal or _is_gpu_device(value) else value

    def host_device_named(self, name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict, bool]:
        """`args` and `kwargs` with the device a host tensor said it is on named as a real run
        names it: the CPU for a move (`x.to(w.device)`), no device for a factory
        (`torch.zeros(n, device=w.device)`: what a factory given none makes is the host's, and
        the default device does not apply to a device named), and whether it was named.
        mixtral-offloading's 3-bit packing makes its output with `device=W_q.device` from a
        host weight and ORs the weight's rows into it: the output had been a GPU tensor, and
        the OR raised where a real run, all on the CPU, runs on (corpus 22)."""
        host = self.host_seen_as_gpu
        named = kwargs.get("device") is host or any(a is host for a in args)
        if not named:
            return args, kwargs, False
        if name == "to":
            cpu = self.torch.device("cpu")
            args = tuple(cpu if a is host else a for a in args)
            kwargs = {k: cpu if v is host else v for k, v in kwargs.items()}
        elif kwargs.get("device") is host:
            kwargs = {k: v for k, v in kwargs.items() if k != "device"}
        return args, kwargs, True

    def positional_devices(self, schema: Any, args: tuple) -> tuple:
        """An aten or prims op's positional Device arguments, a GPU's made the capture
        device's, as its schema types them. Inductor's generated code moves a graph's CPU
        result to the GPU with `torch.ops.prims.device_put.default(buf, device('cuda', 0))`
        (mistral-src's MoE: its rotary table, computed on the CPU); passed on, it reached
        CUDA's copy ("Found no NVIDIA driver")."""
        types = [str(p.type) for p in schema.arguments if not p.kwarg_only]
        return tuple(
            self.to_meta(a) if i < len(types) and types[i] in ("Device", "Device?") else a
            for i, a in enumerate(args)
        )

    def _device_of_tensor(self, t: Any) -> Any:
        """The device a real run has tensor `t` on: the GPU for a capture tensor, unless a
        real run has it on the host (known_values); the CPU for a real CPU tensor."""
        if not t.is_meta:
            return t.device
        return (
            self.gpu_device if device_checks.device_of(t) == device_checks.GPU else self.torch.device("cpu")
        )

    def legacy_type(self, first: Any, args: tuple, kwargs: dict) -> Any:
        """`Tensor.type()` as on a real run: a capture tensor says 'torch.cuda.FloatTensor'
        (its own name is the meta device's), and given a legacy type or its name
        (`x.type(torch.cuda.FloatTensor)`, `x.type('torch.cuda.HalfTensor')`) the tensor moves
        and casts as `to` would. None where PyTorch's own answer holds (a dtype, a host
        tensor's name)."""
        torch = self.torch
        wanted = args[0] if args else kwargs.get("dtype")
        if wanted is None:
            if not first.is_meta:
                return None
            on_gpu = self._device_of_tensor(first).type == "cuda"
            return legacy_cuda_types.type_name(torch, first.dtype, on_gpu)
        named = legacy_cuda_types.type_named(torch, wanted)
        if named is None:
            return None
        on_gpu, dtype = named
        if (self._device_of_tensor(first).type == "cuda") == on_gpu and first.dtype == dtype:
            return first  # already of that type: the tensor itself, as PyTorch returns it
        non_blocking = args[1] if len(args) > 1 else kwargs.get("non_blocking", False)
        device = self.gpu_device if on_gpu else torch.device("cpu")
        return self.call(torch.Tensor.to, (first, device, dtype), {"non_blocking": non_blocking})

    def sees_meta(self, frame: Any) -> bool:
        """Whether the code of `frame` sees a capture tensor's real device (meta): torch's
        meta kernels and kx's engine; the file, its libraries and the rest of torch see
        the GPU."""
        name = frame.f_code.co_filename
        return file_kinds.real_path(name).startswith(self.meta_code) or file_kinds.is_engine_file(name)

    def call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        torch = self.torch
        name = getattr(func, "__name__", "")
        first = args[0] if args else None
        if name in ("backward", "grad") and not _meta_config(torch).meta_nonzero_assume_all_nonzero:
            # The engine's C++ backward of a write or read through a boolean mask (index_put_,
            # index) turns the mask into its nonzero() indices, which have no meta kernel
            # (ColossalAI's MoE combine, `y[keep] = ...` then loss.backward()). Inside the
            # backward, PyTorch's own switch presumes every element selected: the
            # presumption the forward's read of that mask made and said at its line
            # (placeholders.data_shaped); nowhere else, since it would also answer the file's
            # own nonzero() calls, which kx computes from known data or says.
            with _meta_config(torch).patch(meta_nonzero_assume_all_nonzero=True):
                return self.call(func, args, kwargs)
        if name in _TENSOR_HOOKS and len(args) > 1 and callable(args[1]):
            args = (first, _python_in_backward(args[1]), *args[2:])
        if name == "__get__" and getattr(first, "is_meta", False):
            prop = getattr(getattr(func, "__self__", None), "__name__", "")
            # frame 0 is this method, 1 the mode's __torch_function__, 2 the reader
            if prop in ("device", "is_cuda") and not self.sees_meta(sys._getframe(2)):
                # (also a tensor a real run has on the CPU: saying so moved the file's other
                # tensors to the CPU with `x.to(host.device)`, where ops met capture tensors:
                # "Tensor on device cpu is not on the expected device meta!", hqq's solver;
                # its device is an object of its own, which names the host where it is passed)
                if prop == "is_cuda":
                    return True
                return self.host_seen_as_gpu if known_values.is_host(first) else self.gpu_device
            return func(*args, **kwargs)
        if (
            name == "__set__"
            and getattr(getattr(func, "__self__", None), "__name__", "") == "data"
            and isinstance(first, torch.Tensor)
            and not first.is_meta
            and getattr(args[1] if len(args) > 1 else None, "is_meta", False)
        ):
            return _data_moved_to_the_gpu(torch, first, args[1])
        if name == "get_device" and getattr(first, "is_meta", False):
            return 0
        if name == "__deepcopy__" and getattr(first, "is_meta", False):
            out = func(*args, **kwargs)
            if out is not first and getattr(out, "is_meta", False):
                known_values.deep_copied(torch, out, first)
            return out
        if name == "type" and isinstance(first, torch.Tensor):
            typed = self.legacy_type(first, args[1:], kwargs)
            if typed is not None:
                return typed
        if name in ("allclose", "equal"):
            known = self.computed_exactly(func, args, kwargs)
            return known[0] if known else LEDGER.use(f"torch.{name}", True)
        if (
            name.split(".")[0] == "to"
            and getattr(func, "_schema", None) is not None
            and set(kwargs) <= {"dtype", "device", "non_blocking", "copy", "memory_format"}
        ):
            # an overload of aten::to called as an op (`torch.ops.aten.to.device(x, dev,
            # dtype)`): Tensor.to's parser takes each overload's arguments in their order
            # (not dtype_layout's layout=), and its rules below (a host tensor copied to
            # the GPU) are the op's
            func, name = torch.Tensor.to, "to"
        if name in ("to", "type_as") and len(args) > 1 and isinstance(args[1], torch.Tensor):
            # `x.to(other)` and `x.type_as(other)` take other's device and dtype (ATen's
            # to.other is `to(other.device, other.dtype, non_blocking, copy)`; type_as is
            # `to(other.options())`): named as a device here, so a host tensor given a GPU
            # tensor's place is copied to the GPU, and a GPU tensor given a host tensor's is
            # read to the host (mistral-src's `torch.LongTensor([pos]).to(next_token)` had
            # stayed the host's, and the KV cache's scatter_ raised where the GPU runs on)
            func, name = torch.Tensor.to, "to"
            args = (first, self._device_of_tensor(args[1]), args[1].dtype, *args[2:])
        args, kwargs, host_named = self.host_device_named(name, args, kwargs)
        handled, value = _read_data(torch, name, args, kwargs)
        if handled:
            return value
        if name in ("__getitem__", "__setitem__") and len(args) > 1 and getattr(first, "is_meta", False):
            # what ATen's indexing reads on the host (slice bounds, a 0-dim integer index),
            # read here too (their known values, else placeholders); a slice stays a view
            args = (first, _host_read_indices(torch, args[1]), *args[2:])
        if name in ("__setitem__", "copy_") and isinstance(first, torch.Tensor) and not first.is_meta:
            # a capture tensor's data written into a real CPU tensor: a read of that data
            args = (first, *(self.host_copy(a) for a in args[1:]))
        if kwargs.get("device") is None and not host_named and func in self.constructors():
            # a factory given no device makes its tensor on the default device: the file's
            # own `torch.set_default_device("cuda")` (nano-vllm's model runner) names the
            # GPU as surely as device="cuda" does (torch's DeviceContext, which adds it,
            # sits below this mode and would make a real CUDA tensor)
            default = _default_device(torch)
            if _is_gpu_device(default):
                kwargs["device"] = default
        schema = getattr(func, "_schema", None)
        if schema is not None and any(isinstance(a, (str, torch.device)) for a in args):
            args = self.positional_devices(schema, args)
        # a device named (a GPU's, or an ordinal) makes a GPU tensor; with none, a factory
        # makes what a real run has on the CPU (known_values: its random numbers are the
        # CPU generator's)
        named_device = kwargs.get("device") is not None or any(
            isinstance(a, (str, torch.device)) and (_is_gpu_device(a) or str(a) == "meta") for a in args
        )
        if kwargs.get("pin_memory"):
            kwargs["pin_memory"] = False  # page-locked host memory needs the CUDA runtime
        if name == "pin_memory" and isinstance(first, torch.Tensor):
            return first
        if "device" in kwargs:
            kwargs["device"] = self.to_meta(kwargs["device"])
        if func in self.like_factories and isinstance(first, torch.Tensor):
            preserve = kwargs.get("memory_format") in (None, torch.preserve_format)
            if (
                first.is_meta
                and _is_meta_or_none(kwargs.get("device"))
                and kwargs.get("layout") is None
                and preserve
            ):
                before = self.values.before(name, args, kwargs, named_device)
                out = self.layouts.meta_like(first, kwargs, name)
                self.values.after(func, name, args, kwargs, out, before)
                fake_cuda.drew_random(name, args, kwargs, out)
                return placeholders.propagate(name, args, kwargs, out)
        if name in ("as_strided", "as_strided_") and getattr(first, "is_meta", False):
            tensor_rules.check_as_strided(first, args, kwargs)
        if (
            name in ("cuda", "to")
            and isinstance(first, torch.Tensor)
            and first.layout == torch.sparse_coo
            and not first.is_meta
            and (name == "cuda" or _is_gpu_device(_to_device(torch, args, kwargs)))
        ):
            return _sparse_on_the_gpu(torch, first, self.meta)
        if name == "cuda" and isinstance(first, torch.Tensor):
            if not first.is_meta:  # a real CPU tensor's data, now on the GPU
                out = first.to(self.meta)
                known_values.from_host(torch, out, first)
            elif known_values.is_host(first):  # a copy of what a real run has on the CPU
                out = first.to(self.meta, copy=True)
                known_values.moved(torch, out, first)
            else:
                out = first  # on the GPU already
            return out
        if name in ("to", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
            args = tuple(self.to_meta(a) if isinstance(a, (str, torch.device)) else a for a in args)
        if name == "to" and len(args) > 1 and isinstance(args[1], int) and not isinstance(args[1], bool):
            args = (args[0], self.meta, *args[2:])  # `x.to(0)`: an accelerator ordinal, cuda:0
            named_device = True
        if name == "to" and named_device and getattr(first, "is_meta", False) and known_values.is_host(first):
            kwargs["copy"] = True  # from the host to the GPU: a copy, as on a real run
        args, kwargs = _numbers_read(torch, name, args, kwargs)
        if autocast_rules.autocast_on() and not _in_place(name, kwargs):
            # (before the op's own checks: autocast's dispatch key sits above the op's
            # kernels, so a real `fp16 @ fp32` under autocast is checked as `fp16 @ fp16`)
            args, kwargs = self.autocast_casts(func, args, kwargs)
        if name in tensor_rules.STATISTICS_BY_COUNT:
            args = tensor_rules.statistics_shaped(name, args)
        if name in ("cat", "concat", "concatenate") and args:
            tensor_rules.check_cat(args[0])
        if name in tensor_rules.MATMULS:
            tensor_rules.check_same_dtype(name, args)
        if name.endswith("_") and not name.startswith("_") and getattr(first, "is_meta", False):
            # (a tensor copied onto itself is returned as it is: ATen's copy_ checks nothing)
            if (name == "copy_" and (args[1:2] or (None,))[0] is not first) or self.layouts.is_pointwise(
                name[:-1]
            ):
                tensor_rules.check_in_place(torch, first, args[1:], kwargs, cast=name != "copy_", name=name)
        # a GPU tensor met one a real run has on the CPU: the check the op's CUDA kernel makes
        composite = device_checks.check(torch, func, args, kwargs)
        before = self.values.before(name, args, kwargs, named_device)
        computed = False
        if name in ("backward", "grad"):  # what the engine computes: known_values follows it
            with known_values.engine_ops(self.values):
                return _run_op(func, args, kwargs, composite)
        # where autograd records the call, its own aten ops are followed too: what they make
        # and autograd saves is what the backward reads
        inner = (
            known_values.engine_ops(self.values, inside=True)
            if known_values.follows_inside(torch, name, args, kwargs)
            else None
        )
        handled = inner.wrote if inner is not None else frozenset()

        def run_op() -> Any:
            if inner is None:
                return _run_op(func, args, kwargs, composite)
            with inner:
                return _run_op(func, args, kwargs, composite)

        try:
            try:
                out = run_op()
            except NotImplementedError as e:
                # an op with a CPU kernel and no Meta kernel (CTC loss): one now, and again
                # (one that declines an op kx sizes by its data raises on to the rules below)
                if not cpu_shaped_ops.register_for(torch, e):
                    raise
                out = run_op()
        except (NotImplementedError, RuntimeError) as e:
            # an op whose output shape depends on the data (unique, nonzero, masked_select)
            # has no meta kernel: on known data it is computed on the CPU (any other error
            # is the op's own, as on a GPU)
            if not (isinstance(e, NotImplementedError) or "meta" in str(e).lower()):
                raise
            if (name == "__setitem__" or (name.endswith("_") and not name.startswith("_"))) and getattr(
                first, "is_meta", False
            ):
                # a write through a mask (`x[x > 3] = 0`, index_put_): the tensor keeps its
                # shape; its data is computed on the CPU where known (known_values), else unknown
                out = first
                self.values.after(func, name, args, kwargs, out, before, handled=handled)
                return out
            target = kwargs.get("out")
            if isinstance(e, NotImplementedError) and getattr(target, "is_meta", False):
                # an out= overload with no meta kernel whose functional overload has one
                # (aten::_scaled_mm.out, as Inductor's extern calls use it): ATen's out=
                # rule, the functional result's shape put into `out` (resized where it
                # differs; its strides kept where not)
                try:
                    functional = func(*args, **{k: v for k, v in kwargs.items() if k != "out"})
                except (NotImplementedError, RuntimeError):
                    raise e from None
                if tuple(target.shape) != tuple(functional.shape):
                    target.resize_(functional.shape)
                self.values.after(func, name, args, kwargs, target, before, handled=handled)
                return target
            writes = (
                tensor_rules.schema_writes(torch, name, args, kwargs)
                if isinstance(e, NotImplementedError)
                else None
            )
            if writes is not None:
                # an op that only writes its arguments' data, with no meta kernel (a fused
                # optimizer step): shapes stay; what it wrote is unknown to kx from here
                for t in writes[0]:
                    known_values.written(t)
                return writes[1]
            out = self.values.data_dependent(func, name, args, kwargs)
            computed = out is not None
            if out is None and _HOST_MIX.search(str(e)):
                # host tensors of two kinds met, data unknown: ones made before the file's
                # first torch.compile are capture tensors (meta, known_values follows their
                # data), ones made after it are the CPU's own (dynamo needs the real default
                # device); a real run has both on the CPU, so the op runs on one kind
                host_args = self.as_host_captures(name, args, kwargs)
                if host_args is None:
                    raise e from None
                return self.call(func, *host_args)
            if out is None:  # unknown data: a presumed size, said as a placeholder
                out = placeholders.data_shaped(name, args, kwargs, known_values.mask_indices)
                if out is not None and name in placeholders.FROM_DATA and kwargs.get("device") is None:
                    known_values.made_on_host(out)  # (torch.tensor(items) with no device: the CPU's)
                presumed = placeholders.presumed_counts(name, args, kwargs, out)
                if presumed is not None:  # guessed, not exact: each read of it is said
                    known_values.adopt(torch, out, presumed, exact=False)
            if out is None:
                raise e from None
        if not named_device and _sparse_meta(torch, out):
            # a sparse tensor made from what the host holds (pygcn's adjacency: indices and
            # ones made with no device, `torch.sparse_coo_tensor(...).coalesce()`) is a real
            # run's CPU tensor: made on the CPU from the data kx knows, its later ops (coalesce,
            # torch.sparse.sum, indices()) are the CPU's own, and `.to("cuda")` moves its
            # entries (_sparse_on_the_gpu); a sparse meta tensor has no data to coalesce
            host = self.values.sparse_on_host(func, args, kwargs)
            if host is not None:
                return host
        if name == "scaled_dot_product_attention":
            out = sdpa_choice.gpu_layout(torch, out, args, kwargs)
        if getattr(out, "is_meta", False) and name.split(".")[0] in tensor_rules.CONVOLUTIONS:
            out = self.layouts.convolution_layout(out, args)
        elif isinstance(out, tuple) and name.split(".")[0] in tensor_rules.CONVOLUTION_BACKWARDS:
            out = self.layouts.convolution_backward_layout(out, args)
        elif name in tensor_rules.PRESERVING or name in tensor_rules.CONTIGUOUS_OUTPUT:
            out = self.layouts.op_layout(name, out, first)
        elif (
            getattr(out, "is_meta", False)
            and self.layouts.is_pointwise(name)
            and "out" not in kwargs
            and "memory_format" not in kwargs
        ):
            out = self.layouts.iterator_layout(out, args, kwargs, name)
        # the data of the result as it is laid out (after the layouts above), and of what
        # the op wrote: computed on the CPU where its inputs' data is known (known_values)
        self.values.after(func, name, args, kwargs, out, before, computed, handled)
        if name in placeholders.INDEX_OPS:  # indices of data kx lacks: distinct, as PyTorch's are
            for indices, presumed in placeholders.presumed_indices(torch, name, args, kwargs, out):
                if getattr(indices, "is_meta", False) and known_values.copy_of(indices) is None:
                    known_values.adopt(torch, indices, presumed, exact=False)
        fake_cuda.drew_random(name, args, kwargs, out)  # (after: it asks whether out is the host's)
        return placeholders.propagate(name, args, kwargs, out)

    def autocast_casts(self, func: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments as torch.autocast("cuda") hands them to the op: its floating
        capture tensors cast to the dtype PyTorch's own autocast gives the op on GPU fakes,
        where that differs from theirs (a cast autograd records, as autocast's own is)."""
        torch = self.torch
        floats = [
            a
            for a in (*args, *kwargs.values())
            if isinstance(a, torch.Tensor) and a.is_meta and a.dtype.is_floating_point
        ]
        if not floats:
            return args, kwargs
        dtype = autocast_rules.cast_dtype(func, args, kwargs)
        if dtype is None or all(a.dtype == dtype for a in floats):
            return args, kwargs

        def cast(a: Any) -> Any:
            if isinstance(a, torch.Tensor) and a.is_meta and a.dtype.is_floating_point and a.dtype != dtype:
                return a.to(dtype)
            return a

        return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}

    def constructors(self) -> Any:
        """The factories the default device applies to (torch's own list)."""
        if self._constructors is None:
            from torch.utils._device import _device_constructors

            self._constructors = _device_constructors()
        return self._constructors

    def as_host_captures(self, name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
        """(args, kwargs) with a real CPU tensor and host capture tensors brought to one
        kind: where the op writes a real CPU tensor (`buf[i] += host_capture`), the capture
        tensors are read into it (host_copy); else each real CPU tensor becomes a host
        capture tensor holding its data. None where a GPU capture tensor is among them (the
        op's own device error stands)."""
        torch = self.torch
        with torch._C.DisableTorchFunction():
            tensors = known_values.call_tensors(torch, args, kwargs)
            if any(t.is_meta and not known_values.is_host(t) for t in tensors):
                return None
        first = args[0] if args else None
        target = kwargs.get("out", first if _in_place(name, kwargs) else None)
        if isinstance(target, torch.Tensor) and not target.is_meta:
            return _map_tensors(args, self.host_copy), {
                k: _map_tensors(v, self.host_copy) for k, v in kwargs.items()
            }

        def capture(a: Any) -> Any:
            if a.is_meta or a.device.type != "cpu" or a.layout != torch.strided:
                return a
            out = a.to(self.meta)
            known_values.from_host(torch, out, a)
            known_values.made_on_host(out)
            return out

        return _map_tensors(args, capture), {k: _map_tensors(v, capture) for k, v in kwargs.items()}

    def host_copy(self, a: Any) -> Any:
        """A real CPU tensor standing for capture tensor `a` (its known data, else a
        placeholder); anything else as it is."""
        if not getattr(a, "is_meta", False):
            return a
        known = known_values.value_of(a)
        if known is not None:
            return _read_known(self.torch, "cpu", (a,), {}, *known)
        return placeholders.cpu_copy(a)

    def computed_exactly(self, func: Any, args: tuple, kwargs: dict) -> tuple[Any] | None:
        """(func's real result,) when every capture tensor among the arguments has exact
        known data (known_values), else None."""
        known = self.values.cpu_arguments(args, kwargs)
        if known is None or not known[2]:
            return None
        with self.torch._C.DisableTorchFunction():
            return (func(*known[0], **known[1]),)


def _default_device(torch: Any) -> Any:
    """The device `torch.set_default_device` set, as torch.get_default_device finds it, but
    without its index lookup (it makes a tensor there: a real CUDA one for "cuda")."""
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._device import DeviceContext

    for mode in reversed(_get_current_function_mode_stack()):
        if isinstance(mode, DeviceContext):
            return mode.device
    context = getattr(getattr(torch, "_GLOBAL_DEVICE_CONTEXT", None), "device_context", None)
    return context.device if context is not None else None


def _one_element_capture(a: Any) -> bool:
    return getattr(a, "is_meta", False) and a.numel() == 1


def _numbers_read(torch: Any, name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments with each one-element capture tensor that the op's schema takes as
    a number (tensor_rules.number_places) read as that number: what PyTorch's argument
    parser does with `torch.histc(x, bins=t)`, where kx answers the read (known data, or
    a placeholder said at the line) instead of C++ failing on a meta tensor."""
    # (the op's places first, cached by name: most ops have none, and their arguments
    # are never looked at)
    positions, names = tensor_rules.number_places(torch, name)
    size_at, size_names = tensor_rules.size_places(torch, name)
    if size_at or size_names:
        args, kwargs = _sizes_read(torch, args, kwargs, size_at, size_names)
    if not (positions or names) or not any(
        _one_element_capture(a)
        for a in (*(args[i] for i in positions if i < len(args)), *(kwargs[k] for k in names if k in kwargs))
    ):
        return args, kwargs
    args = tuple(_read_number(torch, a) if i in positions else a for i, a in enumerate(args))
    return args, {k: _read_number(torch, v) if k in names else v for k, v in kwargs.items()}


def _read_number(torch: Any, a: Any) -> Any:
    """A one-element capture tensor given where a number is taken, read as the file's own
    `int(t)` (or `float(t)`) would read it; anything else as it is."""
    if not _one_element_capture(a):
        return a
    reader = "__float__" if a.dtype.is_floating_point else "__index__"
    return _read_data(torch, reader, (a.reshape(()),), {})[1]


def _sizes_read(torch: Any, args: tuple, kwargs: dict, at: frozenset[int], names: frozenset[str]) -> tuple:
    """The arguments with each one-element capture tensor among a size's elements read as
    a number (tensor_rules.size_places): in a list or tuple there, or, where the size is
    given as varargs (`torch.empty(2, n)`, `x.view(n, -1)`), in the arguments from there on."""

    def listed(a: Any) -> bool:  # a size given as a list or tuple (a torch.Size holds ints)
        return isinstance(a, (list, tuple)) and not isinstance(a, torch.Size)

    def elements(a: Any) -> Any:
        return type(a)(_read_number(torch, x) for x in a) if listed(a) else a

    def found(values: Any) -> bool:
        return any(_one_element_capture(x) for v in values for x in (v if listed(v) else (v,)))

    first = min(at) if at else None
    varargs = first is not None and first < len(args) and not isinstance(args[first], (list, tuple))
    # (most calls have no capture tensor among their sizes: the arguments are left as they are)
    places = args[first:] if varargs else tuple(a for i, a in enumerate(args) if i in at)
    if not found(places) and not found(v for k, v in kwargs.items() if k in names):
        return args, kwargs
    if varargs:
        args = (*args[:first], *(_read_number(torch, a) for a in args[first:]))
    else:
        args = tuple(elements(a) if i in at else a for i, a in enumerate(args))
    return args, {k: elements(v) if k in names else v for k, v in kwargs.items()}


# the torch.library registrations kx makes (kept alive: a Library drops its kernels when
# collected)
_LIBRARIES: list[Any] = []


def _nonzero_of_known_masks(torch: Any) -> None:
    """aten::nonzero's meta kernel, where the mask's data is known (known_values): its real
    count. The C++ backward of a write or read through a boolean mask (`state[mask] = new`,
    `x[mask]`) turns the mask into its nonzero() indices outside kx's torch function mode;
    with PyTorch's own meta kernel the count was every element, where the forward's was
    the mask's (cute-kernels' GRU: "IndexPutBackward0 returned an invalid gradient ...
    got [12, 16, 64] but expected [2, 16, 64]"). A mask kx does not know keeps PyTorch's
    rule: every element where `meta_nonzero_assume_all_nonzero` is on (the backward
    below), else NotImplementedError."""
    config = _meta_config(torch)
    message = (
        "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
        "correct data-independent implementation does not exist"
    )

    def nonzero(self: Any) -> Any:
        with torch._C.DisableTorchFunction():
            known = known_values.value_of(self)
            if known is not None:
                count = int(torch.count_nonzero(known[0]))
                if not known[1]:  # a sample's or a guess's count (topk ids presumed): said
                    count = LEDGER.use("torch.nonzero of sampled or guessed data (its count from it)", count)
            elif config.meta_nonzero_assume_all_nonzero:
                count = self.numel()
            else:
                raise NotImplementedError(message)
            return torch.empty_strided((count, self.dim()), (1, count), dtype=torch.long, device="meta")

    library = torch.library.Library("aten", "IMPL")
    # PyTorch's own meta kernel for nonzero is a Python registration too: torch 2.14 lets a
    # later one replace it by default, torch 2.11 (the GPU machine's) only when asked
    library.impl("nonzero", nonzero, "Meta", allow_override=True)
    _LIBRARIES.append(library)


def _meta_config(torch: Any) -> Any:
    """torch.fx.experimental._config: the meta kernels' switches."""
    return torch.fx.experimental._config


def _host_read_indices(torch: Any, index: Any) -> Any:
    """`index` with what PyTorch's Python indexing reads on the host read as integers
    (their known values, else placeholders said at the line): a slice's bounds given as
    tensors (`seq[cu[3]:cu[4]]`), and a 0-dim integer tensor, which indexing takes as the
    integer it holds (python_variable_indexing.cpp reads it with `item()`: a paged cache's
    `k_cache[tables[0, 0].long()]`). On a capture tensor ATen's own read of it stopped
    the file ("Tensor.item() cannot be called on meta tensors")."""

    def read(b: Any) -> Any:
        if isinstance(b, torch.Tensor) and b.is_meta and b.numel() == 1:
            return _read_data(torch, "__index__", (b,), {})[1]
        return b

    if isinstance(index, torch.Tensor):
        scalar = index.is_meta and index.dim() == 0
        integer = not (index.dtype.is_floating_point or index.dtype.is_complex or index.dtype == torch.bool)
        return read(index) if scalar and integer else index
    if isinstance(index, slice):
        if any(isinstance(b, torch.Tensor) for b in (index.start, index.stop, index.step)):
            return slice(read(index.start), read(index.stop), read(index.step))
        return index
    if isinstance(index, tuple):
        return tuple(_host_read_indices(torch, i) for i in index)
    return index


def _data_moved_to_the_gpu(torch: Any, tensor: Any, value: Any) -> None:
    """`param.data = gpu_tensor` on a CPU tensor, as `Params4bit.to("cuda")` quantises into
    its own `.data`: on a GPU the tensor now holds the GPU data, same object, same
    attributes. A CPU tensor cannot take a meta tensor's data (set_data refuses the
    type), so the object's contents are swapped for a tensor of its class on that data."""
    moved = torch.Tensor._make_subclass(type(tensor), value.detach(), tensor.requires_grad)
    moved.__dict__.update(tensor.__dict__)
    torch.utils.swap_tensors(tensor, moved)


def _in_place(name: str, kwargs: dict) -> bool:
    """An op that writes its first argument or `out=` (autocast leaves those alone)."""
    return (name.endswith("_") and not name.endswith("__")) or name.startswith("__i") or "out" in kwargs


def _run_op(func: Any, args: tuple, kwargs: dict, composite: bool) -> Any:
    if composite:  # (and each op it calls with a CUDA kernel: checked the same way)
        with device_checks.composite_checks():
            return func(*args, **kwargs)
    return func(*args, **kwargs)


def _read_data(torch: Any, name: str, args: tuple, kwargs: dict) -> tuple[bool, Any]:
    """(handled, value) for an op that reads a meta tensor's data."""
    x = args[0] if args else None
    if not getattr(x, "is_meta", False):
        return False, None
    # `.to(<a GPU, or no device>)` is no read: a copy on the GPU, which the capture's own
    # rules make (a capture tensor carrying the known data along)
    copy_on_the_gpu = name == "to" and not str(_to_device(torch, args, kwargs)).startswith("cpu")
    known = known_values.value_of(x) if name in _READS and not copy_on_the_gpu else None
    if known is not None:
        return True, _read_known(torch, name, args, kwargs, *known)
    if name == "item":
        value = placeholders.element_value(x)
        if isinstance(value, float):  # a loss, a max error: steers only where decided on
            return True, LEDGER.guessed_float(".item()", value)
        if isinstance(value, bool):  # `assert (out == ref).all().item()`: a check
            return True, LEDGER.truth(".item()", None, LEDGER.use(".item()", value))
        return True, LEDGER.use(".item()", value)
    if name == "__float__":
        return True, LEDGER.guessed_float("float(tensor)", float(placeholders.element_value(x)))
    if name == "__bool__":  # `assert t`, `if t:`
        value = LEDGER.use("bool(tensor)", bool(placeholders.element_value(x)))
        return True, LEDGER.truth("bool(tensor)", None, value)
    if name in ("__int__", "__index__", "__complex__"):
        value = placeholders.element_value(x)
        cast = {"__int__": int, "__index__": int}.get(name, complex)
        return True, LEDGER.use(f"{cast.__name__}(tensor)", cast(value))
    if name == "__format__":  # f"{t:.3f}" of a 0-d tensor formats its value
        spec = args[1] if len(args) > 1 else ""
        return True, format(LEDGER.use("format(tensor)", placeholders.element_value(x), steers=False), spec)
    if name == "tolist":
        return True, placeholders.tolist(x)
    if name == "numpy":
        return True, placeholders.cpu_copy(x).numpy()
    if name == "cpu":
        return True, placeholders.cpu_copy(x)
    if name == "to":
        target = _to_device(torch, args, kwargs)
        if target is not None and str(target).startswith("cpu"):
            out = placeholders.cpu_copy(x)
            dtype = kwargs.get("dtype", next((a for a in args[1:] if isinstance(a, torch.dtype)), None))
            return True, out.to(dtype) if dtype is not None else out
    return False, None


_READS = frozenset(
    {
        "item",
        "__bool__",
        "__int__",
        "__float__",
        "__index__",
        "__complex__",
        "__format__",
        "tolist",
        "numpy",
        "cpu",
        "to",
    }
)


# Example: "Tensor on device cpu is not on the expected device meta!" (TensorIterator), or
# "Expected all tensors to be on the same device, but found at least two devices, meta and cpu!"
_HOST_MIX = re.compile(
    r"device cpu is not on the expected device meta|two devices, (?:cpu and meta|meta and cpu)"
)


def _map_tensors(a: Any, fn: Callable[[Any], Any]) -> Any:
    """`a` with each tensor replaced by fn(tensor), inside lists, tuples and dicts (fx's own
    walk of a node's arguments)."""
    import torch

    return torch.fx.node.map_aggregate(a, lambda x: fn(x) if isinstance(x, torch.Tensor) else x)


def _sparse_meta(torch: Any, out: Any) -> bool:
    return isinstance(out, torch.Tensor) and out.is_meta and out.layout != torch.strided


def _sparse_on_the_gpu(torch: Any, host: Any, meta: Any) -> Any:
    """A real sparse CPU tensor's copy on the GPU (whisper's `alignment_heads`, moved by
    `model.to("cuda")`): its indices and values on the GPU, their data the host's (a meta
    copy of the sparse tensor itself would have no entries: `.indices()` empty)."""
    coalesced = host.coalesce()
    indices, values = coalesced.indices().to(meta), coalesced.values().to(meta)
    known_values.from_host(torch, indices, coalesced.indices())
    known_values.from_host(torch, values, coalesced.values())
    with torch._C.DisableTorchFunction():
        return torch.sparse_coo_tensor(
            indices, values, tuple(host.shape), is_coalesced=True, check_invariants=False
        )


def _to_device(torch: Any, args: tuple, kwargs: dict) -> Any:
    """The device a `.to(...)` call names, or None. Example: x.to("cpu", torch.float32)."""
    return kwargs.get("device", next((a for a in args[1:] if isinstance(a, (str, torch.device))), None))


def _read_known(torch: Any, name: str, args: tuple, kwargs: dict, value: Any, exact: bool) -> Any:
    """A read of a capture tensor whose data kx knows: the real answer (a sampled value
    of random data is still a placeholder, with that value)."""
    # (value is a view of the storage's copy: what the file gets is its own copy of it)
    if name == "to":  # to the CPU (a copy on the GPU is no read: _read_data)
        dtype = kwargs.get("dtype", next((a for a in args[1:] if isinstance(a, torch.dtype)), None))
        result = value.clone() if dtype is None else value.to(dtype, copy=True)
    elif name == "cpu":
        result = value.clone()
    elif name == "numpy":
        result = value.clone().numpy()
    elif name == "tolist":
        result = value.tolist()
    elif name == "__format__":
        result = format(value.item() if value.numel() == 1 else value, args[1] if len(args) > 1 else "")
    elif name == "item":
        result = value.item()
    else:
        result = getattr(value, name)()
    if not exact:
        what = (
            f".{name}() of sampled or guessed data"
            if name.isalpha()
            else f"{name}(tensor) of sampled or guessed data"
        )
        if type(result) is float:
            return LEDGER.guessed_float(what, result)
        short_list = (
            isinstance(result, list)
            and len(result) <= 16
            and all(isinstance(v, (bool, int, float)) for v in result)
        )
        shown = (
            result
            if isinstance(result, (bool, int, float, str)) or short_list
            else f"kx's own sample ({type(result).__name__})"
        )
        LEDGER.use(what, shown)
        if type(result) is bool:  # a decision on the guess: an assert's or the file's own
            return LEDGER.truth(what, None, result)
    return result


def with_capture_mode(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """`fn(*args, **kwargs)` with the capture's torch function mode on, where it is off: the
    dispatcher calls an op's kernel inside the mode's handler, and Python that kernel runs
    (a library's GPU implementation, a NestedTensor's ops) must run on the capture device."""
    import torch

    if CAPTURE_MODE is not None and torch._C._len_torch_function_stack() == 0:
        with CAPTURE_MODE:
            return fn(*args, **kwargs)
    return fn(*args, **kwargs)


def _nested_tensors_on_the_capture_device(module: Any) -> None:
    """A jagged NestedTensor's ops are Python (torch/nested/_internal/ops.py), run from its
    __torch_dispatch__ inside the capture mode's handler, where the mode is off: its
    offsets, lengths and the reads it makes of them (`unbind` splits the values by
    `offsets.diff().tolist()`) were plain meta tensors there, without the known values a
    real run's offsets have ("Cannot copy out of meta tensor; no data!", corpus 11's
    tritonbench jagged softmax). Run with the mode on, as a library's GPU implementation is
    (languages/torch_library.py): what they compute and read is the capture device's."""

    nested = getattr(module, "NestedTensor", None)
    dispatch = getattr(nested, "__torch_dispatch__", None)
    if dispatch is None or getattr(dispatch, "kx_capture_mode", False):
        return
    original = dispatch.__func__

    def __torch_dispatch__(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return with_capture_mode(original, (cls, func, types, args, kwargs), {})

    __torch_dispatch__.kx_capture_mode = True
    nested.__torch_dispatch__ = classmethod(__torch_dispatch__)


def _patch_data_ptr(torch: Any) -> None:
    """A meta tensor's data_ptr(): the fake base plus its offset (see the module doc). Not a
    frame dynamo compiles: called from a compiled region (an LSTM's flatten_parameters()
    inside a compiled forward, Tacotron 2's encoder in corpus 18), dynamo compiled it, and
    the call it resumed with ran into itself until Python's recursion limit."""
    real_data_ptr = torch.Tensor.data_ptr

    def data_ptr(self: Any) -> int:
        if self.is_meta:
            return FAKE_BASE_ADDRESS + self.storage_offset() * self.element_size()
        return real_data_ptr(self)

    torch.Tensor.data_ptr = data_ptr  # type: ignore[method-assign]
    _never_a_dynamo_frame(torch, data_ptr)


def _data_loader_paths(torch: Any, meta: Any) -> None:
    """What a DataLoader does to capture tensors outside this mode, which is per thread and
    which its worker processes' shared memory never sees: its pin-memory thread calls
    `pin_memory()` (page-locked host memory needs the CUDA runtime: a capture tensor stays
    what it is, as under the mode; a real CPU tensor is copied, as pinning copies), and a
    worker collates a batch into a new shared storage
    on the sample's device (`UntypedStorage._new_shared(n, device=elem.device)`), which for
    a capture tensor is the GPU it says it is on: a meta storage, as the mode makes for a
    GPU device (its contents are the samples', presumed: the batch comes back a capture
    tensor without known values)."""
    real_pin = torch.Tensor.pin_memory

    def pin_memory(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.is_meta:
            return self
        # a real CPU tensor (a batch from a worker process): pinning copies it, data unchanged
        return self.clone() if self.device.type == "cpu" else real_pin(self, *args, **kwargs)

    torch.Tensor.pin_memory = pin_memory  # type: ignore[method-assign]
    _never_a_dynamo_frame(torch, pin_memory)
    real_new_shared = torch.UntypedStorage._new_shared.__func__

    def _new_shared(cls: Any, size: int, *, device: Any = "cpu") -> Any:
        if _is_gpu_device(device) or str(device) == "meta":
            return cls(size, device=meta)
        return real_new_shared(cls, size, device=device)

    torch.UntypedStorage._new_shared = classmethod(_new_shared)


def _assert_close(*args: Any, **kwargs: Any) -> None:
    LEDGER.use("torch.testing.assert_close", "passed", steers=False)


def _mode_in_backward() -> None:
    """Keep the mode on inside custom autograd backward functions. `loss.backward()` goes
    through the mode's handler, and a mode is off while its handler runs, so without this
    a Function's backward would allocate on the real GPU and read meta data unguarded.
    The engine enters a Function's backward by `apply`, or by `apply_boxed` where the
    Function takes its gradients boxed (`boxed_grads_call`: torch.compile's compiled
    backward in newer torch): both keep the mode."""
    from torch.autograd import function as autograd_function

    backward = autograd_function.BackwardCFunction
    for name in ("apply", "apply_boxed"):
        if name in vars(backward):
            setattr(backward, name, _python_in_backward(vars(backward)[name]))


def _python_in_backward(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, Python the autograd engine calls during `loss.backward()` (a custom Function's
    backward, a tensor's hook), run with the capture mode on (the engine calls it inside the
    mode's handler, where the mode is off) and known_values' engine mode paused (the
    function mode follows its calls; dynamo compiles no frame under a dispatch mode)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with known_values.engine_paused():
            return with_capture_mode(fn, args, kwargs)

    return run


# A tensor's hooks, which the autograd engine calls during backward (Python it runs outside
# any custom Function: run as a Function's backward is, _python_in_backward)
_TENSOR_HOOKS = frozenset({"register_hook", "register_post_accumulate_grad_hook"})


def _lazy_distributed_submodules() -> None:
    """`torch.distributed.tensor` as an attribute without an import: on a real run
    torch._dynamo's import has loaded it by the time a library checks
    `isinstance(x, torch.distributed.tensor.DTensor)` (Liger does); with dynamo deferred,
    the attribute is imported on first use instead."""
    try:
        import torch.distributed as dist
    except ImportError:
        return
    previous = getattr(dist, "__getattr__", None)

    def lazy(name: str) -> Any:
        if name in ("tensor", "fsdp", "device_mesh"):
            import importlib

            return importlib.import_module(f"torch.distributed.{name}")
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module 'torch.distributed' has no attribute {name!r}")

    dist.__getattr__ = lazy


def _is_meta_or_none(device: Any) -> bool:
    return device is None or str(device) == "meta"


def fake_do_bench(
    fn: Any = None, *args: Any, quantiles: Any = None, return_mode: str = "mean", **kwargs: Any
) -> Any:
    """triton.testing.do_bench without a GPU: the benchmarked function is called once, as
    a real run's first call would (so the kernels a benchmark launches are compiled and
    recorded, as a real run compiles them), and the time is a placeholder in the shape
    do_bench returns it."""
    if callable(fn):
        fn()
    ms = LEDGER.timing("triton.testing.do_bench")
    if quantiles is not None:
        out = [ms] * len(quantiles)
        return out[0] if len(out) == 1 else out
    return [ms] if return_mode == "all" else ms


def _run_benchmark(
    self: Any,
    bench: Any,
    save_path: str = "",
    show_plots: bool = False,
    print_data: bool = False,
    **kwargs: Any,
) -> None:
    """triton.testing.Mark._run without plots, tables or files: every call the benchmark
    makes (each x value, each line) is made, so its kernels are compiled; nothing is
    written to the user's folder and neither pandas nor matplotlib is needed."""
    names = list(bench.x_names)
    for x in bench.x_vals:
        values = x if isinstance(x, (list, tuple)) else [x] * len(names)
        for y in bench.line_vals:
            self.fn(**dict(zip(names, values)), **{bench.line_arg: y}, **bench.args, **kwargs)
    print(
        f"{bench.plot_name}: {len(bench.x_vals)} x {len(bench.line_vals)} calls made (kx capture: no timings)"
    )


def patch_triton_testing() -> None:
    """Triton's timing and checking helpers as placeholders (see placeholders), and its
    benchmark runner as plain calls."""
    import triton.testing as tt

    if hasattr(tt, "Mark"):
        tt.Mark._run = _run_benchmark
    tt.do_bench = fake_do_bench
    if hasattr(tt, "do_bench_cudagraph"):
        tt.do_bench_cudagraph = fake_do_bench
    if hasattr(tt, "assert_close"):
        tt.assert_close = lambda *a, **k: LEDGER.use("triton.testing.assert_close", "passed", steers=False)
