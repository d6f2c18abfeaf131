"""`kx repro`: a standalone script that compiles one captured kernel as the capture did
(issue 54, "a reproducer"). The script carries the kernel's source and what it needs
(kx_core.lab.repro_source), the captured launch as data (CAPTURE) and the runtime that
launches or compiles it (kx_core.lab.repro_runtime); on a GPU machine with torch and
triton it prints Triton's hash beside the captured one and exits 0 when they are equal.

Two modes (repro_types.REPRO_MODES): a kernel launched through `JITFunction.run` (plain,
autotuned, heuristics, Gluon) is launched bare, with the config's and the heuristics'
values as arguments, on tensors whose alignment is the captured one (a pointer Triton did
not find 16-byte aligned gets a storage offset of one element); a kernel compiled with
`triton.compile` (Inductor's) is compiled again from its recorded specialization, since
kx records no tensor sizes for it.
"""

from __future__ import annotations

import ast
import json
import math
import os
from pathlib import Path
from typing import Any

from kx_core.lab.repro_source import EmbeddedSource, embed_kernel
from kx_core.lab.repro_types import Repro, ReproChoiceError, ReproError
from kx_core.records.backends import BACKENDS
from kx_core.records.results import CompiledKernel, CompileResult, LaunchArg, Specialization

RUNTIME_MARKER = "# ---- repro runtime (copied into each script below this line) ----"
# Launch-argument kinds a script can make (kernel_record.describe_arg's kinds)
_SCALAR_KINDS = ("int", "float", "bool", "none")


def repro_script(result: CompileResult, which: CompiledKernel | int | str) -> str:
    """The script for one kernel of `result`: a record, its index in result.kernels or
    its display name ('matmul_kernel[BLOCK_M=64,...]'). Raises ReproError."""
    return make_repro(result, which).script


def make_repro(
    result: CompileResult, which: CompiledKernel | int | str, sources: dict[str, str] | None = None
) -> Repro:
    """The repro of one kernel of `result`. `sources`: file path -> the text that was
    compiled where it is not the file on disk (the editor's unsaved text). Raises
    ReproError saying why where kx cannot write one that compiles the same kernel."""
    kernel = _resolve(result, which)
    hash_, spec = _checked(kernel)
    text, file, line = _kernel_text(kernel, sources or {})
    mode = "launch" if _launch_known(kernel) else "compile"
    _no_tuple_parameters(kernel, spec)
    embedded = embed_kernel(text, file, kernel.name, line, extra=_jit_values(kernel, spec))
    capture = _capture(kernel, spec, mode, hash_, file, result.triton_version)
    script = _script(capture, embedded, kernel, result)
    return Repro(script, kernel.display_name, hash_, mode, file, kernel.target.spec)


# ----------------------------------------------------------------- which kernel


def pick_kernel(
    result: CompileResult, name: str | None, config: str | None = None, index: int | None = None
) -> CompiledKernel:
    """The compiled record named `name` (any name when None), of the autotune config whose
    full or short label is `config`, the `index`-th (from 0) of those left where several
    are. Raises ReproChoiceError listing the choices where that is not one record, and
    ReproError where the kernel named compiled nothing."""
    compiled = [k for k in result.kernels if k.status == "compiled"]
    named = [k for k in compiled if name is None or k.name == name]
    if not named:
        others = [k for k in result.kernels if k.name == name]
        if others:
            raise ReproError(f"{name} is {others[0].status}, not compiled: there is no kernel to reproduce")
        names = ", ".join(sorted({k.name for k in compiled})) or "none"
        raise ReproChoiceError(f"no compiled kernel named {name!r} (compiled: {names})")
    chosen = named
    if config is not None:
        chosen = [k for k in named if k.config and config in (k.config.label, k.config.short_label)]
        if not chosen:
            raise ReproChoiceError(f"no config {config!r} of {name}; {_choices(named, 'config')}")
    if index is not None:
        if not 0 <= index < len(chosen):
            raise ReproChoiceError(f"--index {index} is out of range; {_choices(chosen, 'index')}")
        return chosen[index]
    if len(chosen) > 1:
        raise ReproChoiceError(f"{len(chosen)} launches match: name one; {_choices(chosen, 'index')}")
    return chosen[0]


def _choices(kernels: list[CompiledKernel], by: str) -> str:
    """'the choices: --index 0: k[BLOCK=64,w4,s3] grid 64x1x1 (x_ptr%16); ...' (by index)
    or "the configs: 'BLOCK=64,w4,s3'; ..." (by config) for a message."""
    if by == "config":
        labels = sorted({k.config.label for k in kernels if k.config})
        return "its configs: " + ("; ".join(repr(label) for label in labels) or "none (not autotuned)")
    from kx_core.records.specialization_words import telling_apart

    words = telling_apart(kernels)
    rows = [
        f"--index {i}: {k.display_name} grid {k.grid_text()}" + (f" ({words[i]})" if i in words else "")
        for i, k in enumerate(kernels)
    ]
    return "the choices: " + "; ".join(rows)


def _resolve(result: CompileResult, which: CompiledKernel | int | str) -> CompiledKernel:
    if isinstance(which, CompiledKernel):
        return which
    if isinstance(which, int):
        if not 0 <= which < len(result.kernels):
            raise ReproChoiceError(f"kernel index {which} is out of range (0 to {len(result.kernels) - 1})")
        return result.kernels[which]
    named = [k for k in result.kernels if which in (k.display_name, k.short_name)]
    if len(named) == 1:
        return named[0]
    return pick_kernel(result, which)


# ----------------------------------------------------------------- what the record holds


def _checked(kernel: CompiledKernel) -> tuple[str, Specialization]:
    """The record's hash and specialization; ReproError where the record cannot be
    reproduced (not compiled, not a Triton kernel, no hash)."""
    if kernel.status != "compiled":
        raise ReproError(
            f"{kernel.display_name} is {kernel.status}, not compiled: there is no kernel to reproduce"
        )
    backend = BACKENDS.get(kernel.target.backend)  # a record's target may name none kx knows
    if backend is None or not backend.gpu:
        raise ReproError(
            f"{kernel.display_name} is a {kernel.target.spec} build, not a Triton kernel for a GPU"
        )
    spec = kernel.specialization
    if spec is None or not spec.signature:
        raise ReproError(
            f"{kernel.display_name} has no Triton specialization recorded (a CuTe, TileLang or C++ kernel, "
            "or a record of a real run): kx repro writes scripts for Triton kernels kx compiled"
        )
    hash_ = kernel.metadata.hash if kernel.metadata else None
    if not hash_:
        raise ReproError(
            f"{kernel.display_name} has no Triton hash recorded: nothing to compare a repro with"
        )
    return hash_, spec


def _launch_known(kernel: CompiledKernel) -> bool:
    """Every argument of the launch known (tensors' shapes and strides, scalars' values):
    a `JITFunction.run` launch. Inductor's triton.compile records types only."""
    launch = kernel.launch
    if launch is None or not launch.args:
        return False
    for a in launch.args:
        if a.kind == "tensor" and (a.shape is None or a.dtype is None):
            return False
        if a.kind in ("int", "float", "bool") and a.value is None:
            return False
    return True


def _no_tuple_parameters(kernel: CompiledKernel, spec: Specialization) -> None:
    keys = [*spec.signature, *spec.constexprs, *spec.attrs]
    nested = sorted({k.split(".")[0] for k in keys if "." in k})
    if nested:
        raise ReproError(
            f"{kernel.display_name} takes tuple arguments ({', '.join(nested)}): kx repro does not rebuild them yet"
        )


def _kernel_text(kernel: CompiledKernel, sources: dict[str, str]) -> tuple[str, str, int | None]:
    """(the text of the file the kernel is defined in, its path, the kernel's line in it).
    A kernel whose module is a string in the user's file (an Inductor output_code.py:
    `source_alias`) is read from the generated module, or from the string where that is
    gone."""
    if not kernel.source_file:
        raise ReproError(f"{kernel.display_name} has no source file recorded")
    for generated, offset in kernel.source_alias.items():
        line = kernel.source_line - offset if kernel.source_line else None
        if generated in sources or os.path.exists(generated):
            return _read(generated, sources), generated, line
        outer = _read(kernel.source_file, sources)
        return _module_string(outer, kernel, generated), generated, line
    return _read(kernel.source_file, sources), kernel.source_file, kernel.source_line


def _read(path: str, sources: dict[str, str]) -> str:
    if path in sources:
        return sources[path]
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        what = "Inductor's generated module" if "torchinductor" in path else "the kernel's file"
        raise ReproError(
            f"{what} {path} cannot be read ({e.strerror or e}): compile again where it is"
        ) from None


def _module_string(outer: str, kernel: CompiledKernel, generated: str) -> str:
    """The string of `outer` (an output_code.py) that holds the kernel's module."""
    try:
        tree = ast.parse(outer)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    needle = f"def {kernel.name}("
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and needle in node.value:
            return node.value
    raise ReproError(f"{generated} is gone and {kernel.source_file} holds no module defining {kernel.name}")


# A @jit function passed as a constexpr, as kernel_record.jsonable_value writes it.
# Example: "JITFunction(__main__:leaky_relu)"
_JIT_VALUE = "JITFunction("


def _jit_values(kernel: CompiledKernel, spec: Specialization) -> tuple[str, ...]:
    """Names of @jit functions the launch passed as constexprs: they come along too."""
    values = list(spec.constexprs.values())
    if kernel.launch:
        values += [a.value for a in kernel.launch.args if a.kind == "constexpr"]
    names = {
        v[len(_JIT_VALUE) : -1].rsplit(":", 1)[-1]
        for v in values
        if isinstance(v, str) and v.startswith(_JIT_VALUE) and v.endswith(")")
    }
    return tuple(sorted(names))


# ----------------------------------------------------------------- the launch as data


def _capture(
    kernel: CompiledKernel, spec: Specialization, mode: str, hash_: str, file: str, triton_version: str
) -> dict[str, Any]:
    target = kernel.target
    capture: dict[str, Any] = {
        "kernel": kernel.display_name,
        "function": kernel.name,
        "mode": mode,
        "expected_hash": hash_,
        "target": [target.backend, target.arch, target.warp_size],
        "target_spec": target.spec,
        "source_file": file,
        "triton": triton_version,
        "options": _options(kernel, spec),
    }
    if mode == "launch":
        launch = kernel.launch
        capture["grid"] = list(launch.grid)
        capture["warmup"] = launch.warmup
        capture["args"] = [_argument(a, spec, kernel) for a in launch.args]
    else:
        capture["grid"] = list(kernel.launch.grid) if kernel.launch else [0, 0, 0]
        capture["signature"] = dict(spec.signature)
        capture["constexprs"] = dict(spec.constexprs)
        capture["attrs"] = {k: [list(a) for a in v] for k, v in spec.attrs.items()}
    return capture


def _options(kernel: CompiledKernel, spec: Specialization) -> dict[str, Any]:
    """The compile options as recorded (the config's warps and stages among them); the
    launch's warps and stages where the record has none."""
    options = {k: v for k, v in spec.options.items() if v is not None}
    if kernel.launch:
        options.setdefault("num_warps", kernel.launch.num_warps)
        options.setdefault("num_stages", kernel.launch.num_stages)
    return options


def _argument(arg: LaunchArg, spec: Specialization, kernel: CompiledKernel) -> dict[str, Any]:
    """One launch argument as the script's runtime builds it (repro_runtime.launch)."""
    if arg.kind == "tensor":
        return {
            "name": arg.name,
            "kind": "tensor",
            "dtype": arg.dtype,
            "shape": list(arg.shape or ()),
            "strides": list(arg.strides) if arg.strides is not None else None,
            "offset": 0 if _aligned(spec.attrs.get(arg.name)) else 1,
        }
    if arg.kind == "constexpr" or arg.kind in _SCALAR_KINDS:
        return {"name": arg.name, "kind": arg.kind, "value": arg.value}
    raise ReproError(
        f"{kernel.display_name}'s argument {arg.name} is {arg.value!r} ({arg.kind}): kx repro rebuilds "
        "tensors, numbers, booleans, None and constexprs"
    )


def _aligned(attrs: list | None) -> bool:
    """Triton found the pointer 16-byte aligned: ['tt.divisibility', 16] among its attrs."""
    return any(isinstance(a, (list, tuple)) and a[:1] == ["tt.divisibility"] for a in attrs or ())


# ----------------------------------------------------------------- the script


def _script(
    capture: dict[str, Any], embedded: EmbeddedSource, kernel: CompiledKernel, result: CompileResult
) -> str:
    where = f"{embedded.file}" + (f", line {kernel.source_line}" if kernel.source_line else "")
    if capture["mode"] == "launch":
        how = (
            f"launch: the bare @jit function on grid {'x'.join(map(str, capture['grid']))}, with tensors "
            "of the captured dtypes, shapes, strides and alignment (random floats, zero integers)"
        )
    else:
        how = (
            "compile: triton.compile(ASTSource(...)) of the recorded specialization for "
            f"{capture['target_spec']}, as Inductor compiles it; not launched (no tensor sizes recorded)"
        )
    header = [
        "#!/usr/bin/env python3",
        f'"""Repro of {_doc(kernel.display_name)}, as the capture compiled it.',
        "",
        "`python3 THIS_FILE` needs torch and triton only. It compiles the kernel from the source",
        "below as the capture did and compares Triton's hash (its cache key) with the captured",
        "one: exit 0 the same, 1 different, 2 nothing compiled (no GPU, an error).",
        "",
        f"kernel    {_doc(kernel.display_name)}",
        f"from      {_doc(where)}",
        f"target    {capture['target_spec']}, Triton {_doc(result.triton_version)} in the capture",
        f"mode      {_doc(how)}",
    ]
    if kernel.after_placeholder is not None:
        header.append(
            f"caveat    launched after {_doc(kernel.after_placeholder.describe())}, which the capture "
            "answered without data: a real run's launch may differ"
        )
    if embedded.dropped:
        header.append(
            f"left out {', '.join('@' + d for d in embedded.dropped)}: the values they chose are arguments below"
        )
    header += [
        '"""',
        "",
        "# What the capture saw: the launch's arguments, options and grid, Triton's hash.",
        "CAPTURE = " + _capture_literal(capture),
        "",
        "# The kernel's file: the kernel, what it calls and the names it reads, each at its",
        "# line in the original (Triton's hash counts a function's first line); other lines blank.",
        "SOURCE = " + _string_literal(embedded.text),
        "",
        "# ---- how it runs: the same in every repro ----",
    ]
    return (
        "\n".join(header)
        + _runtime_text()
        + '\n\nif __name__ == "__main__":\n    sys.exit(run(CAPTURE, SOURCE))\n'
    )


def _doc(text: str) -> str:
    """Text safe inside the script's docstring."""
    return str(text).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _runtime_text() -> str:
    text = Path(__file__).with_name("repro_runtime.py").read_text(encoding="utf-8")
    return text.split(RUNTIME_MARKER, 1)[1]


def _literal(value: Any) -> str:
    """Python source for a JSON-like value (non-finite floats included)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a valid Python literal, double-quoted
    return repr(value)


def _capture_literal(capture: dict[str, Any]) -> str:
    """CAPTURE, one key a line and one argument a line, for a reader (and an editor)."""
    rows = []
    for key, value in capture.items():
        if key == "args":
            inner = "".join(f"        {_literal(a)},\n" for a in value)
            rows.append(f"    {_literal(key)}: [\n{inner}    ],")
        else:
            rows.append(f"    {_literal(key)}: {_literal(value)},")
    return "{\n" + "\n".join(rows) + "\n}"


def _string_literal(text: str) -> str:
    """`text` as a triple-quoted literal that evaluates to it, its first line first."""
    for quote in ("'''", '"""'):
        if quote not in text and not text.endswith(quote[0]):
            return quote + "\\\n" + text.replace("\\", "\\\\") + quote
    return repr(text)
