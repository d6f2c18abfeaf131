"""The layouts a Gluon file spells out in its source, found, evaluated and tied to the
tensors of a real compile.

Gluon kernels write their layouts as Python calls:

    src: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])      # line 17
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, src))

`find_layout_calls` finds every such call with its span (pure AST: no Triton, no
execution). `evaluate` turns one into the layout Triton compiles, by evaluating the call
with Triton's own Gluon classes (so defaults, positional arguments and helpers such as
`NVMMASharedLayout.get_default_for` mean what they mean to Triton), the names it uses
bound as the file binds them, and the kernel's constexprs taken from the captured launch.
`match` then finds that layout among a TTGIR's layout aliases and the shapes of the
tensors that carry it, so the Layout pane draws exactly the layout and shape the compiler
used. `evaluate` runs the user's own expressions: call it for files kx may run (it runs
them anyway to capture their launches), in the layout service (kx_core.base.service).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from kx_core.base.jsonable import Jsonable
from kx_core.ir.anatomy import layout_alias_texts, parse_layout

# Gluon's class -> (TTGIR layout kind, (Python attribute, TTGIR field) for each field the
# TTGIR text prints). Attributes not listed (cga_layout, rank, shape) are not compared:
# Triton 3.6 and 3.8 spell the CTA split differently and print nothing for one CTA.
# tests/layout/test_source_layouts.py checks the attribute names against the installed
# Triton's signatures.
CLASSES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "BlockedLayout": (
        "blocked",
        (
            ("size_per_thread", "sizePerThread"),
            ("threads_per_warp", "threadsPerWarp"),
            ("warps_per_cta", "warpsPerCTA"),
            ("order", "order"),
        ),
    ),
    "SliceLayout": ("slice", (("dim", "dim"), ("parent", "parent"))),
    "DotOperandLayout": (
        "dot_op",
        (("operand_index", "opIdx"), ("parent", "parent"), ("k_width", "kWidth")),
    ),
    "NVMMADistributedLayout": (
        "nvidia_mma",
        (("version", "version"), ("warps_per_cta", "warpsPerCTA"), ("instr_shape", "instrShape")),
    ),
    "DistributedLinearLayout": (
        "linear",
        (("reg_bases", "register"), ("lane_bases", "lane"), ("warp_bases", "warp"), ("block_bases", "block")),
    ),
    "NVMMASharedLayout": (
        "nvmma_shared",
        (
            ("swizzle_byte_width", "swizzlingByteWidth"),
            ("transposed", "transposed"),
            ("element_bitwidth", "elementBitWidth"),
        ),
    ),
    "SwizzledSharedLayout": (
        "swizzled_shared",
        (("vec", "vec"), ("per_phase", "perPhase"), ("max_phase", "maxPhase"), ("order", "order")),
    ),
    "AMDMFMALayout": (
        "amd_mfma",
        (
            ("version", "version"),
            ("warps_per_cta", "warpsPerCTA"),
            ("instr_shape", "instrShape"),
            ("transposed", "isTransposed"),
        ),
    ),
}
SHARED_KINDS = ("nvmma_shared", "swizzled_shared")
# the TTGIR dialect prefix each kind is printed with
_PREFIX = {"amd_mfma": "ttg"}


class SourceLayoutError(ValueError):
    """A layout call kx cannot evaluate; the message says which name or value."""


@dataclass(frozen=True)
class LayoutCall(Jsonable):
    """One layout constructor call in a source file: 1-based lines, 0-based columns."""

    line: int
    col: int
    end_line: int
    end_col: int
    name: str  # the class called: 'BlockedLayout' (PARAMETER, COMPILED: see below)
    text: str  # the call as written
    scope: str  # the function it is in ('' at module level)
    use_line: int = 0  # COMPILED: the line of the operation that carries the layout
    use_col: int = 0  # ... and its column (1-based, as MLIR locations count), 0 unknown

    def contains(self, line: int, col: int) -> bool:
        return (self.line, self.col) <= (line, col) <= (self.end_line, self.end_col)


@dataclass(frozen=True)
class SourceLayout(Jsonable):
    """One source layout resolved: its TTGIR attribute text and the shape to draw it at.
    `alias` and `shapes` come from the compiled TTGIR when the layout is in it; otherwise
    `attr` is kx's rendering of the evaluated layout and `note` says the shape is a guess."""

    call: LayoutCall
    layout: dict[str, Any]
    attr: str
    shared: bool
    alias: str = ""  # '#blocked1', when the compile used this layout
    shapes: tuple[tuple[int, ...], ...] = ()  # the tensors' shapes that carry it, commonest first
    note: str = ""
    kernel: str = ""  # the kernel whose TTGIR gave alias and shapes

    @property
    def shape(self) -> tuple[int, ...]:
        return self.shapes[0] if self.shapes else ()


def _class_name(func: ast.expr) -> str | None:
    """'BlockedLayout' for gl.BlockedLayout(...), ttgl.BlockedLayout(...), BlockedLayout(...)
    and gl.NVMMASharedLayout.get_default_for(...)."""
    if isinstance(func, ast.Attribute) and func.attr == "get_default_for":
        func = func.value
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name if name in CLASSES else None


def find_layout_calls(source: str) -> list[LayoutCall]:
    """Every layout constructor call in the source, in source order (nested calls too:
    the SliceLayout and the BlockedLayout inside it). [] for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    out: list[LayoutCall] = []

    def add(node: ast.expr, name: str, scope: str, use: ast.expr | None = None) -> None:
        out.append(
            LayoutCall(
                node.lineno,
                node.col_offset,
                node.end_lineno,
                node.end_col_offset,
                name,
                _segment(lines, node),
                scope,
                use.lineno if use is not None else 0,
                use.col_offset + 1 if use is not None else 0,
            )  # fmt: skip
        )

    binds = _scope_binds(tree)
    helper_sites: dict[tuple[str, str], ast.expr] = {}  # (scope, name) -> its first use
    uses: dict[int, ast.Call] = {}  # a layout argument (by id) -> the call it is passed to

    def visit(node: ast.AST, scope: str, params: frozenset[str]) -> None:
        for child in ast.iter_child_nodes(node):
            inner, inner_params = scope, params
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
                inner_params = frozenset(a.arg for a in child.args.args + child.args.kwonlyargs)
            if isinstance(child, ast.Call) and (name := _class_name(child.func)):
                add(child, name, scope, uses.get(id(child)))
            elif isinstance(child, ast.Call):
                for arg in _layout_arguments(child):
                    uses[id(arg)] = child
                    if isinstance(arg, ast.Name) and arg.id in params:
                        # a layout the launch passes in: `gl.arange(0, BLOCK, layout=layout)`
                        # with `layout: gl.constexpr` a parameter (the launch's constexpr)
                        add(arg, PARAMETER, scope)
                    elif scope and not _constructed(arg, binds.get(scope, {}), params):
                        # a layout a helper built: the compile says what it is, at the
                        # operation this call makes
                        add(arg, COMPILED, scope, child)
                        if isinstance(arg, ast.Name):
                            helper_sites.setdefault((scope, arg.id), child)
            visit(child, inner, inner_params)

    visit(tree, "", frozenset())
    # the helper call a layout name is bound to (`layout: gl.constexpr = rows(...)`) is
    # clickable too: it is the layout of the name's first use
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for st in ast.walk(node):
            target = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else None
            if isinstance(st, ast.AnnAssign):
                target = st.target
            value = getattr(st, "value", None)
            if isinstance(target, ast.Name) and value is not None and (node.name, target.id) in helper_sites:
                if not any((c.line, c.col) == (value.lineno, value.col_offset) for c in out):
                    add(value, COMPILED, node.name, helper_sites[(node.name, target.id)])
    # a constructor inside a helper (`return gl.BlockedLayout(..., [num_warps, 1], ...)`)
    # has the helper's arguments only when a kernel calls it: it is the layout of the
    # helper's first call site
    sites = {c.text.split("(", 1)[0]: c for c in out if c.name == COMPILED and "(" in c.text}
    out = [
        replace(c, use_line=sites[c.scope].use_line, use_col=sites[c.scope].use_col)
        if c.scope in sites and not c.use_line and c.name not in (COMPILED, PARAMETER)
        else c
        for c in out
    ]
    return sorted(out, key=lambda c: (c.line, c.col))


def _segment(lines: list[str], node: ast.expr) -> str:
    if node.lineno == node.end_lineno:
        return lines[node.lineno - 1][node.col_offset : node.end_col_offset]
    first = lines[node.lineno - 1][node.col_offset :]
    middle = lines[node.lineno : node.end_lineno - 1]
    last = lines[node.end_lineno - 1][: node.end_col_offset]
    joined = " ".join(s.strip() for s in (first, *middle, last))
    return re.sub(r"([(\[]) | ([)\]])", r"\1\2", joined)  # "f( a, b )" -> "f(a, b)"


# LayoutCall.name of a kernel parameter used as a layout (its value: the launch's)
PARAMETER = "layout parameter"
# LayoutCall.name of a layout built by a helper kx does not evaluate (a
# `@gluon.constexpr_function` of the file, Triton's `get_tmem_reg_layout`, a descriptor's
# `get_reg_layout()`): its value is read from the compile, the layout of the tensor the
# operation at `use_line` makes
COMPILED = "layout from the compile"


def _constructed(node: ast.expr, binds: dict[str, ast.expr], params: frozenset[str], depth: int = 0) -> bool:
    """Whether kx evaluates this layout expression itself: a constructor call, a
    parameter, or a name bound to one (through `gl.constexpr(...)`)."""
    if depth > 8:
        return False
    if isinstance(node, ast.Call):
        f = node.func
        if (
            isinstance(f, ast.Attribute | ast.Name)
            and (f.attr if isinstance(f, ast.Attribute) else f.id) == "constexpr"
        ):
            return bool(node.args) and _constructed(node.args[0], binds, params, depth + 1)
        return _class_name(f) is not None
    if isinstance(node, ast.Name):
        if node.id in params:
            return True
        bound = binds.get(node.id)
        return bound is not None and _constructed(bound, binds, frozenset(), depth + 1)
    return False


def _scope_binds(tree: ast.Module) -> dict[str, dict[str, ast.expr]]:
    """Each function's simple assignments over the module's (by function name; '' the
    module): what a layout name used in it is bound to."""
    out = {"": _bindings(tree, "")[0]}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in out:
            out[node.name] = _bindings(tree, node.name)[0]
    return out


def _layout_arguments(call: ast.Call) -> list[ast.expr]:
    """The arguments of a Gluon call that are layouts: `layout=` of any call, the second
    of convert_layout, the third of allocate_shared_memory."""
    out = [k.value for k in call.keywords if k.arg == "layout"]
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    at = {"convert_layout": 1, "allocate_shared_memory": 2}.get(name)
    if at is not None and len(call.args) > at:
        out.append(call.args[at])
    return out


def call_at(calls: list[LayoutCall], line: int, col: int | None = None) -> LayoutCall | None:
    """The call under (line, col): the innermost that contains it; with no column (or
    none under it), the outermost call starting on the line."""
    if col is not None:
        under = [c for c in calls if c.contains(line, col)]
        if under:
            return min(
                under, key=lambda c: (c.end_line - c.line, c.end_col - c.col if c.line == c.end_line else 0)
            )
    on_line = [c for c in calls if c.line <= line <= c.end_line]
    return on_line[0] if on_line else None


# ------------------------------------------------------------------ evaluation (Triton)


def _bindings(tree: ast.Module, scope: str) -> tuple[dict[str, ast.expr], list[ast.stmt]]:
    """The simple assignments `name = expr` / `name: T = expr` of the module and of the
    function `scope` (the function's win), and the module's import statements."""
    binds: dict[str, ast.expr] = {}
    imports: list[ast.stmt] = []

    def take(body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                binds[st.targets[0].id] = st.value
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                binds[st.target.id] = st.value

    # the module's statements, and those of its top-level `if` blocks (the names an
    # `if __name__ == "__main__":` block binds and passes to a launch)
    top = [
        st
        for node in tree.body
        for st in ([node] + (node.body + node.orelse if isinstance(node, ast.If) else []))
    ]
    for st in top:
        if isinstance(st, ast.Import | ast.ImportFrom):
            imports.append(st)
    take(top)
    if scope:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == scope:
                # a parameter is the launch's value (a constexpr), never a module name's
                for a in node.args.args + node.args.kwonlyargs:
                    binds.pop(a.arg, None)
                take([n for n in ast.walk(node) if isinstance(n, ast.stmt)])
                break
    return binds, imports


def _triton_import(st: ast.stmt) -> bool:
    """Only the file's imports of Triton run (`from triton.experimental.gluon import
    language as gl`): the names a layout call needs, none of the file's other modules."""
    if isinstance(st, ast.Import):
        return all(a.name == "triton" or a.name.startswith("triton.") for a in st.names)
    return isinstance(st, ast.ImportFrom) and st.level == 0 and (st.module or "").split(".")[0] == "triton"


def evaluate_here(source: str, line: int, col: int | None, constexprs: dict[str, Any]) -> dict[str, Any]:
    """The layout (a parse_layout-style dict) of the call at (line, col), evaluated with
    Triton's Gluon classes in this process. Raises SourceLayoutError."""
    call = call_at(find_layout_calls(source), line, col)
    if call is None:
        raise SourceLayoutError(f"no layout call at line {line}")
    return _evaluate(source, call, constexprs)


def _evaluate(source: str, call: LayoutCall, constexprs: dict[str, Any]) -> dict[str, Any]:
    tree = ast.parse(source)
    binds, imports = _bindings(tree, call.scope)
    builtins = {f.__name__: f for f in (range, len, min, max, int, str, list, tuple, getattr)}
    namespace: dict[str, Any] = {"__builtins__": builtins}
    for st in imports:
        if _triton_import(st):
            namespace.update(_imported(st))
    node = _call_node(tree, call)
    if NUM_WARPS in constexprs:  # gl.num_warps() is the launch's num_warps
        node = _NumWarps(int(constexprs[NUM_WARPS])).visit(node)
    value = _Evaluator(namespace, binds, constexprs).value(node)
    return layout_dict(value)


# the key of the launch's num_warps among the constexprs given to evaluate_here: what
# `gl.num_warps()` in a layout call is
NUM_WARPS = "__kx_num_warps__"


class _NumWarps(ast.NodeTransformer):
    def __init__(self, n: int) -> None:
        self.n = n

    def visit_Call(self, node: ast.Call) -> ast.AST:  # noqa: N802 - ast's name
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "num_warps" and not node.args:
            return ast.copy_location(ast.Constant(self.n), node)
        return self.generic_visit(node)


def _imported(st: ast.stmt) -> dict[str, Any]:
    """The names one Triton import binds; a name this Triton lacks (a tutorial written
    for another version) is left out, not the whole statement: the layouts that do not
    use it still evaluate, and one that does says the name is unknown."""
    out: dict[str, Any] = {}
    for alias in st.names:
        one = type(st)(**{**{f: getattr(st, f) for f in st._fields}, "names": [alias]})
        ast.copy_location(one, st)
        try:
            exec(compile(ast.fix_missing_locations(ast.Module([one], [])), "<kx imports>", "exec"), out)  # noqa: S102
        except Exception:  # noqa: BLE001 - an import this Triton cannot do: that name only
            continue
    out.pop("__builtins__", None)
    return out


def _call_node(tree: ast.Module, call: LayoutCall) -> ast.expr:
    want = ast.Name if call.name == PARAMETER else ast.Call
    for node in ast.walk(tree):
        if isinstance(node, want) and (node.lineno, node.col_offset) == (call.line, call.col):
            return node
    raise SourceLayoutError(f"the call at line {call.line} moved")  # pragma: no cover - same text


class _Evaluator:
    """Evaluates an expression with names bound lazily: the file's Triton imports, its
    simple assignments (recursively), then the launch's constexprs."""

    def __init__(self, namespace: dict[str, Any], binds: dict[str, ast.expr], constexprs: dict[str, Any]):
        self.namespace = namespace
        self.binds = binds
        self.constexprs = constexprs
        self.done: dict[str, Any] = {}
        self.busy: set[str] = set()

    def value(self, node: ast.expr) -> Any:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        scope = dict(self.namespace)
        for name in names - set(self.namespace):
            scope[name] = self.name(name)
        try:
            value = eval(compile(ast.Expression(node), "<kx layout>", "eval"), scope)  # noqa: S307
        except SourceLayoutError:
            raise
        except Exception as e:  # the user's expression: any error is theirs, said plainly
            raise SourceLayoutError(f"{ast.unparse(node)}: {type(e).__name__}: {e}") from e
        return getattr(value, "value", value) if type(value).__name__ == "constexpr" else value

    def name(self, name: str) -> Any:
        if name in self.done:
            return self.done[name]
        if name in self.binds and name not in self.busy:
            self.busy.add(name)
            try:
                self.done[name] = self.value(self.binds[name])
            finally:
                self.busy.discard(name)
            return self.done[name]
        if name in self.constexprs:
            value = self.constexprs[name]
            if isinstance(value, str) and value.endswith(")") and "Layout(" in value:
                value = _from_repr(value)  # a layout constexpr, recorded as its repr
            self.done[name] = value
            return value
        raise SourceLayoutError(
            f"{name} is known only when the kernel runs (not a constexpr of the selected launch)"
        )


def _from_repr(text: str) -> Any:
    """A Gluon layout from its repr, as a capture records a layout constexpr:
    'BlockedLayout(size_per_thread=[4], threads_per_warp=[32], ...)'."""
    from triton.experimental.gluon.language import _layouts

    scope = {k: v for k, v in vars(_layouts).items() if k.endswith("Layout")}
    try:
        from triton.experimental.gluon.language.amd import _layouts as amd

        scope.update((k, v) for k, v in vars(amd).items() if k.endswith("Layout"))
    except ImportError:  # pragma: no cover - an older Gluon without AMD layouts
        pass
    try:
        return eval(compile(text, "<kx constexpr>", "eval"), {"__builtins__": {}}, scope)  # noqa: S307
    except Exception as e:  # noqa: BLE001 - a repr kx cannot rebuild: said, not raised raw
        raise SourceLayoutError(f"the launch's layout {text[:80]}: {type(e).__name__}: {e}") from e


def layout_dict(obj: Any) -> dict[str, Any]:
    """A Gluon layout object as the dict parse_layout reads from its TTGIR text."""
    name = type(obj).__name__
    if name not in CLASSES:
        raise SourceLayoutError(f"{name} is not a layout kx can draw (one of {', '.join(CLASSES)})")
    kind, fields = CLASSES[name]
    out: dict[str, Any] = {"kind": kind}
    for attr, field in fields:
        v = getattr(obj, attr)
        v = getattr(v, "value", v)
        if field == "parent":
            v = layout_dict(v)
        elif field == "version" and kind == "nvidia_mma":
            out["versionMajor"], out["versionMinor"] = int(v[0]), int(v[1]) if len(v) > 1 else 0
            continue
        elif kind == "linear":
            v = [list(map(int, b)) for b in v]
        elif isinstance(v, list | tuple):
            v = [int(x) for x in v]
        elif isinstance(v, bool):
            pass
        elif v is not None:
            v = int(v)
        if v is not None:
            out[field] = v
    return out


# ------------------------------------------------------------------ TTGIR text and matching


def render(layout: dict[str, Any]) -> str:
    """The TTGIR attribute text of a layout dict, as Triton prints it:
    {'kind': 'blocked', 'sizePerThread': [1, 4], ...} -> '#ttg.blocked<{sizePerThread = [1, 4], ...}>'."""

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return render(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return str(v)

    body = ", ".join(f"{k} = {value(v)}" for k, v in layout.items() if k != "kind")
    return f"#{_PREFIX.get(layout['kind'], 'ttg')}.{layout['kind']}<{{{body}}}>"


def _canonical(layout: Any, aliases: dict[str, str]) -> Any:
    """A layout dict with aliases resolved, 'true'/'false' as booleans and the fields a
    one-CTA source never spells (CTA splits) left out, for comparing."""
    if layout in ("true", "false"):
        return layout == "true"
    if isinstance(layout, str):
        text = aliases.get(layout, layout)
        parsed = parse_layout(text) if text.startswith("#") else None
        return _canonical(parsed, aliases) if parsed is not None else layout
    if isinstance(layout, dict):
        skip = {"CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"}
        return {k: _canonical(v, aliases) for k, v in layout.items() if k not in skip}
    if isinstance(layout, list):
        return [_canonical(v, aliases) for v in layout]
    return layout


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal on every field both print (Triton leaves out defaults such as kWidth = 0)."""
    if a.get("kind") != b.get("kind"):
        return False
    for k in set(a) & set(b):
        va, vb = a[k], b[k]
        if isinstance(va, dict) and isinstance(vb, dict):
            if not _same(va, vb):
                return False
        elif va != vb:
            return False
    return True


# Example: "tensor<64x64xf32, #blocked>" or "tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>"
_TENSOR_RE = re.compile(r"tensor<((?:\d+x)+)[\w!.<>]*?, (#[\w.]+(?:<\{(?:[^{}]|\{[^{}]*\})*\}>)?)>")
# Example: "!ttg.memdesc<64x64xf16, #shared, #smem, mutable>"
_MEMDESC_RE = re.compile(r"!ttg\.memdesc<((?:\d+x)+)\w+, (#[\w.]+(?:<\{[^{}]*\}>)?)")


def match(
    layout: dict[str, Any], ttgir: str, aliases: dict[str, str] | None = None
) -> tuple[str, tuple[tuple[int, ...], ...]]:
    """(alias, shapes): the TTGIR alias (or inline attribute) that is this layout and the
    shapes of the tensors (or shared buffers) that carry it, commonest first; ('', ())
    when the compile did not use it."""
    aliases = layout_alias_texts(ttgir) if aliases is None else aliases
    want = _canonical(layout, aliases)
    seen: Counter[tuple[int, ...]] = Counter()
    name = ""
    regex = _MEMDESC_RE if layout["kind"] in SHARED_KINDS else _TENSOR_RE
    for m in regex.finditer(ttgir):
        enc = m.group(2)
        got = _canonical(enc, aliases)
        if isinstance(got, dict) and _same(want, got):
            name = name or enc
            seen[tuple(int(x) for x in m.group(1).rstrip("x").split("x"))] += 1
    if not name:
        for alias, text in aliases.items():  # declared, though no tensor carries it
            got = _canonical(text, aliases)
            if isinstance(got, dict) and _same(want, got):
                return alias, ()
    # the largest tensor first (a 64x64 tile rather than the 64x1 it was broadcast from)
    order = sorted(seen, key=lambda s: (-_numel(s), -seen[s]))
    return name, tuple(order)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for x in shape:
        n *= x
    return n


def _inline(attr: str, aliases: dict[str, str]) -> str:
    """The attribute with every alias it names replaced by its text, so it means the same
    whichever kernel is selected later: '#ttg.slice<{dim = 1, parent = #blocked}>'."""
    for _ in range(4):  # a slice of a dot operand of an mma: three levels at most
        new = re.sub(r"#\w+\b(?![.<])", lambda m: aliases.get(m.group(0), m.group(0)), attr)
        if new == attr:
            break
        attr = new
    return attr


def resolve(call: LayoutCall, layout: dict[str, Any], ttgirs: list[tuple[str, str]]) -> SourceLayout:
    """The source layout tied to a compile: `ttgirs` are (kernel, TTGIR text), the kernel
    to prefer first. The first whose tensors carry the layout gives its attribute text
    (aliases inlined) and shapes; with none, kx's rendering and a note."""
    shared = layout["kind"] in SHARED_KINDS
    declared = ""
    for kernel, ttgir in ttgirs:
        aliases = layout_alias_texts(ttgir)
        alias, shapes = match(layout, ttgir, aliases)
        if alias and shapes:
            attr = _inline(aliases.get(alias, alias), aliases)
            return SourceLayout(call, layout, attr, shared, alias, shapes, kernel=kernel)
        declared = declared or (alias and kernel)
    if not ttgirs:
        note = "no compile to take the shape from: the shape is yours to set"
    elif declared:
        note = f"declared in {declared}'s TTGIR but carried by no tensor: the shape is yours to set"
    else:
        note = "no kernel's TTGIR uses it (a layout the compile folded away, or not launched): the shape is yours to set"
    return SourceLayout(call, layout, render(layout), shared, note=note)


def _result_type(line: str) -> tuple[str, tuple[int, ...], bool] | None:
    """(encoding, shape, shared) of the last tensor or shared buffer type on a TTGIR op
    line: its result's, as Triton prints `... : tensor<..> -> tensor<64x64xf16, #mma>`."""
    found = [(m.start(), m, False) for m in _TENSOR_RE.finditer(line)]
    found += [(m.start(), m, True) for m in _MEMDESC_RE.finditer(line)]
    if not found:
        return None
    _, m, shared = max(found, key=lambda f: f[0])
    return m.group(2), tuple(int(x) for x in m.group(1).rstrip("x").split("x")), shared


def from_compile(call: LayoutCall, ttgirs: list[tuple[str, str]]) -> SourceLayout:
    """A COMPILED layout: the layout the compile gave the tensor the operation at
    `call.use_line` makes (the first kernel whose TTGIR has an operation of that line)."""
    from kx_core.ir.sourcemap import mlir_line_locations

    line = call.use_line or call.line
    for kernel, ttgir in ttgirs:
        aliases = layout_alias_texts(ttgir)
        rows = ttgir.splitlines()
        at_line = [(n, c) for n, c in sorted(mlir_line_locations(ttgir).items()) if c[0].line == line]
        # the operation the using call makes (its column), before the line's others (the
        # operands' ops, which carry other layouts)
        at_line.sort(key=lambda nc: nc[1][0].column != call.use_col)
        for number, _chain in at_line:
            typed = _result_type(rows[number - 1])
            if typed is None:
                continue
            encoding, shape, shared = typed
            layout = _canonical(encoding, aliases)
            if not isinstance(layout, dict):
                continue
            attr = _inline(aliases.get(encoding, encoding), aliases)
            how = "built by a helper" if call.name == COMPILED else "over a value kx does not evaluate"
            note = f"{how}: read from the compile, the tensor of line {line}"
            return SourceLayout(call, layout, attr, shared, encoding, (shape,), note=note, kernel=kernel)
    raise SourceLayoutError(
        f"{call.text}: no operation of line {line} in the compiled TTGIR carries a layout "
        "(not launched, or folded away): kx reads a helper-built layout from the compile"
    )


def source_layout_here(
    source: str, line: int, col: int | None, constexprs: dict[str, Any], ttgirs: list[tuple[str, str]]
) -> SourceLayout:
    """The layout call at (line, col) evaluated (Triton's classes, this process) and tied
    to the compile (the layout service runs this); a helper-built one read from the
    compile."""
    call = call_at(find_layout_calls(source), line, col)
    if call is None:
        raise SourceLayoutError(f"no layout call at line {line}")
    if call.name == COMPILED:
        return from_compile(call, ttgirs)
    try:
        layout = _evaluate(source, call, constexprs)
    except SourceLayoutError as e:
        # a constructor over a helper's layout (`gl.SliceLayout(1, rows(...))`), passed
        # to an operation: that operation's layout in the compile
        if call.use_line:
            try:
                return from_compile(call, ttgirs)
            except SourceLayoutError:
                pass
        raise e
    return resolve(call, layout, ttgirs)


def source_layout(
    source: str, line: int, col: int | None, constexprs: dict[str, Any], ttgirs: list[tuple[str, str]]
) -> SourceLayout:
    """source_layout_here in kx's layout service (a child: the user's expressions and
    Triton's C++ run there, not in the caller)."""
    from kx_core.base import service

    try:
        return service.call("layout", source_layout_here, source, line, col, constexprs, ttgirs)
    except service.ServiceDied as e:
        raise SourceLayoutError(f"evaluating the layout at line {line}: {e}") from e
