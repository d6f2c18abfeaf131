"""Library kernels: a module of kernels and wrappers that launches nothing on import
(Liger, FlagGems, vLLM-style ops). It is imported as a module, not run as __main__; its
kernels are listed with what a call must supply (`kx kernels FILE`), and one is compiled
as a real call with example arguments would compile it (`--arg NAME=VALUE`): the kernel
object the module exports (autotuner, heuristics and all) is called with meta tensors of
the given dtypes, shapes and strides, so Triton's own binder decides the specialization.

Runs inside the capture worker (torch and triton imported, the capture device installed).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import sys
from typing import Any

from kx_core.compile.artifacts.kernel_record import config_of, jit_name, jsonable_value
from kx_core.ir.scalar_uses import float_scalars
from kx_core.records.results import KernelDefinition, KernelParam

# Triton's and torch's spellings of tensor element types.
DTYPES = {
    "fp16": "float16", "f16": "float16", "half": "float16",
    "bf16": "bfloat16",
    "fp32": "float32", "f32": "float32", "float": "float32",
    "fp64": "float64", "f64": "float64", "double": "float64",
    "fp8e4nv": "float8_e4m3fn", "fp8e4m3": "float8_e4m3fn", "fp8e5": "float8_e5m2", "fp8e5m2": "float8_e5m2",
    "fp8e4b8": "float8_e4m3fnuz", "fp8e5b16": "float8_e5m2fnuz",
    "i1": "bool", "bool": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
}  # fmt: skip

# Example: "fp16[256,512]", "bf16[8, 1024]:1024,1", "fp32[]"
_TENSOR_RE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([\d,\s]*)\]\s*(?::\s*([\d,\s]+))?\s*$")


class ArgError(ValueError):
    """An --arg value kx cannot read, or arguments that do not fit the kernel."""


def module_name(path: str) -> tuple[str, str]:
    """(folder to put on sys.path, dotted module name) for a file: inside a package (a
    chain of folders with __init__.py) it is imported as a member of that package, so its
    relative imports work as they do for the library's users."""
    path = os.path.abspath(path)
    folder, stem = os.path.split(path)
    parts = [os.path.splitext(stem)[0]]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.insert(0, pkg)
    return folder, ".".join(parts)


def import_file(path: str) -> Any:
    """Import `path` as a module (not __main__); exceptions propagate."""
    root, name = module_name(path)
    if root not in sys.path:
        sys.path.insert(0, root)
    sys.argv = [path]
    return importlib.import_module(name)


def tensor_spec(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...] | None] | None:
    """('float16', shape, strides or None) for 'fp16[256,512]' or 'fp16[256,512]:1,256';
    None when `text` is not a tensor spelling. Raises ArgError for an unknown dtype."""
    m = _TENSOR_RE.match(text)
    if not m:
        return None
    dtype = DTYPES.get(m.group(1).lower(), m.group(1).lower())
    shape = tuple(int(x) for x in m.group(2).replace(" ", "").split(",") if x)
    strides = tuple(int(x) for x in m.group(3).replace(" ", "").split(",") if x) if m.group(3) else None
    if strides is not None and len(strides) != len(shape):
        raise ArgError(f"{text}: {len(shape)} dimensions but {len(strides)} strides")
    return dtype, shape, strides


# The start of a value meant as a tensor. Example: "fp32[-5]", "fp32[3", "fp16[4,4]:1"
_TENSOR_LIKE_RE = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*\[")


def arg_value_problem(text: str) -> str | None:
    """Why an --arg value is none kx reads, by its spelling alone (no torch: the command
    line checks it before a worker starts): a tensor spelling that does not parse (a
    negative or missing size, no closing bracket, strides that do not match the shape);
    None otherwise."""
    if not _TENSOR_LIKE_RE.match(text):
        return None
    try:
        spec = tensor_spec(text)
    except ArgError as e:
        return str(e)
    if spec is None:
        return (
            "not a tensor: TYPE[SIZES] with sizes of 0 or more, and :STRIDES if any "
            "(fp16[256,512], fp32[64,64]:1,64)"
        )
    return None


def fault_line(e: BaseException) -> str:
    """An exception's last line, from the error under a wrapper (capture's CompileFailure)
    where there is one: "AttributeError: 'str' object has no attribute 'type'"."""
    cause = e.__cause__ or e
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[-1].strip() if lines else ''}"


def bare_word(text: str, value: Any) -> bool:
    """A value read as a string though it was not written as one (`abc`, not `'abc'`):
    a typo for a number as often as a string constexpr."""
    return isinstance(value, str) and text.strip()[:1] not in ("'", '"')


def parse_value(text: str) -> Any:
    """An --arg value: a meta tensor for a tensor spelling, else a Python literal; a
    string naming a tl dtype ('tl.float16', 'fp16') becomes that dtype."""
    import torch

    spec = tensor_spec(text)
    if spec is not None:
        dtype_name, shape, strides = spec
        dtype = getattr(torch, dtype_name, None)
        if not isinstance(dtype, torch.dtype):
            raise ArgError(f"{text}: unknown element type {dtype_name!r} (fp16, bf16, fp32, i32, i64, ...)")
        if strides is None:
            return torch.empty(shape, dtype=dtype, device="cuda")
        return torch.empty_strided(shape, strides, dtype=dtype, device="cuda")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    if isinstance(value, str):
        import triton.language as tl

        name = value.removeprefix("tl.")
        name = _TL_NAMES.get(name, name)
        if isinstance(getattr(tl, name, None), tl.dtype):
            return getattr(tl, name)
    return value


# Triton type spellings -> triton.language dtype names (for dtype constexprs)
_TL_NAMES = {
    "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
    "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "i1": "int1",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
}  # fmt: skip


def parse_grid(text: str | None) -> tuple[int, ...]:
    if not text:
        return (1, 1, 1)
    try:
        dims = tuple(int(x) for x in re.split(r"[x,\s]+", text.strip()) if x)
    except ValueError:
        raise ArgError(f"--grid {text!r}: use 128, 64x8 or 16x16x2") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise ArgError(f"--grid {text!r}: one to three positive sizes")
    return dims


# ----------------------------------------------------------------- definitions


def _chain(obj: Any) -> list[Any]:
    """The decorator chain from the exported object down to the JITFunction."""
    out = [obj]
    while not _is_jit(out[-1]) and hasattr(out[-1], "fn"):
        out.append(out[-1].fn)
    return out


def _is_jit(obj: Any) -> bool:
    from triton.runtime.jit import JITFunction

    return isinstance(obj, JITFunction)


def _suggest(name: str, annotation: str, constexpr: bool, used_as_float: bool = False) -> str:
    """An --arg value to start from, by the parameter's name and, for a scalar, its use
    in the kernel's body (kx_core.ir.scalar_uses; the user edits it)."""
    low = name.lower()
    if constexpr:
        return "128" if ("block" in low or "size" in low or low.startswith("b")) else "1"
    if annotation.startswith("*") or "ptr" in low:
        return "fp32[4096]"
    if annotation.startswith(("fp", "bf")) or used_as_float or _FLOAT_NAME_RE.search(low):
        return "1e-6" if "eps" in low else "1.0"
    return "4096"


# Scalars that are floats by their name, as kernel libraries spell them (a float written
# as 4096 compiles as i32: `alpha`, `beta`, `p` of a dropout, `lr`, `softcap`, ...).
# Example: "alpha", "sm_scale", "dropout_p", "weight_decay", "inv_temperature"
_FLOAT_NAME_RE = re.compile(
    r"(?:^|_)(?:alpha|beta|gamma|eps|epsilon|scale|temperature|temp|momentum|lr|decay|theta|"
    r"sigma|factor|ratio|coef|coeff|softcap|cap|p|prob|rate|mean|std|var|bias|weight|value|val|"
    r"lambda|lambd|tau|margin|threshold|clip|min_val|max_val)(?:_|$|\d)"
)


def definitions(namespace: dict, path: str) -> list[KernelDefinition]:
    """Every kernel defined in `path` that `namespace` (a module's globals) exports."""
    from triton.runtime.jit import KernelInterface

    from kx_core.compile.artifacts.diagnostics import def_line, same_file

    out, seen = [], set()
    for value in list(namespace.values()):
        if not isinstance(value, KernelInterface):
            continue
        chain = _chain(value)
        fn = chain[-1]
        if not _is_jit(fn) or id(fn) in seen or not same_file(fn.fn.__code__.co_filename, path):
            continue
        seen.add(id(fn))
        out.append(_definition(chain, fn, path, def_line(fn)))
    return sorted(out, key=lambda d: d.line or 0)


def _definition(chain: list[Any], fn: Any, path: str, line: int | None) -> KernelDefinition:
    configs, key, heuristics, decorators = [], (), [], []
    provided: dict[str, str] = {}
    for obj in chain:
        kind = type(obj).__name__
        if kind == "Autotuner":
            decorators.append("autotune")
            configs = [config_of(c, i) for i, c in enumerate(obj.configs)]
            key = tuple(getattr(obj, "keys", ()))
            for c in obj.configs:
                provided.update(dict.fromkeys(c.kwargs, "autotune"))
        elif kind == "Heuristics":
            decorators.append("heuristics")
            heuristics = list(obj.values)
            provided.update(dict.fromkeys(obj.values, "heuristics"))
        elif _is_jit(obj):
            decorators.append("jit")
    params = []
    floats = float_scalars(getattr(fn, "_src", None) or getattr(fn, "src", None) or "")
    for p in fn.params:
        raw = p._param
        ann = (
            ""
            if raw.annotation is inspect.Parameter.empty
            else str(getattr(raw.annotation, "__name__", raw.annotation))
        )
        has_default = raw.default is not inspect.Parameter.empty
        by = provided.get(p.name, "")
        suggested = None if (by or has_default) else _suggest(p.name, ann, p.is_constexpr, p.name in floats)
        params.append(
            KernelParam(
                name=p.name,
                constexpr=bool(p.is_constexpr),
                annotation=ann,
                has_default=has_default,
                default=jsonable_value(raw.default) if has_default else None,
                do_not_specialize=bool(p.do_not_specialize),
                provided_by=by,
                suggested=suggested,
            )
        )
    return KernelDefinition(
        name=jit_name(fn),
        file=path,
        line=line,
        params=tuple(params),
        configs=tuple(configs),
        autotune_key=key,
        heuristics=tuple(heuristics),
        decorators=tuple(decorators),
    )


# Launch options a `kernel[grid](..., num_warps=8)` call may pass besides the parameters.
LAUNCH_OPTIONS = frozenset(
    {
        "num_warps",
        "num_stages",
        "num_ctas",
        "maxnreg",
        "enable_fp_fusion",
        "launch_cooperative_grid",
        "launch_pdl",
    }
)


def call_with_args(
    namespace: dict,
    kernel: str,
    args: dict[str, str],
    grid_text: str | None,
    options: dict[str, int] | None = None,
) -> None:
    """Call the exported kernel object named `kernel` with parsed --arg values and launch
    `options` (--num-warps, --num-stages, --maxnreg, or --arg num_warps=8), as a real
    call would (the capture's wrappers record what it compiles)."""
    obj = namespace.get(kernel)
    from triton.runtime.jit import KernelInterface

    if not isinstance(obj, KernelInterface):
        known = ", ".join(sorted(k for k, v in namespace.items() if isinstance(v, KernelInterface))) or "none"
        raise ArgError(f"no @triton.jit kernel named {kernel!r} in the module (kernels: {known})")
    chain = _chain(obj)
    fn = chain[-1]
    names = {p.name for p in fn.params}
    launch_options = {k: v for k, v in (options or {}).items() if v is not None}
    launch_options |= {k: v for k, v in args.items() if k in LAUNCH_OPTIONS and k not in names}
    args = {k: v for k, v in args.items() if k not in launch_options}
    unknown = sorted(set(args) - names)
    if unknown:
        raise ArgError(
            f"{kernel} has no parameter {', '.join(unknown)} (parameters: {', '.join(p.name for p in fn.params)})"
        )
    provided = set()
    for o in chain:
        if type(o).__name__ == "Autotuner":
            provided.update(k for c in o.configs for k in c.kwargs)
        elif type(o).__name__ == "Heuristics":
            provided.update(o.values)
    missing = [
        p.name
        for p in fn.params
        if p.name not in args and p.name not in provided and p._param.default is inspect.Parameter.empty
    ]
    if missing:
        raise ArgError(f"{kernel} needs --arg for {', '.join(missing)} (`kx kernels FILE` suggests values)")
    set_by_configs = sorted(
        k for o in chain if type(o).__name__ == "Autotuner" for k in launch_options if k != "enable_fp_fusion"
    )
    if set_by_configs:
        raise ArgError(
            f"{kernel} is autotuned: its configs set {', '.join(set_by_configs)} "
            "(every config is compiled; leave these out)"
        )
    constexpr = {p.name for p in fn.params if p.is_constexpr}
    values = {}
    for name, text in args.items():  # each fault names its --arg
        try:
            if problem := arg_value_problem(text):
                raise ArgError(problem)
            values[name] = parse_value(text)
        except ArgError as e:
            raise ArgError(f"--arg {name}={text}: {e}") from None
        if isinstance(values[name], str) and name not in constexpr:
            raise ArgError(
                f"--arg {name}={text}: a string, which only a constexpr parameter takes (give a "
                "tensor such as fp16[256,512], a number, True/False/None or a dtype such as fp16)"
            )
    values |= {k: parse_value(v) if isinstance(v, str) else v for k, v in launch_options.items()}
    words = [(name, text) for name, text in args.items() if bare_word(text, values[name])]
    try:
        obj[parse_grid(grid_text)](**values)
    except Exception as e:
        if not words:
            raise
        name, text = words[0]  # the kernel did not compile with a word where a value was meant
        raise ArgError(
            f"--arg {name}={text}: read as the string {text!r}, which {kernel} did not compile with "
            f"({fault_line(e)}); give a number, True/False/None or a dtype (fp16), or quote "
            f"a string: {name}='{text}'"
        ) from None
