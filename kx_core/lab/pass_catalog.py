"""Every pass the installed triton wheel can run, under its triton-opt name, read from the
wheel itself.

The wheel has no triton-opt and no pass registry, but each pass constructor in its Python
bindings (`triton._C.libtriton.passes.ttgpuir.add_coalesce`, the nvidia and amd ones) adds
the pass to a pass manager whose `get_pipeline_str()` prints it as triton-opt would name it,
with every option. Calling each constructor once with distinct values tells, for this
wheel: the flag (`tritongpu-assign-latencies`), which option each positional argument sets
(`num-stages`), and the options the binding cannot set, with the value it gives them
(`convert-triton-to-tritongpu`'s `enable-source-remat=false`).

    add_pipeline(pm, 101, True)  ->  any(tritongpu-pipeline{dump-intermediate-steps=true num-stages=101})

Options a RUN line leaves out take triton-opt's defaults (TRITON_OPT_DEFAULTS, from the
passes' TableGen definitions): the bindings have no defaults to read.

Needs triton: runs in workers only (the window never imports triton)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from kx_core.base.jsonable import Jsonable

# triton-opt's defaults for the options the bindings take positionally, as the Passes.td
# files declare them (`Option<"numStages", "num-stages", "int32_t", /*default*/"3",
# ...>`), checked against that file; the defaults of a binding that also has a form
# without arguments are read from the wheel instead (PassEntry.wheel_defaults). An option
# known to neither must be given on the RUN line: kx says so rather than guess.
TRITON_OPT_DEFAULTS: dict[tuple[str, str], str] = {
    ("tritongpu-assign-latencies", "num-stages"): "3",
    ("tritongpu-pipeline", "num-stages"): "3",
    ("tritongpu-pipeline", "dump-intermediate-steps"): "false",
    ("tritongpu-automatic-warp-specialization", "num-stages"): "3",
    ("tritongpu-optimize-dot-operands", "hoist-layout-conversion"): "true",
    ("tritongpu-hoist-tmem-alloc", "post-pipeline"): "false",
    ("tritongpu-F32DotTC", "emu-tf32"): "false",
    # target has no default: triton-opt fails without it, and so does the pass here
    ("convert-triton-to-tritongpu", "target"): "",
    ("convert-triton-to-tritongpu", "num-warps"): "4",
    ("convert-triton-to-tritongpu", "threads-per-warp"): "32",
    ("convert-triton-to-tritongpu", "num-ctas"): "1",
    # TritonNvidiaGPU's Passes.td
    ("triton-nvidia-gpu-fence-insertion", "compute-capability"): "90",
    ("triton-nvidia-gpu-proxy-fence-insertion", "compute-capability"): "90",
    # NVIDIA's lowering, third_party/nvidia/include/TritonNVIDIAGPUToLLVM/Passes.td (read
    # at triton-lang/triton 00a287a, whose options are this wheel's, name for name)
    ("convert-triton-gpu-to-llvm", "compute-capability"): "80",
    ("convert-triton-gpu-to-llvm", "ptx-version"): "80",
    ("convert-triton-gpu-to-llvm", "enable-concurrency-sanitizer"): "false",
    ("allocate-shared-memory-nv", "compute-capability"): "80",
    ("allocate-shared-memory-nv", "ptx-version"): "80",
    ("initialize-ws-cluster-barriers", "compute-capability"): "80",
    ("initialize-ws-cluster-barriers", "ptx-version"): "80",
}

# Example: "any(tritongpu-pipeline{dump-intermediate-steps=true num-stages=101})",
# "any(llvm.func(canonicalize-llvm-ir))", "any(tt.func(tritonamdgpu-canonicalize-pointers{...}))"
_PIPELINE_RE = re.compile(r"^any\((?:[\w.]+\()?([\w.-]+)(?:\{(.*)\})?\)?\)$", re.S)
# Example: "add_pipeline(arg0: triton._C.libtriton.ir.pass_manager, arg1: typing.SupportsInt | typing.SupportsIndex, arg2: bool) -> None"
_SIGNATURE_RE = re.compile(r"^\s*(?:\d+\.\s*)?(add_\w+)\((.*)\)\s*->")
_MODULES = ("passes", "nvidia.passes", "amd.passes")


@dataclass(frozen=True)
class PassEntry(Jsonable):
    flag: str  # triton-opt's name: "tritongpu-assign-latencies"
    function: str  # the binding: "passes.ttgpuir.add_assign_latencies"
    params: tuple[str, ...] = ()  # the option each positional argument sets, in order
    kinds: tuple[str, ...] = ()  # "int" | "bool" | "str", one per param
    fixed: tuple[tuple[str, str], ...] = ()  # options the binding prints but cannot set
    # what the binding's form without arguments gives each option (an overloaded binding)
    wheel_defaults: tuple[tuple[str, str], ...] = ()

    def default(self, option: str) -> str | None:
        return dict(self.wheel_defaults).get(option, TRITON_OPT_DEFAULTS.get((self.flag, option)))


def parse_options(text: str) -> dict[str, str]:
    """`a=1 b=x` (also `{a=1 b=x}`) as a dict; `b` alone means `b=true` (MLIR's flags)."""
    out = {}
    for item in text.replace("{", " ").replace("}", " ").split():
        key, eq, value = item.partition("=")
        out[key] = value if eq else "true"
    return out


def _kind(annotation: str) -> str:
    return "str" if "str" in annotation else "bool" if "bool" in annotation else "int"


def _signatures(fn) -> list[tuple[str, ...]]:
    """The kinds of each overload's arguments after the pass manager."""
    out = []
    for line in (fn.__doc__ or "").splitlines():
        m = _SIGNATURE_RE.match(line)
        if m:
            args = [a.split(":", 1)[1] for a in re.split(r",\s*(?=arg\d+:)", m.group(2)) if ":" in a]
            out.append(tuple(_kind(a) for a in args[1:]))
    return out or [()]


def _printed(ir, context, fn, values) -> tuple[str, dict[str, str]]:
    pm = ir.pass_manager(context)
    fn(pm, *values)
    m = _PIPELINE_RE.match(pm.get_pipeline_str().strip())
    if not m:
        raise ValueError(pm.get_pipeline_str())
    return m.group(1), parse_options(m.group(2) or "")


def _sentinels(kinds: tuple[str, ...], true_at: int | None = None) -> list:
    values: list = []
    for i, kind in enumerate(kinds):
        values.append(f"S{i}" if kind == "str" else (i == true_at) if kind == "bool" else 101 + i)
    return values


def _entry(ir, context, function: str, fn, kinds: tuple[str, ...]) -> PassEntry:
    flag, base = _printed(ir, context, fn, _sentinels(kinds))
    params: list[str] = []
    for i, kind in enumerate(kinds):
        if kind == "bool":  # the option that turns true with this argument alone
            _, flipped = _printed(ir, context, fn, _sentinels(kinds, true_at=i))
            hits = [k for k, v in flipped.items() if v == "true" and base.get(k) != "true"]
        else:
            want = f"S{i}" if kind == "str" else str(101 + i)
            hits = [k for k, v in base.items() if v == want]
        if len(hits) != 1:
            raise ValueError(f"{function}: argument {i + 1} sets {hits or 'no option'}")
        params.append(hits[0])
    fixed = tuple(sorted((k, v) for k, v in base.items() if k not in params))
    return PassEntry(flag, function, tuple(params), kinds, fixed)


@lru_cache(maxsize=1)
def catalog() -> dict[str, PassEntry]:
    """flag -> PassEntry for every pass constructor of the installed wheel. An overloaded
    constructor keeps its widest form (every option it can set)."""
    import importlib

    from triton._C.libtriton import ir

    context = ir.context()
    ir.load_dialects(context)
    out: dict[str, PassEntry] = {}
    for module_name in _MODULES:
        try:
            module = importlib.import_module(f"triton._C.libtriton.{module_name}")
        except ImportError:  # a wheel without this backend
            continue
        for group in sorted(n for n in dir(module) if not n.startswith("_")):
            sub = getattr(module, group)
            for name in sorted(n for n in dir(sub) if n.startswith("add_")):
                fn = getattr(sub, name)
                function = f"{module_name}.{group}.{name}"
                forms = sorted(_signatures(fn), key=len, reverse=True)
                try:
                    entry = _entry(ir, context, function, fn, forms[0])
                    if len(forms) > 1 and forms[-1] == ():  # also callable bare: its defaults
                        entry = replace(
                            entry, wheel_defaults=tuple(sorted(_printed(ir, context, fn, [])[1].items()))
                        )
                except (TypeError, ValueError, RuntimeError):
                    continue  # a constructor that cannot be called bare: not a triton-opt pass
                out.setdefault(entry.flag, entry)
    return dict(sorted(out.items()))


def load_all_dialects(context) -> None:
    """Every dialect the wheel has (Triton's, NVIDIA's, AMD's), as triton-opt registers
    them all: a test of an nvidia or amdgpu op parses either way."""
    import importlib

    from triton._C.libtriton import ir

    ir.load_dialects(context)
    for backend in ("nvidia", "amd"):
        try:
            importlib.import_module(f"triton._C.libtriton.{backend}").load_dialects(context)
        except (ImportError, AttributeError):  # a wheel without this backend
            pass


def can_allow_unregistered() -> bool:
    """Whether allow_unregistered_dialects can reach this wheel's MLIRContext."""
    from triton._C.libtriton import ir

    return hasattr(ir.context, "_pybind11_conduit_v1_") and _allow_symbol() is not None


def _allow_symbol():
    import ctypes

    import triton._C.libtriton as libtriton

    try:  # mlir::MLIRContext::allowUnregisteredDialects(bool), exported by libtriton
        fn = ctypes.CDLL(libtriton.__file__)._ZN4mlir11MLIRContext25allowUnregisteredDialectsEb
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_bool], None
    return fn


def allow_unregistered_dialects(context) -> None:
    """triton-opt's -allow-unregistered-dialect on a context of the wheel's bindings,
    which do not bind it: MLIR's own method, called through ctypes on the MLIRContext the
    pybind11 object holds (its first field after the object header; checked by
    can_allow_unregistered, and run in a worker, so a wrong guess costs that worker)."""
    import ctypes

    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    _allow_symbol()(pointer, True)


def constructor(function: str):
    """The binding named by a PassEntry.function."""
    import importlib

    module_name, group, name = function.rsplit(".", 2)
    return getattr(getattr(importlib.import_module(f"triton._C.libtriton.{module_name}"), group), name)
