"""Every launch of a compile's kernels, one row per (compiled kernel, grid, calling line),
and what differs from the launch of the same kernel listed before it (the Launches pane,
`kx`'s answer to tritonparse's launch list)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from kx_core.records.results import CompiledKernel, CompileResult, LaunchArg

# the columns a row can differ in from the row of the same kernel above it
COLUMNS = ("grid", "arguments", "specialization")


@dataclass(frozen=True)
class LaunchRow:
    kernel: str  # the kernel's name
    variant: str  # its config and specialization, as the Kernels pane names the record
    grid: str  # '16x1x1'
    count: int  # launches at this grid from this line
    called_at: str  # 'matmul.py:326 (file line 34)'
    line: int | None  # the compiled file's line, where the launch is on its stack
    arguments: str  # the record's first launch: 'x: fp32[4096] · n=4096 · BLOCK=256'
    specialization: str  # the record's signature and constexprs as Triton keyed them
    differs: frozenset[str]  # COLUMNS that differ from the row of this kernel above
    # for a differing arguments or specialization column: its parts the row above lacks
    # ('n=1000', 'n: i32'), what a narrow column shows first
    changed: tuple[tuple[str, str], ...] = ()


def argument_text(arg: LaunchArg) -> str:
    """'x: fp32[4096]' for a tensor (strides where not contiguous), 'n=4096' otherwise."""
    if arg.kind == "tensor":
        shape = "x".join(str(d) for d in arg.shape or ())
        text = f"{arg.name}: {arg.dtype or '?'}[{shape}]"
        if arg.strides and arg.shape and tuple(arg.strides) != _contiguous(tuple(arg.shape)):
            text += f" strides {tuple(arg.strides)}"
        return text
    return f"{arg.name}={arg.value!r}" if isinstance(arg.value, str) else f"{arg.name}={arg.value}"


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def launch_rows(result: CompileResult | None) -> list[LaunchRow]:
    """The rows, kernels in the record order, each kernel's sites in the order launched."""
    if result is None:
        return []
    rows: list[LaunchRow] = []
    above: dict[str, LaunchRow] = {}  # each kernel's row above, with the arguments it stands for
    for k in result.kernels:
        if k.launch is None or k.launch.warmup or k.status not in ("compiled", "failed"):
            continue
        for row in _kernel_rows(k):
            prev = above.get(row.kernel)
            if row.arguments == LATER_ARGUMENTS and prev is not None:
                compared = replace(row, arguments=prev.arguments)  # the same record's first
            else:
                compared = row
            differs = (
                frozenset(c for c in COLUMNS if getattr(compared, c) != getattr(prev, c))
                if prev is not None
                else frozenset()
            )
            changed = tuple(
                (c, _new_parts(getattr(compared, c), getattr(prev, c), SEPARATORS[c]))
                for c in ("arguments", "specialization")
                if c in differs
            )
            rows.append(replace(row, differs=differs, changed=changed))
            above[row.kernel] = compared
    return rows


# how each list column joins its parts
SEPARATORS = {"arguments": " · ", "specialization": ", "}


def _new_parts(text: str, above: str, sep: str) -> str:
    """The parts of `text` that `above` does not have, joined as `text` joins them."""
    had = set(above.split(sep))
    return sep.join(p for p in text.split(sep) if p not in had)


def specialization_text(k: CompiledKernel) -> str:
    """What Triton keyed the compile on: each argument's type with its attributes
    ('x: *fp32 16-aligned'), then the constexprs ('BLOCK=256')."""
    spec = k.specialization
    if spec is None:
        return ""
    parts = []
    for name, ty in spec.signature.items():
        if ty == "constexpr":
            continue
        attrs = spec.attrs.get(name) or []
        aligned = " 16-aligned" if any("divisibility" in str(a) for a in attrs) else ""
        parts.append(f"{name}: {ty}{aligned}")
    parts += [f"{n}={v}" for n, v in spec.constexprs.items()]
    return ", ".join(parts)


# what a row past a record's first shows for its arguments: kx keeps those of the first
# launch of each compiled kernel only (later launches of it are counted, by grid and line)
LATER_ARGUMENTS = "(as compiled; kx keeps the first launch's arguments)"


def _kernel_rows(k: CompiledKernel) -> list[LaunchRow]:
    launch = k.launch
    arguments = " · ".join(argument_text(a) for a in launch.args)
    specialization = specialization_text(k)
    sites = launch.sites or ()
    if not sites:  # a record from before sites were kept: its first launch, all counted
        grid = "x".join(str(g) for g in launch.grid)
        return [
            LaunchRow(
                k.name, k.display_name, grid, launch.count, "", None, arguments, specialization, frozenset()
            )
        ]
    rows = []
    for i, s in enumerate(sites):
        where = f"{os.path.basename(s.file)}:{s.line}" if s.file and s.line else ""
        if s.file_line and s.line != s.file_line:
            where += f" (file line {s.file_line})"
        grid = "x".join(str(g) for g in s.grid)
        shown = arguments if i == 0 else LATER_ARGUMENTS
        rows.append(
            LaunchRow(
                k.name, k.display_name, grid, s.count, where, s.file_line, shown, specialization, frozenset()
            )
        )
    return rows
