"""Direct mode: compile a kernel nothing launches, from a signature, through ASTSource.

SIG spellings accepted (Triton's type names: *fp32, *fp16, *bf16, *i8, i32, i64, fp32...):
  '*fp32,*fp32,*fp32,i32'             the non-constexpr parameters in order; constexpr
                                      values come from --constexpr K=V or defaults
  '*fp32,*fp32,i32,constexpr=1024'    every parameter in order, constexprs as constexpr=V
  'i32:16', 'i32:1', '*fp16:16'       Triton's hints: divisible by 16, equal to 1
What it assumes where a real call would decide (each compiled record says so): pointers
are 16-byte aligned (a fresh torch allocation is), integers are neither divisible by 16
nor equal to 1 unless hinted. `--arg` compiles as a real call with values would.
"""

from __future__ import annotations

import ast
import time
from dataclasses import replace
from typing import Any

from kx_core.records.results import CompileRequest, Diagnostic


class SignatureError(ValueError):
    """A --signature / --constexpr that does not fit the kernel's parameters."""


def parse_constexpr_value(text: str) -> Any:
    """'1024' -> 1024, '0.5' -> 0.5, 'True' -> True, 'tl.float16'/'float16' stay strings."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _dtype_value(value: Any) -> Any:
    """A constexpr given as a dtype name becomes the tl dtype, as a real launch passes it."""
    if isinstance(value, str):
        import triton.language as tl

        name = value.removeprefix("tl.")
        if isinstance(getattr(tl, name, None), tl.dtype):
            return getattr(tl, name)
    return value


ASSUMPTIONS = (
    "compiled from --signature: pointers taken as 16-byte aligned, integers as neither "
    "divisible by 16 nor equal to 1 unless hinted (i32:16, i32:1); a call with real "
    "values may specialize differently (--arg compiles as that call would)"
)


def split_hints(items: list[str]) -> tuple[list[str], dict[int, str]]:
    """('i32:16' -> 'i32', hint '16') for every item; hints by position."""
    types, hints = [], {}
    for i, item in enumerate(items):
        if ":" in item and not item.startswith("constexpr"):
            ty, hint = item.split(":", 1)
            if hint not in ("16", "1"):
                raise SignatureError(f"{item!r}: the hints are ':16' (divisible by 16) and ':1' (equal to 1)")
            if hint == "1" and ty.startswith("*"):
                raise SignatureError(f"{item!r}: a pointer cannot be equal to 1")
            types.append(ty)
            hints[i] = hint
        else:
            types.append(item)
    return types, hints


def build_signature(
    params: list[tuple[str, bool, Any]], sig: str, constexprs: dict[str, str]
) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    """(signature, constexpr values by name, hints by name) for params [(name,
    is_constexpr, default)]. A ':1' hint makes the parameter the constant 1, as Triton's
    specialization of a 1 does; ':16' is a divisibility hint.

    `default` is inspect.Parameter.empty where there is none."""
    import inspect

    items, hint_at = split_hints([s.strip() for s in sig.split(",") if s.strip()])
    runtime = [p for p in params if not p[1]]
    signature: dict[str, str] = {}
    values: dict[str, Any] = {}
    hints: dict[str, str] = {}
    if len(items) == len(params) and len(items) != len(runtime):
        for i, ((name, is_cx, _), item) in enumerate(zip(params, items)):
            if is_cx:
                text = item.split("=", 1)[1] if "=" in item else item
                values[name] = parse_constexpr_value(text)
                signature[name] = "constexpr"
            else:
                signature[name] = item
                if i in hint_at:
                    hints[name] = hint_at[i]
    elif len(items) == len(runtime):
        it = iter(enumerate(items))
        for name, is_cx, _ in params:
            if is_cx:
                signature[name] = "constexpr"
                continue
            i, item = next(it)
            signature[name] = item
            if i in hint_at:
                hints[name] = hint_at[i]
    else:
        names = ", ".join(n for n, cx, _ in runtime)
        raise SignatureError(
            f"signature has {len(items)} types but the kernel has {len(runtime)} "
            f"non-constexpr parameters ({names})"
        )
    for name, is_cx, default in params:
        if not is_cx:
            continue
        if name in constexprs:
            values[name] = parse_constexpr_value(constexprs[name])
        elif name not in values:
            if default is inspect.Parameter.empty:
                raise SignatureError(f"constexpr {name} needs a value: --constexpr {name}=V")
            values[name] = default
    unknown = set(constexprs) - {n for n, cx, _ in params if cx}
    if unknown:
        raise SignatureError(f"--constexpr names no constexpr parameter: {', '.join(sorted(unknown))}")
    for name, hint in list(hints.items()):
        if hint == "1":  # Triton passes a 1 as the constant it is
            signature[name] = "constexpr"
            values[name] = 1
            del hints[name]
    return signature, values, hints


def compile_direct(state: Any, namespace: dict, request: CompileRequest) -> None:
    """Compile request.kernel from request.signature and send its record."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend

    from kx_core.compile.artifacts.kernel_record import kernel_record
    from kx_core.compile.capturing.jit_objects import base_jit, compile_diagnostic, kernel_objects, pass_dumps
    from kx_core.compile.capturing.languages.direct_compiles import not_recorded

    kernels = kernel_objects(namespace, state.user_file)
    if request.kernel not in kernels:
        known = ", ".join(sorted(kernels)) or "none"
        state.send_diagnostic(
            Diagnostic(
                "argument",
                f"--kernel {request.kernel}: no @triton.jit kernel of that name (kernels: {known})",
                state.user_file,
            )
        )
        return
    fn = base_jit(kernels[request.kernel][0])
    params = [(p.name, p.is_constexpr, p._param.default) for p in fn.params]
    try:
        signature, values, hints = build_signature(params, request.signature or "", request.constexprs)
    except SignatureError as e:
        state.send_diagnostic(Diagnostic("argument", str(e), state.user_file, None, None, request.kernel))
        return
    target = state.target
    gpu_target = GPUTarget(target.backend, target.arch, target.warp_size)
    backend = make_backend(gpu_target)
    index = {p.name: p.num for p in fn.params}
    constexprs = {(index[k],): _dtype_value(v) for k, v in values.items()}
    attrs = {
        (index[k],): backend.parse_attr("D")
        for k, t in signature.items()
        if (t.startswith("*") and hints.get(k, "16") == "16") or hints.get(k) == "16"
    }
    options = {}
    if request.num_warps:
        options["num_warps"] = request.num_warps
    if request.num_stages:
        options["num_stages"] = request.num_stages
    if request.maxnreg:
        options["maxnreg"] = request.maxnreg
    state.progress(f"compiling {request.kernel} from its signature")
    start = time.perf_counter()
    try:
        with pass_dumps(state.passes) as dumps, not_recorded():
            kernel = triton.compile(
                ASTSource(fn, signature, constexprs, attrs), target=gpu_target, options=options
            )
    except Exception as e:  # noqa: BLE001 - a compile error becomes a diagnostic
        from kx_core.compile.capturing.library import bare_word, fault_line

        words = [
            (k, t) for k, t in request.constexprs.items() if bare_word(t, constexprs.get((index.get(k),)))
        ]
        if words:  # a word where a value was meant (BLOCK=abc): the command line's fault, named
            k, t = words[0]
            message = (
                f"--constexpr {k}={t}: read as the string {t!r}, which {request.kernel} did not compile "
                f"with ({fault_line(e)}); give a number, True/False or a dtype (fp16), or "
                f"quote a string: {k}='{t}'"
            )
            state.send_diagnostic(
                Diagnostic("argument", message, state.user_file, None, None, request.kernel)
            )
            return
        state.send_diagnostic(compile_diagnostic(e, request.kernel, state.user_file))
        return
    record = kernel_record(
        kernel, fn, target, compile_time_s=time.perf_counter() - start, passes=dumps.passes()
    )
    state.send_kernel(f"direct/{request.kernel}", replace(record, message=ASSUMPTIONS))
