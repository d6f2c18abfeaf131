"""Which of a Triton kernel's arguments it can write, read from its TTIR.

A capture runs no kernel, so after a launch the data of what the kernel wrote is unknown;
but a kernel writes only through the pointers its stores take, and those come from its
arguments by pointer arithmetic the TTIR spells out (`tt.splat`, `tt.addptr`,
`tt.broadcast`, `tt.make_tensor_ptr`, `tt.advance`, loop-carried values). An argument no
store's pointer derives from is only read: the data the host made for it stays known
(offsets, cumulative lengths, index tables handed to a varlen kernel).

`written_arguments` answers None, meaning "any argument", wherever the TTIR does
something this reading does not follow: a call into another function, inline assembly
that is not pure, a pointer loaded from memory or made from an integer, a store whose
pointer comes from nowhere the text shows.
"""

from __future__ import annotations

import re

# The ops that write memory, and where their pointer operand is: the first SSA value
# after the op's name. Example lines:
#   tt.store %1, %output, %mask_2 : tensor<1024x!tt.ptr<f32>>
#   %5 = tt.atomic_rmw fadd, acq_rel, gpu, %3, %4, %mask : (...) -> tensor<64xf32>
#   tt.descriptor_store %c_desc[%off_m, %off_n], %acc : !tt.tensordesc<...>, tensor<...>
STORES = (
    "tt.store",
    "tt.atomic_rmw",
    "tt.atomic_cas",
    "tt.descriptor_store",
    "tt.descriptor_reduce",
    "tt.descriptor_scatter",
    "tt.experimental_descriptor_store",
)
# ops whose effects the text does not show
OPAQUE = ("tt.call", "tt.int_to_ptr")
# ops whose results are yielded from regions (a pointer chosen by `if`, carried out of a
# loop): the result's line does not name where it comes from
REGION_OPS = ("scf.if", "scf.for", "scf.while", "scf.execute_region", "scf.index_switch")

# "%name", "%name#1" (a result of a multi-result op), "%12": an SSA value
_VALUE = re.compile(r"%([A-Za-z0-9_$.\-]+)(?:#\d+)?")
# "%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(...)": a function argument
_ARG = re.compile(r"%([A-Za-z0-9_$.\-]+): ")
# "iter_args(%acc = %init, ...)", "scf.while (%p = %start)": a region argument bound to a value
_BINDING = re.compile(r"%([A-Za-z0-9_$.\-]+) = %([A-Za-z0-9_$.\-]+)")
# "%a = op", "%a:2 = op", "%a, %b = op": the results before " = "
_RESULTS = re.compile(r"^\s*((?:%[A-Za-z0-9_$.\-]+(?::\d+)?(?:, )?)+) = ")


def _op_name(rhs: str) -> str:
    return rhs.split(None, 1)[0] if rhs.strip() else ""


def written_arguments(ttir: str) -> frozenset[str] | None:
    """The names of the public function's arguments some store may write through; None
    where the TTIR does something this does not follow (then any argument may be
    written)."""
    lines = ttir.splitlines()
    header = next((line for line in lines if "tt.func public" in line), None)
    if header is None:
        return None
    params = _ARG.findall(header[: header.rfind(") attributes") if ") attributes" in header else len(header)])
    if not params:
        return None
    args = set(params)
    # value -> (its op, the values it is made of, its line: the types)
    defs: dict[str, tuple[str, list[str], str]] = {}
    stores: list[str] = []  # the pointer operands of stores
    for line in lines:
        code = line.split(" loc(", 1)[0]
        if "tt.func" in code:
            continue
        if any(op in code for op in OPAQUE):
            return None
        if "tt.elementwise_inline_asm" in code and "pure = true" not in code:
            return None
        for bound, value in _BINDING.findall(code):  # a loop's argument: its first value
            defs.setdefault(bound, ("bind", [], code))[1].append(value)
        m = _RESULTS.match(code)
        rhs = code[m.end() :] if m else code.strip()
        op = _op_name(rhs)
        if op in STORES:
            first = _VALUE.search(rhs[len(op) :])
            if first is None:
                return None
            stores.append(first.group(1))
        if m:
            operands = _VALUE.findall(rhs)
            for result in _VALUE.findall(m.group(1)):
                defs[result] = (op, operands, code)
    written: set[str] = set()
    for pointer in stores:
        seen: set[str] = set()
        todo = [pointer]
        while todo:
            value = todo.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in args:
                written.add(value)
                continue
            made = defs.get(value)
            if made is None:
                return None  # a value the text does not make (a block argument kx cannot bind)
            op, operands, code = made
            if op in REGION_OPS:
                return None  # a value yielded from inside a region: not followed
            if op == "tt.load":
                # an offset or mask read from memory; a pointer read from memory (an
                # array of pointers) could point anywhere
                if "!tt.ptr<!tt.ptr" in code:
                    return None
                continue
            todo.extend(operands)
    return frozenset(written)
