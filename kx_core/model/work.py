"""Work estimates of a captured kernel from its TTIR: FLOPs and DRAM bytes per program,
times the launch's grid.

- FLOPs: 2*M*N*K per `tt.dot` (from its operand types), one per element for float
  arithmetic (`arith.addf`, `mulf`, ..., `math.exp`, ...; `math.fma` two), one per input
  element for a `tt.reduce`.
- Bytes: the tensor (or scalar) type of every `tt.load` / `tt.store` /
  `tt.descriptor_load` / `tt.descriptor_store` / atomic, in elements times element size.
- Loops: an `scf.for` multiplies what it holds by its trip count, evaluated from the
  launch's scalar arguments through the integer `arith` ops that compute its bounds; a
  bound kx cannot evaluate counts once and is reported in `unknown_loops`.
- Grid-stride and persistent loops (`tl.range(pid, n, tl.num_programs(0))`): the program
  id and the grid size are values too, the program id one per program (a numpy array),
  so a loop's trip count is per program and the totals are the sum over programs.

What it does not see: masks (a partial tile counts whole, as K1's tiled_bytes does),
caches (every load is DRAM traffic), and branches (both sides of an `scf.if` count).
The user can override both totals."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from math import ceil, prod

import numpy as np

from kx_core.base.jsonable import Jsonable
from kx_core.ir.tensor_type import first_tensor, tensor_types

_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "i1": 1}
FLOAT_OPS = {
    "addf", "subf", "mulf", "divf", "remf", "negf", "maximumf", "minimumf", "maxnumf", "minnumf",
}  # fmt: skip
MATH_OPS = {
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tanh",
    "erf",
    "absf",
    "floor",
    "ceil",
}
# Example: "%c32_i32 = arith.constant 32 : i32"
_CONST_RE = re.compile(r"^\s*(%[\w.#]+) = arith\.constant (-?\d+) : (?:i\d+|index)\b")
# Example: "%b_ptrs_33 = arith.muli %stride_bk, %c32_i32 : i32"
_INT_OP_RE = re.compile(
    r"^\s*(%[\w.#]+) = arith\.(addi|subi|muli|divsi|divui|ceildivsi|remsi|remui|minsi|maxsi) (%[\w.#]+), (%[\w.#]+) : (?:i\d+|index)\s"
)
# Example: "%1 = arith.extsi %0 : i32 to i64"
_CAST_RE = re.compile(r"^\s*(%[\w.#]+) = arith\.(?:extsi|extui|trunci|index_cast) (%[\w.#]+) : ")
# Example: "%acc:3 = scf.for %k = %c0_i32 to %K step %c32_i32 iter_args(...)"
_FOR_RE = re.compile(r"scf\.for (%[\w.#]+) = (%[\w.#]+) to (%[\w.#]+) step (%[\w.#]+)")
# Example: "tt.func public @matmul_kernel(%a_ptr: !tt.ptr<f16> {...}, %M: i32 {...}) ..."
_ARG_RE = re.compile(r"(%[\w.#]+): ([^\s,{)]+)")
# the element type of a tensor type: "tensor<64x32xf16>" -> f16
_DTYPE_RE = re.compile(r"[x<](f8E\w+|bf16|f16|f32|f64|i1|i8|i16|i32|i64)(?=[>,])")


def _elem_bytes(ty: str) -> int:
    if ty.startswith("f8"):
        return 1
    return _BYTES.get(ty, 4)


def _tensor(text: str) -> tuple[int, int] | None:
    """(elements, bytes per element) of the first tensor type in text; for a tensor of
    pointers, the pointee's size."""
    t = first_tensor(text)
    return (t.elements, t.element_bytes or 4) if t else None


@dataclass(frozen=True)
class WorkEstimate(Jsonable):
    flops: int
    bytes: int
    flops_per_program: int
    bytes_per_program: int
    programs: int
    dot_flops: int  # the part of `flops` done by tt.dot
    precision: str  # of the dots ("fp16", "bf16", "tf32", "fp32", "fp8"); "fp32" without dots
    unknown_loops: tuple[int, ...] = ()  # TTIR lines of loops counted once
    notes: tuple[str, ...] = ()
    # `bytes` is what the programs request (every load and store); `dram_bytes` is the
    # compulsory DRAM traffic (each tensor argument once, perfect L2 reuse), from the
    # launch's tensors (kx_core.model.kernel); None where the launch has none
    dram_bytes: int | None = None
    # global loads one program issues one after another (each tt.load or
    # tt.descriptor_load times the trips of the loops around it): the round trips to
    # memory a program waits on where nothing overlaps them (kx_core.model.ranking)
    loads_per_program: int = 0
    # the busiest program's FLOPs, dot FLOPs and loads where programs differ (a persistent
    # or grid-stride loop: program 0 takes ceil(tiles / programs) tiles); None where every
    # program does the same. The slowest program ends the kernel (kx_core.model.ranking)
    busiest: tuple[int, int, int] | None = None


def _divsi(a, b):
    """arith.divsi (rounds toward zero) of ints or numpy arrays; raises ZeroDivisionError."""
    if np.any(np.asarray(b) == 0):
        raise ZeroDivisionError
    q = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)
    return int(q) if np.ndim(q) == 0 else q


def _floordiv(a, b):
    if np.any(np.asarray(b) == 0):
        raise ZeroDivisionError
    return a // b


_INT_OPS = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divsi": _divsi,
    "divui": lambda a, b: _divsi(a, b),  # the same for the non-negative values of bounds
    "ceildivsi": lambda a, b: -_floordiv(-a, b),
    "remsi": lambda a, b: a - _divsi(a, b) * b,
    "remui": lambda a, b: a - _divsi(a, b) * b,
    "minsi": lambda a, b: np.minimum(a, b) if np.ndim(a) or np.ndim(b) else min(a, b),
    "maxsi": lambda a, b: np.maximum(a, b) if np.ndim(a) or np.ndim(b) else max(a, b),
}
# Example: "%pid = tt.get_program_id x : i32", "%0 = tt.get_num_programs y : i32"
_PROGRAM_RE = re.compile(r"^\s*(%[\w.#]+) = tt\.get_(program_id|num_programs) ([xyz]) ")
MAX_PER_PROGRAM = 1 << 21  # programs evaluated one by one (arrays); more: counted once


def _program_values(grid: tuple[int, int, int]) -> dict[str, object]:
    """{'program_id x': array of each program's id along x, 'num_programs x': gx, ...};
    programs numbered x fastest, as CUDA numbers blocks."""
    gx, gy, gz = (max(1, g) for g in grid)
    out: dict[str, object] = {f"num_programs {a}": g for a, g in zip("xyz", (gx, gy, gz))}
    if gx * gy * gz <= MAX_PER_PROGRAM:
        n = np.arange(gx * gy * gz, dtype=np.int64)
        out.update({"program_id x": n % gx, "program_id y": n // gx % gy, "program_id z": n // (gx * gy)})
    return out


def _eval_ints(lines: list[str], args: dict[str, int], programs: dict[str, object] | None = None) -> dict:
    env = dict(args)
    for line in lines:
        if programs and (m := _PROGRAM_RE.match(line)):
            value = programs.get(f"{m.group(2)} {m.group(3)}")
            if value is not None:
                env[m.group(1)] = value
        elif m := _CONST_RE.match(line):
            env[m.group(1)] = int(m.group(2))
        elif m := _INT_OP_RE.match(line):
            a, b = env.get(m.group(3)), env.get(m.group(4))
            if a is None or b is None:
                continue
            try:
                env[m.group(1)] = _INT_OPS[m.group(2)](a, b)
            except ZeroDivisionError:
                continue
        elif m := _CAST_RE.match(line):
            if m.group(2) in env:
                env[m.group(1)] = env[m.group(2)]
    return env


def _precision(line: str) -> str:
    types = _DTYPE_RE.findall(line.split(":")[-1])
    operand = types[0] if types else "f32"
    if operand.startswith("f8"):
        return "fp8"
    if operand in ("f16", "bf16"):
        return {"f16": "fp16", "bf16": "bf16"}[operand]
    if "inputPrecision = tf32" in line or "inputPrecision = tf32x3" in line:
        return "tf32"
    return "fp32"


def estimate(
    ttir: str, scalar_args: dict[str, int], grid: tuple[int, int, int], arg_order: list[str] | None = None
) -> WorkEstimate:
    """Work of one launch. `scalar_args`: the launch's integer arguments by name;
    `arg_order`: the kernel's non-constexpr parameter names in order, for TTIR that
    numbers its arguments (%arg0, ...) instead of naming them."""
    lines = ttir.splitlines()
    env = _eval_ints(lines, _launch_args(lines, scalar_args, arg_order), _program_values(grid))
    flops = dot_flops = nbytes = loads = 0
    precisions: list[str] = []
    unknown: list[int] = []
    # a stack of (closing depth, multiplier): regions opened by scf.for multiply, a
    # tt.reduce region counts nothing (the reduce line counted its elements)
    stack: list[tuple[int, int]] = []
    depth = 0
    for n, line in enumerate(lines, start=1):
        mult = prod(m for _, m in stack) if stack else 1
        if m := _FOR_RE.search(line):
            trips = _trip_count(m, env)
            if trips is None:
                trips = 1
                unknown.append(n)
            stack.append((depth, trips))
        elif re.search(r"= \"?tt\.reduce\"?\(", line) or " tt.reduce " in line:
            t = _tensor(line.split(":", 1)[-1] if ":" in line else line)
            flops += mult * t[0] if t else 0
            stack.append((depth, 0))
        else:
            f, d, b, precision = _line_work(line)
            flops, dot_flops, nbytes = flops + mult * f, dot_flops + mult * d, nbytes + mult * b
            if _LOAD_RE.search(line):
                loads = loads + mult
            precisions += [precision] if precision else []
        depth += line.count("{") - line.count("}")
        while stack and depth <= stack[-1][0]:
            stack.pop()
    out = _estimate_of(flops, dot_flops, nbytes, grid, precisions, unknown)
    per_program = int(round(float(np.mean(loads)))) if np.ndim(loads) else int(loads)
    busiest = None
    if any(np.ndim(v) for v in (flops, dot_flops, loads)):
        busiest = tuple(int(np.max(v)) for v in (flops, dot_flops, loads))
    return replace(out, loads_per_program=per_program, busiest=busiest)


# Example: "%a = tt.load %a_ptrs, %mask, %cst : tensor<128x64x!tt.ptr<f16>>"
_LOAD_RE = re.compile(r"= tt\.(?:load|descriptor_load) ")


def _launch_args(
    lines: list[str], scalar_args: dict[str, int], arg_order: list[str] | None
) -> dict[str, int]:
    """The kernel's SSA arguments (%n or %arg0) bound to the launch's integer values."""
    args: dict[str, int] = {}
    for line in lines:
        if "tt.func" in line and "@" in line:
            params = [name for name, _ in _ARG_RE.findall(line.split("attributes")[0])]
            for i, p in enumerate(params):
                name = p[1:]
                if name in scalar_args:
                    args[p] = int(scalar_args[name])
                elif arg_order and i < len(arg_order) and arg_order[i] in scalar_args:
                    args[p] = int(scalar_args[arg_order[i]])
            break
    return args


def _trip_count(m: re.Match, env: dict):
    """An scf.for's trips: an int, an array (one per program: grid-stride loops), or None
    when a bound cannot be evaluated."""
    lb, ub, st = (env.get(m.group(i)) for i in (2, 3, 4))
    if any(v is None for v in (lb, ub, st)) or np.any(np.asarray(st) == 0):
        return None
    if any(np.ndim(v) for v in (lb, ub, st)):
        return np.maximum(0, -((lb - ub) // st))
    return max(0, ceil((ub - lb) / st))


def _line_work(line: str) -> tuple[int, int, int, str | None]:
    """(FLOPs, of them on tensor cores, bytes moved, the dot's precision) of one TTIR line."""
    if " tt.dot " in line or " tt.dot_scaled " in line:
        shapes = [list(t.shape) for t in tensor_types(line.split(":")[-1])]
        if len(shapes) >= 2 and len(shapes[0]) >= 2:
            (mm, kk), nn = shapes[0][-2:], shapes[1][-1]
            batch = prod(shapes[0][:-2]) if len(shapes[0]) > 2 else 1
            f = 2 * batch * mm * nn * kk
            return f, f, 0, _precision(line)
        return 0, 0, 0, None
    if m := re.search(r"= (arith|math)\.(\w+) ", line):
        dialect, op = m.groups()
        if (dialect == "arith" and op in FLOAT_OPS) or (
            dialect == "math" and (op in MATH_OPS or op == "fma")
        ):
            t = _tensor(line.rsplit(":", 1)[-1])
            return (t[0] if t else 1) * (2 if op == "fma" else 1), 0, 0, None
        return 0, 0, 0, None
    s = line.strip()
    if re.search(r"\btt\.(load|store|descriptor_load|descriptor_store|atomic_rmw|atomic_cas)\b", s):
        kind = re.search(r"\btt\.(\w+)", s).group(1)
        typed = line.rsplit("->", 1)[-1] if kind == "descriptor_load" else line.rsplit(" : ", 1)[-1]
        t = _tensor(typed)
        if t is None:
            ptr = re.search(r"!tt\.ptr<(\w+)>", typed)
            t = (1, _elem_bytes(ptr.group(1))) if ptr else None
        if t:
            return 0, 0, t[0] * t[1] * (2 if kind.startswith("atomic") else 1), None
    return 0, 0, 0, None


def _estimate_of(flops, dot_flops, nbytes, grid, precisions: list[str], unknown: list[int]) -> WorkEstimate:
    """The launch's totals. A total that varies per program (grid-stride loops) is an
    array: summed over the programs, the per-program figure its mean; a plain total is per
    program."""
    programs = max(1, grid[0]) * max(1, grid[1]) * max(1, grid[2])
    totals = {}
    for name, value in (("flops", flops), ("dot", dot_flops), ("bytes", nbytes)):
        if np.ndim(value):
            totals[name] = (int(np.sum(value)), int(round(float(np.mean(value)))))
        else:
            totals[name] = (int(value) * programs, int(value))
    notes = []
    if unknown:
        notes.append(f"{len(unknown)} loop bound(s) not evaluable from the launch's arguments: counted once")
    precision = max(set(precisions), key=precisions.count) if precisions else "fp32"
    return WorkEstimate(
        flops=totals["flops"][0],
        bytes=totals["bytes"][0],
        flops_per_program=totals["flops"][1],
        bytes_per_program=totals["bytes"][1],
        programs=programs,
        dot_flops=totals["dot"][0],
        precision=precision,
        unknown_loops=tuple(unknown),
        notes=tuple(notes),
    )
