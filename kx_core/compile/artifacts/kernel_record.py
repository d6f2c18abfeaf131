"""Triton's CompiledKernel -> kx's CompiledKernel (stages, resources, launch record).

Runs inside the worker, where triton and torch are imported.
"""

from __future__ import annotations

import base64
import inspect
from typing import Any

from kx_core.compile.artifacts import resources
from kx_core.compile.artifacts.diagnostics import def_line
from kx_core.compile.artifacts.helion_generated import helion_generated
from kx_core.records.backends import compiler_stages
from kx_core.records.results import (
    AutotuneConfig,
    CompiledKernel,
    KernelMetadata,
    Launch,
    LaunchArg,
    PassDump,
    Specialization,
    Target,
)

TEXT_STAGES = compiler_stages()  # the text stages Triton writes; SASS and ELF are derived later
# Metadata fields kept verbatim under metadata.extra when they are plain JSON values.
EXTRA_FIELDS = (
    "name",
    "cluster_dims",
    "tmem_size",
    "global_scratch_size",
    "global_scratch_align",
    "profile_scratch_size",
    "launch_cooperative_grid",
    "launch_pdl",
    "arch",
    "ptx_version",
    "maxnreg",
    "enable_fp_fusion",
    "triton_version",
)


def jsonable_value(value: Any) -> Any:
    """A plain JSON value for a constexpr or scalar argument (dtypes become strings)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    inner = getattr(value, "value", None)  # tl.constexpr wraps its value
    if inner is not None and isinstance(inner, (bool, int, float, str)):
        return inner
    if isinstance(value, (tuple, list)):
        return [jsonable_value(v) for v in value]
    return str(value)


def describe_arg(name: str, value: Any, constexpr: bool) -> LaunchArg:
    if constexpr:
        return LaunchArg(name, "constexpr", value=jsonable_value(value))
    if hasattr(value, "data_ptr") and hasattr(value, "dtype") and hasattr(value, "shape"):
        return LaunchArg(
            name,
            "tensor",
            dtype=str(value.dtype).replace("torch.", ""),
            shape=tuple(int(s) for s in value.shape),
            strides=tuple(int(s) for s in value.stride()) if hasattr(value, "stride") else None,
        )
    if value is None:
        return LaunchArg(name, "none")
    if isinstance(value, bool):
        return LaunchArg(name, "bool", value=value)
    if isinstance(value, int):
        return LaunchArg(name, "int", value=value)
    if isinstance(value, float):
        return LaunchArg(name, "float", value=value)
    return LaunchArg(name, "other", value=jsonable_value(value))


def bind_arguments(jit_fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Parameter name -> value for a launch, defaults applied; launch options dropped."""
    names = [p.name for p in jit_fn.params]
    sig = jit_fn.signature if isinstance(jit_fn.signature, inspect.Signature) else None
    picked = {k: v for k, v in kwargs.items() if k in names}
    if sig is None:
        return dict(zip(names, args)) | picked
    bound = sig.bind_partial(*args, **picked)
    bound.apply_defaults()
    return dict(bound.arguments)


def describe_launch(
    jit_fn: Any,
    args: tuple,
    kwargs: dict,
    grid: tuple[int, int, int] | None,
    kernel: Any,
    warmup: bool = False,
) -> Launch:
    """The launch record; `warmup`: compiled by warmup(), no grid yet."""
    values = bind_arguments(jit_fn, args, kwargs)
    launch_args, constexprs = [], {}
    for p in jit_fn.params:
        value = values.get(p.name)
        launch_args.append(describe_arg(p.name, value, p.is_constexpr))
        if p.is_constexpr:
            constexprs[p.name] = jsonable_value(value)
    md = kernel.metadata
    return Launch(
        grid=grid or (0, 0, 0),
        args=tuple(launch_args),
        constexprs=constexprs,
        num_warps=int(md.num_warps),
        num_stages=int(md.num_stages),
        warmup=warmup,
    )


def signature_of(jit_fn: Any) -> dict[str, str]:
    """Parameter -> annotation ('constexpr' for constexprs, '' where unannotated)."""
    out = {}
    for p in jit_fn.params:
        if p.is_constexpr:
            out[p.name] = "constexpr"
        else:
            ann = p._param.annotation
            out[p.name] = "" if ann is inspect.Parameter.empty else str(getattr(ann, "__name__", ann))
    return out


def jit_name(jit_fn: Any) -> str:
    return getattr(getattr(jit_fn, "fn", None), "__name__", None) or str(jit_fn)


def source_location(jit_fn: Any) -> tuple[str | None, int | None]:
    code = getattr(getattr(jit_fn, "fn", None), "__code__", None)
    return (code.co_filename if code else None), def_line(jit_fn)


def config_of(cfg: Any, index: int) -> AutotuneConfig:
    """kx's AutotuneConfig for a triton.Config."""
    return AutotuneConfig(
        index=index,
        kwargs={k: jsonable_value(v) for k, v in cfg.kwargs.items()},
        num_warps=int(cfg.num_warps),
        num_stages=int(cfg.num_stages),
        num_ctas=int(getattr(cfg, "num_ctas", 1) or 1),
        maxnreg=getattr(cfg, "maxnreg", None),
    )


# Options of a compile that change the code (others are defaults or derived): a launch's
# or a config's, and those a caller of triton.compile sets (Inductor turns
# sanitize_overflow off and sets launch_pdl; AMD configs set waves_per_eu, kpack and
# matrix_instr_nonkdim). Each is in Triton's cache key: a repro or a replay that leaves
# one out compiles another kernel (kx_core.lab.repro).
_OPTION_FIELDS = (
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "enable_fp_fusion",
    "debug",
    "sanitize_overflow",
    "enable_reflect_ftz",
    "launch_cooperative_grid",
    "launch_pdl",
    "default_dot_input_precision",
    "waves_per_eu",
    "kpack",
    "matrix_instr_nonkdim",
)


def _param_path(names: list[str], path: tuple) -> str:
    head = names[path[0]] if path and path[0] < len(names) else str(path[0])
    return ".".join([head, *(str(p) for p in path[1:])])


def specialization_of(kernel: Any, jit_fn: Any) -> Specialization | None:
    """The ASTSource inputs of a compiled kernel, by parameter name."""
    src = getattr(kernel, "src", None)
    if src is None or not hasattr(src, "signature"):
        return None
    names = [p.name for p in jit_fn.params]
    md = kernel.metadata
    return Specialization(
        signature={str(k): str(v) for k, v in src.signature.items()},
        constexprs={
            _param_path(names, k): jsonable_value(v) for k, v in getattr(src, "constants", {}).items()
        },
        attrs={_param_path(names, k): jsonable_value(v) for k, v in getattr(src, "attrs", {}).items()},
        options={f: jsonable_value(getattr(md, f)) for f in _OPTION_FIELDS if hasattr(md, f)},
    )


def gluon_ir(kernel: Any) -> str | None:
    """A Gluon kernel's module as Gluon's frontend wrote it, before any pass: Triton's
    compile keeps it in its cache as NAME.source (a Triton kernel's is its TTIR before
    the TTIR passes, not shown: TTIR after them is). None for other kernels or when the
    cache no longer holds it."""
    if type(getattr(kernel, "src", None)).__name__ != "GluonASTSource":
        return None
    md = kernel.metadata
    try:
        from triton.runtime.cache import get_cache_manager

        path = get_cache_manager(md.hash).get_file(f"{md.name}.source")
        if path is None:
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, AttributeError, ImportError, UnicodeDecodeError):
        return None


def kernel_record(
    kernel: Any,
    jit_fn: Any,
    target: Target,
    *,
    launch: Launch | None = None,
    config: AutotuneConfig | None = None,
    compile_time_s: float | None = None,
    passes: tuple[PassDump, ...] = (),
) -> CompiledKernel:
    """Every text stage, the cubin, resources and metadata of a compiled kernel."""
    asm = kernel.asm
    stages = {k: asm[k] for k in TEXT_STAGES if k in asm and isinstance(asm[k], str)}
    if (gluon := gluon_ir(kernel)) is not None:
        stages = {"gluon": gluon, **stages}
    md = kernel.metadata
    notes = []
    binaries = {}
    if "cubin" in asm:
        # SASS is derived from the cubin later, on demand (sass.py): nvdisasm's start-up
        # alone costs more than compiling a small kernel.
        binaries["cubin"] = base64.b64encode(asm["cubin"]).decode("ascii")
        usage = resources.cubin_resources(asm["cubin"], getattr(md, "name", None))
    elif "amdgcn" in asm:
        usage = resources.parse_amdgcn_resources(asm["amdgcn"])
    else:
        usage = resources.ResourceUsage(reason="no binary stage")
    if usage.reason:
        notes.append(usage.reason)
    extra = {}
    for name in EXTRA_FIELDS:
        if hasattr(md, name):
            value = jsonable_value(getattr(md, name))
            extra[name] = value
    if usage.sgprs is not None:
        extra["sgprs"] = usage.sgprs
    if notes:
        extra["notes"] = notes
    metadata = KernelMetadata(
        num_warps=int(md.num_warps),
        num_stages=int(md.num_stages),
        num_ctas=int(getattr(md, "num_ctas", 1)),
        shared=int(md.shared),
        registers=usage.registers,
        spills=usage.spills,
        local=usage.local,
        stack=usage.stack,
        hash=getattr(md, "hash", None) or getattr(kernel, "hash", None),
        extra=extra,
    )
    file, line = source_location(jit_fn)
    line_maps = {}
    if (helion := helion_generated(file)) is not None:
        text, line_maps = helion
        stages = {"helion": text, **stages}
    return CompiledKernel(
        name=jit_name(jit_fn),
        status="compiled",
        target=target,
        source_file=file,
        source_line=line,
        config=config,
        launch=launch,
        stages=stages,
        binaries=binaries,
        metadata=metadata,
        passes=passes,
        signature=signature_of(jit_fn),
        specialization=specialization_of(kernel, jit_fn),
        compile_time_s=compile_time_s,
        source_line_map=line_maps,
    )
