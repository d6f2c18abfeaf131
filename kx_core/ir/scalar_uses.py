"""What a @triton.jit kernel's Python source does with its scalar parameters: which are
floats by their use. A scalar without an annotation is specialized by the value a call
passes (4096 compiles as i32, 1.0 as fp32), so the Arguments form's first value must be
of the kind the kernel uses it as (issue 54: axpy's `a` was pre-filled 4096 and compiled
as `%a: i32` plus a conversion).

    float_scalars("def axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):\\n"
                  "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\\n"
                  "    x = tl.load(x_ptr + offs, mask=offs < n)\\n"
                  "    tl.store(y_ptr + offs, a * x)\\n")  ->  {'a'}

The rule: a parameter is a float when the body combines it arithmetically (+ - * / **)
with data, a value loaded from memory (`tl.load`, `tl.dot`, or a name assigned from one,
through any chain of assignments), and never uses it as an index: compared (a mask, a
loop bound), in integer arithmetic (// % << >> & | ^), in `range`/`tl.range`/`tl.cdiv`,
or combined with a pointer, a program id, an `arange` or a name made from them."""

from __future__ import annotations

import ast
import textwrap

# calls whose value is data read from memory (or made from it)
_DATA_CALLS = frozenset({"load", "dot", "atomic_add", "atomic_max", "atomic_min", "dot_scaled"})
# calls whose value is an index (positions, program ids, block counts)
_INDEX_CALLS = frozenset({"program_id", "num_programs", "arange", "cdiv", "multiple_of", "max_contiguous"})
# calls whose arguments are integers: loop bounds and block counts
_INTEGER_ARGUMENTS = frozenset({"range", "static_range", "cdiv"})
_FLOAT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_INTEGER_OPS = (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)


def _called(node: ast.AST) -> str:
    """The name a call calls: 'load' for tl.load(...), 'range' for range(...)."""
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return ""


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _tainted(body: list[ast.stmt], seeds: set[str], calls: frozenset[str]) -> set[str]:
    """The names assigned, through any chain of assignments, from an expression that
    calls one of `calls` or reads one of `seeds`."""
    names = set(seeds)
    assigns = [
        n for s in body for n in ast.walk(s) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
    ]
    changed = True
    while changed:
        changed = False
        for a in assigns:
            value = a.value
            if value is None:
                continue
            if _names(value) & names or any(_called(n) in calls for n in ast.walk(value)):
                targets = a.targets if isinstance(a, ast.Assign) else [a.target]
                new = set().union(*(_names(t) for t in targets)) - names
                if new:
                    names |= new
                    changed = True
    return names


def float_scalars(source: str) -> set[str]:
    """The parameters of the kernel in `source` (one function definition) that its body
    uses as floats by the rule above; empty when the source does not parse."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return set()
    fn = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None:
        return set()
    params = {a.arg for a in fn.args.args if a.annotation is None}
    pointers = {p for p in params if "ptr" in p.lower()}
    data = _tainted(fn.body, set(), _DATA_CALLS)
    index = _tainted(fn.body, pointers, _INDEX_CALLS) - data
    as_float, as_index = set(), set()
    for node in (n for s in fn.body for n in ast.walk(s)):
        if isinstance(node, ast.Compare):
            as_index |= _names(node) & params
        elif isinstance(node, ast.Call) and _called(node) in _INTEGER_ARGUMENTS:
            as_index |= set().union(*(_names(a) for a in node.args)) & params
        elif isinstance(node, ast.BinOp):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if not (isinstance(side, ast.Name) and side.id in params):
                    continue
                if isinstance(node.op, _INTEGER_OPS) or _names(other) & index:
                    as_index.add(side.id)
                elif isinstance(node.op, _FLOAT_OPS) and (
                    _names(other) & data or any(_called(n) in _DATA_CALLS for n in ast.walk(other))
                ):
                    as_float.add(side.id)
    return as_float - as_index - pointers
