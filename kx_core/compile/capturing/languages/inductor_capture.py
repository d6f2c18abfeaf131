"""PyTorch Inductor's runtime under capture: its kernels compile and launch as on a GPU.

Inductor does not launch through `JITFunction.run`. The module it generates (what
`torch.compile` loads, and what `TORCH_LOGS=output_code` prints as `output_code.py`)
compiles each kernel with its `CachingAutotuner`, which calls `triton.compile` once per
config, benchmarks the configs on the first call and launches the fastest through the
compiled kernel's own launcher. Under capture:

- every compile is recorded (capture.py's `triton.compile` hook) with the config it is
  of: `compiling()` says which autotuner and config is being compiled;
- the benchmark times nothing, so every config ties and Inductor keeps its first, as
  Triton's autotuner does under capture; the launched config's record says so;
- the generated module's allocations (`empty_strided_cuda`, `reinterpret_tensor`,
  `copy_if_misaligned`, C++ functions of torch._C._dynamo.guards that would touch a
  GPU) are done in Python, so they make capture tensors;
- Triton's driver stays the capture driver (Inductor's kernel modules switch the active
  driver to the GPU's when they load), Inductor's static CUDA launcher is off (it loads
  cubins through the CUDA driver), CUDA graphs are not recorded (a graph compiled for
  them, `mode="reduce-overhead"`, is generated as on the GPU, graph partitions and all,
  and runs as the cudagraph wrapper's warm-up runs it: each call launches its kernels,
  so it compiles what a real run compiles before it records), and Inductor compiles in this
  process (TORCHINDUCTOR_COMPILE_THREADS=1, set by the runner: a compile worker pool
  would compile the kernels where capture does not see them);
- its per-kernel autotune cache is neither read nor written.
Nothing kx changes is a setting Inductor writes into the kernels it generates
(`inductor_meta`): their text, and so their module's name and the PTX's debug paths,
are the real run's.

A kernel language of its own to kx (records/languages.py: "inductor"), whose capture
applies to every file: torch.compile may be called anywhere, or by a library the file
imports. The worker calls `install` before the file is imported or run
(capturing/languages/__init__.py). A graph's backward is lowered when AOTAutograd lowers it
on a GPU: lazily, at its first backward (so never where no backward runs, and with the
donated buffers that backward allows), or with the forward where the forward saves sizes
for it; Inductor compiles without the capture's torch function mode either way.

Runs only inside the capture worker; the patches wait until Inductor's modules are
imported (kx_core.compile.capturing.import_hooks), so a file without Inductor pays nothing.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kx_core.compile.artifacts import file_kinds
from kx_core.compile.capturing import capture_state
from kx_core.compile.capturing.device import cuda_hooks, gpu_fakes
from kx_core.compile.capturing.import_hooks import after_import
from kx_core.compile.capturing.languages import (
    autotune_choice,
    inductor_origins,
    pad_mm_choice,
)
from kx_core.compile.wire import protocol
from kx_core.records.results import Diagnostic, Target


@dataclass(frozen=True)
class InductorCompile:
    """The autotuner config a `triton.compile` call inside Inductor is compiling."""

    autotuner: Any  # Inductor's CachingAutotuner
    config: Any  # the triton.Config
    index: int  # its position in the autotuner's configs


class _Current(threading.local):
    compile: InductorCompile | None = None


_CURRENT = _Current()


def compiling() -> InductorCompile | None:
    """The Inductor config being compiled on this thread, if any."""
    return _CURRENT.compile


# What a placeholder names where Inductor's coordinate descent tuning searches configs by
# their times (capture.py words the diagnostic: "<what> decides ...; kx took <choice>").
COORDINATE_DESCENT = "Inductor's coordinate descent tuning (config.coordinate_descent_tuning)"
COORDINATE_DESCENT_CHOICE = (
    "its first round: every neighbour of the autotuner's config compiled once, and on equal "
    "times none is faster, so the search stops there (a real run's may go on to other configs)"
)


# (id of Inductor's autotuner, id of the config) -> (the key of its compile's record, the
# config: kept alive, so its id is not reused), for the launched-config note (Inductor
# drops its config list once it has chosen)
_RECORD_KEYS: dict[tuple[int, int], tuple[str, Any]] = {}

CHOICE = (
    "Inductor launched this config: in a capture every config ties (on a GPU Inductor's "
    "autotuner times them and keeps the fastest)"
)


def recorded(current: InductorCompile, key: str) -> None:
    """The record of this config's compile is under `key` (direct_compiles records
    Inductor's triton.compile calls): the note on the config Inductor launches names it."""
    _RECORD_KEYS[(id(current.autotuner), id(current.config))] = (key, current.config)


def install(target: Target, path: str) -> None:
    """Before the file is imported or run (the language protocol's `install`): Inductor's
    runtime patched as its modules load, torch.compile as on a GPU, and each kernel's
    lines of the file kept (inductor_origins)."""
    _patch_runtime(_send_chosen)
    install_torch_compile(_not_captured)
    inductor_origins.install(path)


def _send_chosen(autotuner: Any, config: Any) -> None:
    """The config Inductor's autotuner settled on, untimed: its record says so."""
    found = _RECORD_KEYS.get((id(autotuner), id(config)))
    if found is not None:
        capture_state.STATE.writer.send(protocol.Chosen(found[0], CHOICE))


def _not_captured(message: str, file: str, line: int | None, graph_lost: bool = False) -> None:
    from kx_core.compile.capturing.device.placeholders import LEDGER

    # only the file's own frames (and its libraries'): dynamo also reports frames of
    # torch and of kx's capture device that run under the frame it gave up on. Where the
    # frame is torch's own wrapper of the file's code (`torch.compile(module)` compiles
    # external_utils' `inner`) and Inductor failed on the graph it traced, the file's
    # kernels are what was lost: said at the file's line that called it.
    if LEDGER.inside_libraries_file(file):
        if not graph_lost:
            return
        file, line = LEDGER.user_frame()
        if file is None:
            return
    capture_state.STATE.send_diagnostic(Diagnostic("not-captured", message, file, line))


def _patch_runtime(on_chosen: Callable[[Any, Any], None]) -> None:
    """Patch Inductor's runtime as its modules load. `on_chosen(autotuner, config)` is
    called when Inductor's autotuner settles on a config without timing it."""
    import torch

    _python_allocations(torch)
    after_import("torch._inductor.runtime.triton_helpers", _keep_capture_driver)
    after_import("torch._inductor.runtime.triton_heuristics", lambda m: _autotuner(m, on_chosen))
    after_import("torch._inductor.runtime.benchmarking", _untimed_benchmarks)
    after_import("torch._inductor.config", _configure)
    after_import("torch._inductor.runtime.autotune_cache", _no_autotune_cache)


def _python_allocations(torch: Any) -> None:
    """The wrapper's allocation helpers as Python calls the capture device answers."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    if guards is None:
        return

    def empty_strided_gpu(size: Any, stride: Any, dtype: Any) -> Any:
        return torch.empty_strided(size, stride, dtype=dtype, device=torch.device("cuda", 0))

    def reinterpret_tensor(base: Any, size: Any, stride: Any, offset_increment: int = 0) -> Any:
        return torch.as_strided(base, size, stride, base.storage_offset() + offset_increment)

    def copy_if_misaligned(t: Any) -> Any:
        # Inductor's kernels assume 16-byte aligned inputs; a misaligned one is cloned
        return t.clone() if t.data_ptr() % 16 else t

    for name in ("_empty_strided_cuda", "_empty_strided_xpu"):
        if hasattr(guards, name):
            setattr(guards, name, empty_strided_gpu)
    if hasattr(guards, "assert_size_stride"):
        guards.assert_size_stride = _gpu_layout_of_extern_outputs(guards.assert_size_stride)
    if hasattr(guards, "_reinterpret_tensor"):
        guards._reinterpret_tensor = reinterpret_tensor
    if hasattr(guards, "copy_if_misaligned"):
        guards.copy_if_misaligned = copy_if_misaligned


def _gpu_layout_of_extern_outputs(check: Callable[..., Any]) -> Callable[..., Any]:
    """Inductor's wrapper checks each extern kernel's output against the layout its fake
    on cuda:0 had (`assert_size_stride`). A capture tensor is a meta tensor, and a few ATen
    meta functions choose the layout by the device (convolution_backward's grad_weight:
    cuDNN's memory format on the GPU, the input's suggestion on meta: timm's ViT patch
    embedding in qt_int8_vit_train stopped with 'expected stride 1==256'). Where only the
    order of a dense output's dimensions differs, the output takes the GPU's layout the
    fake had, as the real run's tensor has it; any other mismatch is still Inductor's."""
    from kx_core.compile.capturing.device.aten_layouts import non_overlapping_and_dense

    def assert_size_stride(t: Any, size: Any, stride: Any, *args: Any) -> Any:
        if (
            getattr(t, "is_meta", False)
            and tuple(t.shape) == tuple(size)
            and tuple(t.stride()) != tuple(stride)
            and t.storage_offset() == 0
            and t.untyped_storage().nbytes() == t.numel() * t.element_size()
            and non_overlapping_and_dense(tuple(size), tuple(stride))
            and non_overlapping_and_dense(tuple(t.shape), tuple(t.stride()))
        ):
            t.as_strided_(tuple(size), tuple(stride))
        return check(t, size, stride, *args)

    return assert_size_stride


def _keep_capture_driver(module: Any) -> None:
    module.set_driver_to_gpu = lambda: None


def _configure(config: Any) -> None:
    config.compile_threads = 1
    if hasattr(config, "use_static_cuda_launcher"):
        config.use_static_cuda_launcher = False


def _no_autotune_cache(module: Any) -> None:
    """Inductor keeps each kernel's fastest config in a `.best_config` file beside it:
    a capture must neither read one (a cold run compiles every config) nor write its
    untimed choice there (the user's next real run would launch it)."""
    cache = getattr(module, "AutotuneCache", None)
    if cache is not None and hasattr(cache, "create"):
        cache.create = staticmethod(lambda *args, **kwargs: None)


def _untimed_benchmarks(module: Any) -> None:
    """Inductor's benchmarker: the benchmarked call runs once (its launches are
    captured, as a real benchmark's are) and takes 1.0 ms, whatever it is."""

    def benchmark_gpu(fn: Callable[[], Any], *args: Any, **kwargs: Any) -> float:
        fn()
        return 1.0

    def benchmark(fn: Callable[..., Any], fn_args: Any = (), fn_kwargs: Any = None, **kwargs: Any) -> float:
        fn(*(fn_args or ()), **(fn_kwargs or {}))
        return 1.0

    benchmarker = getattr(module, "benchmarker", None)
    if benchmarker is not None:
        benchmarker.benchmark_gpu = benchmark_gpu
        benchmarker.benchmark = benchmark


def _autotuner(module: Any, on_chosen: Callable[[Any, Any], None]) -> None:
    tuner = getattr(module, "CachingAutotuner", None)
    if tuner is None:
        return
    precompile_config = tuner._precompile_config

    def _precompile_config(self: Any, cfg: Any, *args: Any, **kwargs: Any) -> Any:
        # the configs this autotuner compiled, its own first: Inductor drops `self.configs`
        # once it has autotuned, and coordinate descent tuning (gpt-fast turns it on) then
        # compiles configs of its own, numbered after them
        known = self.__dict__.setdefault("_kx_configs", list(self.configs or ()))
        index = next((i for i, c in enumerate(known) if c is cfg), None)
        if index is None:
            known.append(cfg)
            index = len(known) - 1
        saved, _CURRENT.compile = _CURRENT.compile, InductorCompile(self, cfg, index)
        try:
            return precompile_config(self, cfg, *args, **kwargs)
        finally:
            _CURRENT.compile = saved

    tuner._precompile_config = _precompile_config
    if hasattr(tuner, "copy_args_to_cpu_if_needed"):
        # Inductor keeps mutated arguments safe from its benchmark by copying them to the
        # host and back: under capture nothing runs that could change them
        tuner.copy_args_to_cpu_if_needed = lambda self, *args, **kwargs: {}
    if hasattr(tuner, "autotune_to_one_config"):
        autotune = tuner.autotune_to_one_config

        def autotune_to_one_config(self: Any, *args: Any, **kwargs: Any) -> Any:
            out = autotune(self, *args, **kwargs)
            if len(getattr(self, "launchers", ())) == 1:
                on_chosen(self, self.launchers[0].config)
            return out

        tuner.autotune_to_one_config = autotune_to_one_config
    if hasattr(tuner, "_coordinate_descent_tuning"):
        descend = tuner._coordinate_descent_tuning

        def _coordinate_descent_tuning(self: Any, *args: Any, **kwargs: Any) -> Any:
            # which configs the search compiles past its first round depends on their times
            from kx_core.compile.capturing.device.placeholders import LEDGER

            LEDGER.use(COORDINATE_DESCENT, COORDINATE_DESCENT_CHOICE)
            return descend(self, *args, **kwargs)

        tuner._coordinate_descent_tuning = _coordinate_descent_tuning


# ----------------------------------------------------------------- torch.compile

# What the not-captured diagnostic says when Inductor failed under capture where a real
# run compiles (the frame runs eagerly, so the file goes on; its kernels are not shown).
NOT_CAPTURED = "torch.compile of {name} could not compile under capture{why}: it ran eagerly, so its Inductor kernels are not shown"
# Example: "WON'T CONVERT forward /home/u/model.py line 12 \ndue to: ..."
_WONT_CONVERT_RE = re.compile(r"WON'T CONVERT (\S+) (.+?) line (\d+)")


def install_torch_compile(on_not_captured: Callable[[str, str, int | None, bool], None]) -> None:
    """torch.compile as on a GPU: dynamo traces the call with fake tensors that are the
    GPU's (a capture tensor is a meta tensor; its fake is on cuda:0, as a real run's
    input's is) and Inductor generates, compiles and launches its kernels (`install`).
    Where Inductor fails under capture, the frame runs eagerly (dynamo's own fallback) and
    `on_not_captured(message, file, line)` reports it."""
    import torch

    real_compile = torch.compile

    def compile_now(*args: Any, **kwargs: Any) -> Any:
        _prepare_dynamo(torch, on_not_captured)
        return real_compile(*args, **kwargs)

    def compile(*args: Any, **kwargs: Any) -> Any:
        if not args and "model" not in kwargs:  # @torch.compile(mode=...): a decorator
            return lambda model: compile(model, **kwargs)
        if len(args) == 1 and inspect.isfunction(args[0]):
            return _compiled_at_first_call(torch, args[0], kwargs, compile_now)
        if len(args) == 1 and inspect.isclass(args[0]):
            # dynamo's rule for a decorated class (_TorchDynamoContext.__call__): its
            # __call__, and an nn.Module's _call_impl, become compiled functions
            cls = args[0]
            names = ["__call__"] + (["_call_impl"] if issubclass(cls, torch.nn.Module) else [])
            if all(inspect.isfunction(getattr(cls, n, None)) for n in names):
                for n in names:
                    setattr(cls, n, _compiled_at_first_call(torch, getattr(cls, n), kwargs, compile_now))
                return cls
        return compile_now(*args, **kwargs)  # a module (an OptimizedModule is one too)

    torch.compile = compile
    after_import("torch._subclasses.fake_tensor", gpu_fakes.patch_fake_tensor)


def _stand_ins_as_constants(module: Any) -> None:
    """The capture device's answers that dynamo keeps as constants in what it traces, as
    it keeps the real ones: torch.cuda.get_device_properties() is folded in compiled code,
    and its real type is among dynamo's constant types, so the stand-in's type is added
    (to the set in torch._dynamo.utils; to the builder's table of sourceless handlers,
    made from that set, where it was made already). Without it, a compiled forward that
    reads `props.multi_processor_count` stopped at "Unexpected type in sourceless
    builder", where a real run traces on. Called when torch.compile is first used, with
    the real modules: an import hook on torch._dynamo.utils ran it in the middle of the
    file's own `import torch._dynamo.utils`, past the deferred stand-in of torch._dynamo
    (device/deferred_dynamo.py), and the import stopped at a partly initialized module."""
    from kx_core.compile.capturing.device.fake_cuda import DeviceProperties

    constants = getattr(module, "common_constant_types", None)
    if isinstance(constants, set):
        constants.add(DeviceProperties)
    handlers = getattr(getattr(module, "SourcelessBuilder", None), "_type_handlers", None)
    constant = getattr(module, "ConstantVariable", None)
    if isinstance(handlers, dict) and constant is not None:
        handlers[DeviceProperties] = lambda tx, value: constant(value)


def _tensor_base_methods_traceable(trace_rules: Any) -> None:
    """Dynamo traces the capture's torch function mode with each call, so a Tensor method
    written in Python (`Tensor.unflatten` in torch/_tensor.py) is inlined from the mode's
    handler where a real run calls it as a tensor method; the method's `super().unflatten()`
    is TensorBase's own C method, which torch 2.11's Dynamo does not count as a tensor
    method, so it broke the graph there (corpus 10's trifast pair stack: one graph on the
    GPU, a graph break per layer under kx). torch 2.14's `get_tensor_method` counts
    TensorBase's own methods too: the same rule, given to the older Dynamo."""
    import functools
    import types

    import torch

    original = getattr(trace_rules, "get_tensor_method", None)
    if original is None or getattr(original, "kx_tensor_base", False):
        return
    kinds = (types.MethodDescriptorType, types.WrapperDescriptorType, types.BuiltinFunctionType)
    refused = {"__new__", "_make_wrapper_subclass", "_make_subclass"}  # as torch 2.14 refuses

    @functools.cache
    def get_tensor_method() -> frozenset[Any]:
        own = {
            m for n, m in torch._C.TensorBase.__dict__.items() if isinstance(m, kinds) and n not in refused
        }
        return frozenset(original() | own)

    get_tensor_method.kx_tensor_base = True
    trace_rules.get_tensor_method = get_tensor_method


def _numpy_values_past_the_capture_mode() -> None:
    """Dynamo traces numpy values in compiled code (`C / np.sqrt(n)` of numpy scalars,
    EDM2's `mp_cat`) as numpy-backed tensors, and sends their operators through the torch
    function modes on the stack, where a real run has none: kx's capture mode passed the
    call on as a torch op, which dynamo then made a tensor method of a `torch._numpy`
    array ("'ndarray' object has no attribute 'div'") and the frame ran eagerly. Where
    the capture mode is the only mode and no argument overrides torch functions, a call
    with a numpy-backed value is not dispatched to modes, as on a real run."""
    from kx_core.compile.capturing.device import fake_torch

    functions = importlib.import_module("torch._dynamo.variables.torch_function")
    tensors = importlib.import_module("torch._dynamo.variables.tensor")
    torch_variables = importlib.import_module("torch._dynamo.variables.torch")
    original = getattr(functions, "can_dispatch_torch_function", None)
    numpy_value = getattr(tensors, "NumpyNdarrayVariable", None)
    all_args = getattr(functions, "_get_all_args", None)
    if original is None or numpy_value is None or all_args is None:
        return

    def can_dispatch_torch_function(tx: Any, args: Any, kwargs: Any) -> bool:
        values = list(all_args(args, kwargs))
        if any(isinstance(v, numpy_value) for v in values) and not any(
            functions.has_torch_function(v) for v in values
        ):
            stack = getattr(getattr(tx, "symbolic_torch_function_state", None), "mode_stack", ())
            mode = fake_torch.CAPTURE_MODE
            if stack and all(getattr(m, "value", None) is mode for m in stack):
                return False
        return original(tx, args, kwargs)

    functions.can_dispatch_torch_function = can_dispatch_torch_function
    if getattr(torch_variables, "can_dispatch_torch_function", None) is original:
        torch_variables.can_dispatch_torch_function = can_dispatch_torch_function


def _compiled_at_first_call(torch: Any, fn: Any, kwargs: dict, compile_now: Callable[..., Any]) -> Any:
    """A function `torch.compile` made at import (a library's `@torch.compile` helpers):
    dynamo is loaded and the function compiled when it is first called, not when it is
    decorated. What is compiled and captured is the same (dynamo compiles at the first
    call on a GPU too); a file that never calls it does not pay dynamo's import (1.4 s:
    fla's `ops.attn` decorates at import what its norm-gate users never call). Called
    while dynamo traces another compiled function, it is that function's code, inlined,
    as dynamo treats a nested compiled function."""
    compiled = None

    @functools.wraps(fn)
    def call(*args: Any, **kw: Any) -> Any:
        nonlocal compiled
        if torch.compiler.is_compiling():
            return fn(*args, **kw)
        if compiled is None:
            compiled = compile_now(fn, **kwargs)
        return compiled(*args, **kw)

    return call


def _prepare_dynamo(torch: Any, on_not_captured: Callable[[str, str, int | None, bool], None]) -> None:
    if getattr(_prepare_dynamo, "done", False):
        return
    _prepare_dynamo.done = True
    # A real run's default device is the CPU: traced code that makes a tensor without a
    # device makes a CPU tensor (the capture's default, meta, would put it beside GPU fakes)
    _default_device_cpu(torch)
    dynamo_config = importlib.import_module("torch._dynamo.config")
    for name in ("torch._dynamo.utils", "torch._dynamo.variables.builder"):
        _stand_ins_as_constants(importlib.import_module(name))
    _numpy_values_past_the_capture_mode()
    dynamo_config.suppress_errors = True
    after_import("torch._dynamo.trace_rules", _tensor_base_methods_traceable)
    after_import("torch._inductor.compile_fx", _compile_without_modes)
    after_import("torch._inductor.compile_fx", _compiled_graphs_carry_known_values)
    after_import("torch.fx.experimental.proxy_tensor", _constants_without_a_device)
    after_import("torch._inductor.fx_passes.joint_graph", _folded_constants_keep_their_values)
    after_import("torch._inductor.graph", _tensor_constants_on_the_gpu)
    after_import("torch._inductor.freezing", _frozen_folds_kept)
    after_import("torch._inductor.fx_passes.pad_mm", pad_mm_choice.install)
    after_import("torch._inductor.select_algorithm", autotune_choice.install)
    after_import("torch._inductor.codegen.triton", autotune_choice.install_fusion_timing)
    after_import("torch._inductor.compile_fx", _cuda_graphs_run_as_their_warm_up)
    after_import("torch._inductor.cudagraph_trees", _cuda_graph_trees_run_as_their_warm_up)
    _optimizers_see_the_gpu(torch)
    logging.getLogger("torch._dynamo.convert_frame").addHandler(_NotConvertedHandler(on_not_captured))


def _default_device_cpu(torch: Any) -> None:
    """torch.set_default_device(None), where PyTorch's rule for it holds: its DeviceContext
    is at the bottom of this thread's mode stack. Inside a mode's handler it is not (a
    torch.compile'd function first called in a custom Function's backward: loss.backward()
    runs in the capture mode's handler, cut_cross_entropy's sort_logit_avg), and exiting it
    there raised "Expected a DeviceContext at the bottom of the mode stack": there the
    context stays where it is and makes tensors on the CPU, as no default does.
    Only the capture's own default (meta) goes: a default the file set itself before its
    first compile (`torch.set_default_device("cuda")`) is the real run's too, and dynamo
    traces its DeviceContext into the graph (minimalRL's SAC and Karpathy's flows,
    corpus 19: their `torch.zeros(n)` in compiled code had become host tensors beside
    GPU weights, "found two different devices cpu, cuda:0")."""
    context = getattr(getattr(torch, "_GLOBAL_DEVICE_CONTEXT", None), "device_context", None)
    if context is None or torch.device(context.device).type != "meta":
        return
    stack = torch._C._len_torch_function_stack()
    if stack and torch._C._get_function_stack_at(0) is context:
        torch.set_default_device(None)
        return
    context.device = torch.device("cpu")


def no_cuda_here(exc: BaseException) -> bool:
    """`exc` is PyTorch saying this machine has no CUDA device to put real data on.
    Examples: "Found no NVIDIA driver on your system", "CUDA driver version is
    insufficient for CUDA runtime version", "No CUDA GPUs are available"."""
    text = str(exc)
    return isinstance(exc, RuntimeError) and any(
        s in text for s in ("NVIDIA driver", "CUDA driver version", "No CUDA GPUs", "not compiled with CUDA")
    )


def _constants_without_a_device(module: Any) -> None:
    """make_fx keeps a real copy of each small constant it traces (an index list such as
    `x[:, [-1], :]`, moved to the GPU with the graph), computed outside the fakes: on a
    GPU, real GPU data. Here there is none to hold it: the constant is left untracked (as
    one past make_fx's size limit is), and the op is traced as for any tensor, so the
    graph and Inductor's kernels are the GPU's."""
    real = module.unset_fake_temporarily

    class _UnsetFakeTemporarily:
        def __init__(self) -> None:
            self.inner = real()

        def __enter__(self) -> Any:
            return self.inner.__enter__()

        def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
            self.inner.__exit__(kind, exc, tb)
            return exc is not None and no_cuda_here(exc)

    module.unset_fake_temporarily = _UnsetFakeTemporarily


def _folded_constants_keep_their_values(module: Any) -> None:
    """Inductor's uniform-value folding computes small constants for real (a `full` of
    the graph's device, an index list's move to the GPU) to learn their values, and
    replaces a uniform one with a `full` made from the node's own fake (its device, the
    GPU's). Its peephole patterns, made when the folder is built, do the same for a `mul`
    by the integer 0 (`torch.full([1], 0, device=<the node's device>)`: pytorch-flows'
    `1 - momentum` after main.py sets the momentum to 1, corpus 21). The values are the
    same on any device: here they are computed on the CPU, so the folding, and the
    kernels generated after it, are the GPU's. `torch.full(device="cuda")` starts CUDA
    before any dispatch, so the device is moved where the call is made (a torch function
    mode); the nodes the folder runs are moved at dispatch (`prims.device_put`)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    device_put = torch.ops.prims.device_put.default

    def cpu_for_cuda(value: Any) -> Any:
        if isinstance(value, (str, torch.device)) and torch.device(value).type == "cuda":
            return torch.device("cpu")
        return value

    def on_the_cpu(kwargs: dict | None) -> dict:
        return {k: cpu_for_cuda(v) if k == "device" else v for k, v in (kwargs or {}).items()}

    class _MadeOnTheCpu(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
        ) -> Any:
            return func(*args, **on_the_cpu(kwargs))

    class _OnTheCpu(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
        ) -> Any:
            if func is device_put and len(args) > 1:
                args = (args[0], cpu_for_cuda(args[1]), *args[2:])
            return func(*args, **on_the_cpu(kwargs))

    def on_the_cpu_while(method: Any) -> Any:
        @functools.wraps(method)
        def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            with _MadeOnTheCpu(), _OnTheCpu():
                return method(self, *args, **kwargs)

        return wrapped

    folder = module.UniformValueConstantFolder
    folder.__init__ = on_the_cpu_while(folder.__init__)
    folder.run = on_the_cpu_while(folder.run)


def _tensor_constants_on_the_gpu(module: Any) -> None:
    """Inductor lowers a graph's tensor constants on the device their data is on. Under
    freezing (`torch._inductor.config.freezing = True`, an inference graph) the module's
    parameters and buffers become such constants, and so does what freezing folds from
    them (a batch norm folded into its convolution's weight, query, key and value weights
    concatenated): on a GPU, GPU tensors. Here they are capture tensors, whose data is meta
    to torch's own code, and the lowering put them on meta beside the GPU fakes of the
    graph's inputs ("Expected all tensors to be on the same device ... weight is on meta").
    A capture tensor stands for a GPU tensor: its constant is lowered on cuda:0, and a
    kernel that reads it on cuda:0 reads it where it is, not from a copy."""
    import torch

    graph = module.GraphLowering
    add = graph.add_tensor_constant
    name_on = graph.constant_name
    gpu = torch.device("cuda", 0)

    @functools.wraps(add)
    def add_tensor_constant(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
        box = add(self, data, *args, **kwargs)
        layout = getattr(getattr(box, "data", None), "layout", None)
        if getattr(data, "is_meta", False) and getattr(layout, "device", None) == data.device:
            layout.device = gpu
        return box

    @functools.wraps(name_on)
    def constant_name(self: Any, name: str, device_override: Any) -> str:
        constant = self.constants.get(name)
        if getattr(constant, "is_meta", False) and device_override == gpu:
            return name
        return name_on(self, name, device_override)

    graph.add_tensor_constant = add_tensor_constant
    graph.constant_name = constant_name


def _frozen_folds_kept(module: Any) -> None:
    """Under freezing Inductor's ConstantFolder computes each node that depends on constants
    alone and keeps the result as a new constant, except a result on the meta device
    (constant_folding.py: `out.device.type == "meta"`: nothing to keep), and freezing's
    passes build on the folds (the eval batch norm's scale and shift folded into its
    convolution's weight). A capture's parameters are GPU tensors whose data is meta to
    torch's own code, so their folds are meta too, and nothing was folded where a GPU folds:
    the H100 ran the frozen-inference test file (compiled_frozen_inference.py) in 9 compiles,
    kx lowered the batch norm apart (10). While freezing runs, from a fold's meta result to
    the end of that node's turn (the folder's checks and its keeping of the result, nothing
    computed), a meta tensor says it is on the GPU, as the tensors it was computed from do;
    the result is kept as a GPU run keeps it, and lowered on cuda:0 as the parameters are
    (_tensor_constants_on_the_gpu). Its values are unknown (meta), as the parameters' are;
    the kernels depend on its shape, stride and dtype, which are the GPU's."""
    import torch

    constant_folding = importlib.import_module("torch._inductor.constant_folding")
    folder = constant_folding.ConstantFolder
    deduce, run_node = getattr(folder, "_deduce_value", None), getattr(folder, "run_node", None)
    freeze = getattr(module, "freeze", None)
    if freeze is None or deduce is None or run_node is None or "device" in vars(torch.Tensor):
        return
    own_device = torch._C.TensorBase.device
    gpu = torch.device("cuda", 0)
    freezing = [0]

    def device(tensor: Any) -> Any:
        place = own_device.__get__(tensor)
        return gpu if place.type == "meta" else place

    said_on_the_gpu = property(device)

    @functools.wraps(deduce)
    def _deduce_value(self: Any, node: Any) -> Any:
        out = deduce(self, node)
        if freezing[0] and type(out) is torch.Tensor and out.is_meta:
            torch.Tensor.device = said_on_the_gpu  # until this node's run_node returns
        return out

    def said_no_more() -> None:
        if vars(torch.Tensor).get("device") is said_on_the_gpu:
            del torch.Tensor.device

    @functools.wraps(run_node)
    def folded_node(self: Any, node: Any) -> Any:
        try:
            return run_node(self, node)
        finally:
            said_no_more()

    @functools.wraps(freeze)
    def frozen(*args: Any, **kwargs: Any) -> Any:
        freezing[0] += 1
        try:
            return freeze(*args, **kwargs)
        finally:
            freezing[0] -= 1
            said_no_more()

    folder._deduce_value = _deduce_value
    folder.run_node = folded_node
    module.freeze = frozen


def _compile_without_modes(module: Any) -> None:
    """Inductor compiles a graph with no torch function mode on the stack, as under dynamo
    (a backward graph compiled at its first backward would run under the capture's mode)."""

    inner = getattr(module, "compile_fx_inner", None)
    if inner is None:
        return

    @functools.wraps(inner)
    def compile_fx_inner(*args: Any, **kwargs: Any) -> Any:
        with gpu_fakes.without_torch_function_modes():
            return inner(*args, **kwargs)

    module.compile_fx_inner = compile_fx_inner
    # (compile_fx binds compile_fx_inner as a default argument when its module loads; the
    # function it calls, `_compile_fx_inner`, is looked up at each call)
    lower = getattr(module, "_compile_fx_inner", None)
    if lower is not None:

        @functools.wraps(lower)
        def _compile_fx_inner(*args: Any, **kwargs: Any) -> Any:
            graph = None if kwargs.get("is_inference") or not args else _graph_copy(args[0])
            compiled = lower(*args, **kwargs)
            if graph is not None:
                _runs_carry_known_values(compiled, graph)
            return compiled

        module._compile_fx_inner = _compile_fx_inner


def _graph_copy(model: Any) -> Any:
    """The graph Inductor is about to compile, copied before its passes rewrite it (None
    for what is not a plain GraphModule: nothing to run on the CPU)."""
    import copy

    import torch

    try:
        return torch.fx.GraphModule(model, copy.deepcopy(model.graph))
    except Exception:  # noqa: BLE001 - compiled as it is, its outputs' data unknown
        return None


def _call_carrying_known_values(graph: Any, inputs: list, call: Callable[[], Any]) -> Any:
    """`call()`, the compiled code of `graph` on `inputs`, whose outputs then carry the data
    the graph computes from its inputs' copies (known_values.through_graph; the copies are
    taken first, since the compiled code may write an input's storage)."""
    import torch

    from kx_core.compile.capturing.device import known_values

    known = None if torch.compiler.is_compiling() else known_values.graph_inputs(torch, graph, inputs)
    outputs = call()
    if known is not None:
        known_values.through_graph(torch, graph, known, outputs)
    return outputs


def _runs_carry_known_values(compiled: Any, graph: Any) -> None:
    """The forward and backward graphs AOTAutograd makes for training run on the CPU copies
    after each call of their compiled code (known_values.through_graph), as dynamo's graph
    does for the outputs the file sees: the forward's saved activations, then the gradients
    the backward returns, carry their data. Without them every gradient was unknown, so
    were the parameters after the optimizer's step, and a training loop's `loss.item()`
    after its first step was a placeholder (torchdiffeq's training solves ran on guesses)."""
    run = getattr(compiled, "current_callable", None)
    if not callable(run):
        return

    def current_callable(inputs: Any) -> Any:
        # (the compiled code empties the list it is given)
        return _call_carrying_known_values(graph, list(inputs), lambda: run(inputs))

    # CompiledFxGraph.__call__ runs `self.current_callable(inputs)` (torch 2.9 - 2.14)
    compiled.current_callable = current_callable


def _compiled_graphs_carry_known_values(module: Any) -> None:
    """Dynamo's graph, kept before Inductor's passes rewrite it, runs on the CPU after each
    call of the compiled code, node by node where its inputs' data is known
    (known_values.through_graph): the outputs carry the data a real run's kernels write."""
    real = module.compile_fx

    @functools.wraps(real)
    def compile_fx(model: Any, example_inputs: Any, *args: Any, **kwargs: Any) -> Any:
        graph = _graph_copy(model)
        compiled = real(model, example_inputs, *args, **kwargs)
        if graph is None or not callable(compiled) or getattr(compiled, "_kx_known_values", False):
            return compiled  # (compile_fx calls itself with config patches: one run is enough)
        boxed = getattr(compiled, "_boxed_call", False)

        def run(*call_args: Any) -> Any:
            # (a boxed call passes its inputs as one list, which the callee empties)
            boxed_call = boxed and len(call_args) == 1 and isinstance(call_args[0], list)
            inputs = list(call_args[0]) if boxed_call else list(call_args)
            return _call_carrying_known_values(graph, inputs, lambda: compiled(*call_args))

        if boxed:
            run._boxed_call = True  # type: ignore[attr-defined]
        run._kx_known_values = True  # type: ignore[attr-defined]
        return run

    module.compile_fx = compile_fx


def _cuda_graphs_run_as_their_warm_up(module: Any) -> None:
    """Inductor's cudagraph wrapper (`mode="reduce-overhead"`, config.triton.cudagraphs)
    runs a compiled graph as its warm-up does, on every call: inputs realigned as the
    wrapper realigns them, then the graph's own code, whose kernels launch (and so compile
    as on the GPU, before a real run records them). Recording and replaying a CUDA graph
    needs the GPU's memory pools and graphs (cudagraph trees asked the caching allocator
    about a pool that does not exist: SIGSEGV). The generated code is the GPU's: it is
    still generated for CUDA graphs (graph partitions, CPU scalars moved to the GPU)."""
    if not hasattr(module, "cudagraphify"):
        return
    to_check = getattr(module, "get_input_idxs_to_check", None)
    realign = getattr(module, "copy_misaligned_inputs", None)

    def cudagraphify(model: Callable[..., Any], static_input_idxs: Any = (), **kwargs: Any) -> Any:
        def run(new_inputs: list[Any]) -> Any:
            if to_check is not None and realign is not None:
                realign(new_inputs, to_check(new_inputs, static_input_idxs))
            return model(new_inputs)

        return run

    module.cudagraphify = cudagraphify


def _cuda_graph_trees_run_as_their_warm_up(module: Any) -> None:
    """The same for cudagraph trees called directly (dynamo's "cudagraphs" backend)."""
    if not hasattr(module, "cudagraphify_impl"):
        return

    def cudagraphify_impl(
        model: Callable[..., Any], inputs: Any, static_input_idxs: Any = (), *args: Any, **kwargs: Any
    ) -> Any:
        return lambda new_inputs: model(new_inputs)

    module.cudagraphify_impl = cudagraphify_impl


def _optimizers_see_the_gpu(torch: Any) -> None:
    """torch.compile of an optimizer step makes the step capturable when every parameter
    is on the GPU (dynamo's OptimizerVariable reads `p.is_cuda` of the real parameters,
    outside the capture's torch function mode): capture tensors answer True there, as a
    GPU tensor would, so the step traces as on a real run (its step counters on the GPU)."""
    after_import("torch._dynamo.variables.optimizer", lambda module: _capturable_on_gpu(torch, module))


def _capturable_on_gpu(torch: Any, optimizer: Any) -> None:
    variable = getattr(optimizer, "OptimizerVariable", None)
    if variable is None or not hasattr(variable, "_set_capturable"):
        return
    set_capturable = variable._set_capturable
    base_is_cuda = torch._C.TensorBase.is_cuda

    def is_cuda(t: Any) -> bool:
        return t.is_meta or base_is_cuda.__get__(t)

    def _set_capturable(self: Any, *args: Any, **kwargs: Any) -> Any:
        torch.Tensor.is_cuda = property(is_cuda)
        try:
            return set_capturable(self, *args, **kwargs)
        finally:
            del torch.Tensor.is_cuda

    variable._set_capturable = _set_capturable


# Example: "RuntimeError: Found no NVIDIA driver on your system. ..."; Inductor's wrapped
# "torch._inductor.exc.InductorError: TypeError: " with the message on the lines after it
_ERROR_RE = re.compile(r"^\s*(?:[\w.]+\.)?(\w*(?:Error|Exception)): (.*)$", re.MULTILINE)
# Example: '  File "/v/lib/python3.12/site-packages/torch/utils/_sympy/value_ranges.py", line 610, in eq'
_FRAME_RE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)


def _cause(text: str) -> str:
    """The last error a suppressed-failure warning names, with its message where the
    message starts on the next line (sympy's TypeErrors do), and where the traceback is
    there, torch's innermost frame in it (shown from its package folder)."""
    errors = list(_ERROR_RE.finditer(text))
    if not errors:
        return ""
    last = errors[-1]
    message = last.group(2).strip()
    triton_at = _TRITON_AT_RE.match(message)
    if triton_at:
        message = _triton_rejection(triton_at, text[last.end() :])
    elif not message or message.endswith(":"):
        after = text[last.end() :].split("\n")
        more = " ".join(line.split("] ", 1)[-1].strip() for line in after[:4])
        message = f"{message} {more}".strip()
    cause = f"{last.group(1)}: {message}"
    frames = [
        _from_package(f.group(1)) + f":{f.group(2)}"
        for f in _FRAME_RE.finditer(text)
        if f.start() < last.start()
    ]
    # torch's innermost frame says which of its passes failed (sympy's, below it, says less)
    frames = [f for f in frames if f.startswith(f"torch{os.sep}")] or frames
    if frames:
        cause += f", raised at {frames[-1]}"
    return " ".join(cause.split())[:400]


# Example: "CompilationError: at 12:64:" (Triton's front end: the kernel's source follows, then
# a caret under the column, then Triton's message, which can be empty)
_TRITON_AT_RE = re.compile(r"CompilationError: at (\d+):(\d+):$")
# Example: "def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):"
_KERNEL_DEF_RE = re.compile(r"^def (\w+)\(")


def _triton_rejection(at: re.Match, after: str) -> str:
    """Triton's CompilationError of a generated kernel, in one line: the kernel, the line and
    column, the code under the caret and Triton's message. The kernel's whole source comes
    first in the error, so cut at a length it left no room for the reason."""
    lines = after.split("\n")
    kernel = next((m.group(1) for m in map(_KERNEL_DEF_RE.match, lines) if m), "a generated kernel")
    caret = next((i for i, line in enumerate(lines) if line.strip() == "^"), None)
    if len(kernel) > 60:  # Inductor's names list every fused op
        kernel = kernel[:57] + "..."
    said = f"CompilationError at {at.group(1)}:{at.group(2)} of {kernel}"
    if caret is None or caret == 0:
        return said
    column = lines[caret].index("^")
    code = lines[caret - 1]
    shown = code[max(column - 10, 0) : column + 60].strip()
    reason = []
    for line in lines[caret + 1 :]:
        if not line.strip() or line.startswith("Set TORCHDYNAMO_VERBOSE"):
            break
        reason.append(line.strip())
    why = " ".join(reason) or "Triton gave no message"
    return f"{said}: Triton rejected `{shown}` ({why})"


def _from_package(path: str) -> str:
    """A file of an installed package from its package folder
    ("/v/lib/python3.12/site-packages/torch/x.py" -> "torch/x.py"); others as they are."""
    cut = path.rfind(f"site-packages{os.sep}")
    return path[cut + len("site-packages") + 1 :] if cut >= 0 else path


# Inductor's modules that time, build or run code on the device, or talk to compile workers:
# an assertion there may be the capture's making (no GPU to time on, no driver)
_INDUCTOR_DEVICE_SIDE = (
    "runtime/", "autotune_process.py", "select_algorithm.py", "codecache.py", "async_compile.py",
    "compile_worker/", "cpp_builder.py", "fx_passes/pad_mm.py", "autoheuristic/",
)  # fmt: skip


def _fails_in_a_real_run(error: BaseException) -> bool:
    """Whether an Inductor failure dynamo suppressed is one a real run meets too, so raises:
    - Triton's front end rejecting a kernel's source (a kernel of the file's inside the
      graph, or one Inductor generated), which depends on the source and the target;
    - one of Inductor's own assertions about the graph, raised in its lowering, scheduling
      or code generation with none of kx's code between (`_inductors_own_assertion`).
    Neither depends on the capture device. Every other failure may be the capture's own
    making: kx keeps dynamo's eager fallback for those and says the frame is not captured."""
    try:
        from triton.compiler.errors import CompilationError
    except ImportError:
        CompilationError = ()  # noqa: N806 - no Triton: no front end to reject a kernel
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, CompilationError) or _inductors_own_assertion(error):
            return True
        inner = getattr(error, "inner_exception", None)  # (InductorError keeps the original)
        error = inner if isinstance(inner, BaseException) else (error.__cause__ or error.__context__)
    return False


def _inductors_own_assertion(error: BaseException) -> bool:
    """An AssertionError raised in torch/_inductor's code about the graph it compiles (torch
    2.11's tiling analysis asserting on a fused node's sizes, `tiling_utils.py:271`: the
    H100's real run of corpus 11's DINO ViT raised it, kx's capture ran the frame eagerly
    on, compiling 262 kernels the GPU never did). Not where Inductor times, builds or runs
    code on the device (_INDUCTOR_DEVICE_SIDE), nor where any of kx's code is on the way."""
    import traceback

    import torch

    if not isinstance(error, AssertionError) or error.__traceback__ is None:
        return False
    frames = traceback.extract_tb(error.__traceback__)
    if not frames or any(file_kinds.is_engine_file(f.filename) for f in frames):
        return False
    inductor = os.path.join(os.path.dirname(file_kinds.real_path(torch.__file__)), "_inductor", "")
    where = file_kinds.real_path(frames[-1].filename)
    return where.startswith(inductor) and not where[len(inductor) :].startswith(_INDUCTOR_DEVICE_SIDE)


class _NotConvertedHandler(logging.Handler):
    """Turns dynamo's "WON'T CONVERT" warning (an Inductor failure it suppressed) into a
    not-captured report at the frame's line."""

    def __init__(self, report: Callable[[str, str, int | None, bool], None]) -> None:
        super().__init__(logging.WARNING)
        self.report = report

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        m = _WONT_CONVERT_RE.search(text)
        if m is None:
            return
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and _fails_in_a_real_run(error):
            # dynamo logs this inside its `except`, where a real run (suppress_errors off,
            # PyTorch's default) re-raises: raised from here, the error reaches the file as
            # it would on the GPU, instead of the frame running eagerly on (trifast's
            # kernel rejected by Triton inside torch.compile: the real run raised; kx went
            # on eagerly and compiled 78 kernels the GPU never did)
            raise error
        cause = _cause(text)
        why = ""
        if "hasPrimaryContext" in text:
            # cuda_hooks answers the engine's question; where it could not, it says why
            unanswered = f": {cuda_hooks.NOT_ANSWERED}" if cuda_hooks.NOT_ANSWERED else ""
            why = (
                " without a GPU (tracing its backward needs a CUDA device here: PyTorch's "
                f"autograd engine asks the CUDA runtime{unanswered})"
            )
        elif cause:
            why = f" ({cause})"
        # (a graph dynamo traced and the backend failed to compile: its kernels are lost)
        graph_lost = "InductorError" in text or "BackendCompilerFailed" in text
        from kx_core.compile.capturing.device.placeholders import LEDGER

        # torch's own frame (`inner`, which torch.compile(module) compiles) names nothing
        # the user wrote: the report is placed at the file's calling line
        name = (
            m.group(1)
            if not LEDGER.inside_libraries_file(m.group(2))
            else "the module or function called here"
        )
        self.report(NOT_CAPTURED.format(name=name, why=why), m.group(2), int(m.group(3)), graph_lost)
