"""What of a kernel's file a repro script carries: the kernel's `def`, the @jit helpers it
calls, the module-level names they read (constexpr globals, imports), each at its line in
the original file and every other line blank.

Why the lines stay where they were: Triton's cache key of a @jit function is its source
from `def` on plus its first line number (the first decorator's line, `co_firstlineno`)
and, recursively, the keys of the @jit functions it calls (`JITCallable.cache_key`). A
kernel moved one line down compiles to another hash. Why nothing else of the file comes
along: files launch their kernels at top level, and the script must run where the file
does not (a GPU machine with torch and triton only).

The kernel's decorators above its @jit (autotune, heuristics, a library's wrapper) are
dropped and the @jit decorator takes the first decorator's line, so the function's first
line is the original's: the script launches the bare JITFunction with the config's and
the heuristics' values, as the capture saw them.

Nothing here runs the file or imports torch or triton: the text is read with `ast`,
`symtable` and `inspect.getblock` (the block end Triton's own `inspect.getsourcelines`
finds, trailing indented comments included).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import symtable
from dataclasses import dataclass

from kx_core.lab.repro_types import ReproError

# Decorators that make a function a Triton (or Gluon) @jit function: the last dotted name
# of the decorator's expression. Example: "@triton.jit", "@jit", "@gluon.jit",
# "@triton.jit(do_not_specialize=['n'])"
JIT_NAMES = frozenset({"jit"})
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class EmbeddedSource:
    """The lines of `file` a repro carries. `text` has the original's line numbers: kept
    statements at their lines, blank lines elsewhere. `function` is the kernel's name in
    it, `kept` the other top-level names kept (helpers, globals, imports) and `dropped`
    the kernel's decorators left out ('triton.autotune', 'triton.heuristics')."""

    file: str
    text: str
    function: str
    kept: tuple[str, ...]
    dropped: tuple[str, ...]


def embed_kernel(
    text: str, file: str, name: str, line: int | None = None, extra: tuple[str, ...] = ()
) -> EmbeddedSource:
    """The part of `text` (the file `file`) that defines the top-level @jit function
    `name` (the one whose lines hold `line` where several share the name) and what it
    needs, with the top-level names `extra` (@jit functions a launch passed as
    constexprs). Raises ReproError saying why where that part cannot stand alone."""
    try:
        tree = ast.parse(text, filename=file)
    except SyntaxError as e:
        raise ReproError(f"{file} does not parse (line {e.lineno}): {e.msg}") from None
    lines = text.splitlines()
    kernel = _kernel_def(tree, file, name, line)
    jit_at = _jit_decorator(kernel, file)
    table = symtable.symtable(text, file, "exec")
    statements = [s for s in tree.body if not _main_block(s)]
    needed = _global_names(table, kernel, [kernel.decorator_list[jit_at]]) | set(extra)
    kept: dict[int, ast.stmt] = {id(kernel): kernel}
    kept |= {id(s): s for s in statements if isinstance(s, ast.ImportFrom) and s.module == "__future__"}
    seen: set[str] = set()
    while needed - seen:
        wanted = needed - seen
        seen |= wanted
        for word in sorted(wanted):
            binders = [s for s in statements if word in _bound_names(s)]
            if not binders:
                if word not in _BUILTINS and not any(_star_import(s) for s in statements):
                    raise ReproError(f"{name} uses {word!r}, which {file} does not define at its top level")
                continue
            for s in binders:
                if id(s) in kept:
                    continue
                _check_statement(s, word, file)
                kept[id(s)] = s
                needed |= _statement_needs(s, table)
    kept |= {id(s): s for s in statements if _star_import(s)}
    out = [""] * len(lines)
    for s in kept.values():
        if s is kernel:
            continue
        first, last = _span(s, lines)
        out[first - 1 : last] = lines[first - 1 : last]
    _place_kernel(out, kernel, jit_at, lines)
    while out and not out[-1].strip():
        out.pop()
    names = sorted({n for s in kept.values() if s is not kernel for n in _bound_names(s)})
    dropped = tuple(
        ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in kernel.decorator_list[:jit_at]
    )
    return EmbeddedSource(file, "\n".join(out) + "\n", name, tuple(names), dropped)


def _kernel_def(tree: ast.Module, file: str, name: str, line: int | None) -> ast.FunctionDef:
    found = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name]
    if not found:
        nested = any(isinstance(n, ast.FunctionDef) and n.name == name for n in ast.walk(tree))
        where = "inside a function or class" if nested else "nowhere"
        raise ReproError(
            f"{name} is defined {where} in {file}: kx repro embeds kernels defined at a file's top level"
        )
    if line is not None:
        holding = [s for s in found if _first_line(s) <= line <= (s.end_lineno or s.lineno)]
        if holding:
            return holding[-1]
    return found[-1]  # the definition a run of the file ends with


def _first_line(node: ast.FunctionDef) -> int:
    """The function's first line as Python counts it (co_firstlineno): its first decorator's."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def _is_jit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
    return last in JIT_NAMES


def _jit_decorator(kernel: ast.FunctionDef, file: str) -> int:
    """The index of the kernel's @jit decorator; ReproError where it has none or where
    another decorator sits between it and the `def` (it would change what @jit wraps)."""
    found = [i for i, d in enumerate(kernel.decorator_list) if _is_jit(d)]
    if not found:
        raise ReproError(
            f"{kernel.name} in {file} carries no @triton.jit decorator (made with triton.jit(fn) elsewhere?): "
            "kx repro embeds a kernel decorated where it is defined"
        )
    below = kernel.decorator_list[found[-1] + 1 :]
    if below:
        raise ReproError(
            f"{kernel.name} in {file} is decorated below its @jit by {ast.unparse(below[0])}: "
            "kx repro cannot launch the JITFunction without it"
        )
    return found[-1]


def _place_kernel(out: list[str], kernel: ast.FunctionDef, jit_at: int, lines: list[str]) -> None:
    """The kernel from `def` to its block's end at its lines, its @jit decorator's lines
    from its first decorator's line on (the function's first line stays the original's)."""
    first = _first_line(kernel)
    _, last = _span(kernel, lines)
    jit = kernel.decorator_list[jit_at]
    decorator = lines[jit.lineno - 1 : (jit.end_lineno or jit.lineno)]
    out[first - 1 : last] = [""] * (last - first + 1)
    out[first - 1 : first - 1 + len(decorator)] = decorator
    out[kernel.lineno - 1 : last] = lines[kernel.lineno - 1 : last]


def _span(node: ast.stmt, lines: list[str]) -> tuple[int, int]:
    """A statement's first and last lines; a function's last is where inspect.getblock ends
    it (Triton reads its source that way: indented comments after the body count)."""
    first = _first_line(node) if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else node.lineno
    last = node.end_lineno or node.lineno
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        block = inspect.getblock([text + "\n" for text in lines[first - 1 :]])
        last = max(last, first + len(block) - 1)
    return first, last


def _main_block(s: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (either order of the comparison)."""
    if not isinstance(s, ast.If) or not isinstance(s.test, ast.Compare):
        return False
    sides = [s.test.left, *s.test.comparators]
    names = {n.id for n in sides if isinstance(n, ast.Name)}
    texts = {n.value for n in sides if isinstance(n, ast.Constant)}
    return names == {"__name__"} and texts == {"__main__"}


def _star_import(s: ast.stmt) -> bool:
    return isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names)


def _bound_names(s: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds (inside if/try: all branches)."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {s.name}
    if isinstance(s, ast.Import):
        return {(a.asname or a.name.split(".")[0]) for a in s.names}
    if isinstance(s, ast.ImportFrom):
        return {(a.asname or a.name) for a in s.names if a.name != "*"}
    if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(s, (ast.If, ast.Try, ast.For, ast.While, ast.With)):
        inner = [*s.body, *getattr(s, "orelse", []), *getattr(s, "finalbody", [])]
        inner += [x for h in getattr(s, "handlers", []) for x in h.body]
        return set().union(*(_bound_names(x) for x in inner)) if inner else set()
    return set()


def _check_statement(s: ast.stmt, word: str, file: str) -> None:
    """ReproError for a statement a script cannot carry: a loop or `with` at top level
    (it runs things), an import of the user's own modules (not there on the GPU machine)."""
    if isinstance(s, (ast.For, ast.While, ast.With)):
        raise ReproError(
            f"{word!r} is bound by a top-level {type(s).__name__.lower()} statement at {file}:{s.lineno}: "
            "kx repro carries definitions, assignments and imports only"
        )
    for node in ast.walk(s):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and (own := _own_module(node, file)):
            raise ReproError(
                f"{word!r} comes from {own}, a module of the user's beside {os.path.basename(file)} "
                f"(line {node.lineno}): kx repro embeds one file; move what the kernel needs into it"
            )


def _own_module(node: ast.Import | ast.ImportFrom, file: str) -> str | None:
    """The module an import names when it is the user's own (a relative import, or a
    module or package beside the file or its package's root); None for installed ones."""
    if isinstance(node, ast.ImportFrom) and node.level:
        return "." * node.level + (node.module or "")
    real = os.path.realpath(file)
    if "site-packages" in real or "dist-packages" in real:
        return None  # an installed library's own imports are installed too
    folder = os.path.dirname(real)
    roots = [folder]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder = os.path.dirname(folder)
        roots.append(folder)
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    for module in names:
        head = module.split(".")[0]
        for root in roots:
            if os.path.exists(os.path.join(root, head + ".py")) or os.path.isdir(os.path.join(root, head)):
                return module
    return None


def _names_in(node: ast.AST) -> set[str]:
    """Every name an expression or module-level statement loads, but the parameters of
    its lambdas and the targets of its comprehensions (`grid = lambda meta: ...`)."""
    loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    local = {
        a.arg
        for n in ast.walk(node)
        if isinstance(n, ast.Lambda)
        for a in ast.walk(n.args)
        if isinstance(a, ast.arg)
    }
    local |= {
        t.id
        for n in ast.walk(node)
        if isinstance(n, ast.comprehension)
        for t in ast.walk(n.target)
        if isinstance(t, ast.Name)
    }
    return loads - local


def _global_names(
    table: symtable.SymbolTable, func: ast.FunctionDef | ast.ClassDef, decorators: list | None = None
) -> set[str]:
    """The module-level names a function's or class's body reads (its own locals and
    parameters left out, as Python resolves them), its nested scopes' included; its
    decorators (`decorators`: those kept; default all), defaults and annotations are read
    at module level."""
    decorators = func.decorator_list if decorators is None else decorators
    outer = _names_in_list(decorators)
    if isinstance(func, ast.ClassDef):
        outer |= _names_in_list([*func.bases, *(k.value for k in func.keywords)])
        scope = _function_table(table, func)
        return outer | (_table_globals(scope) if scope is not None else _names_in(func))
    outer |= _names_in_list(func.args.defaults)
    outer |= _names_in_list([*func.args.kw_defaults]) if func.args.kw_defaults else set()
    for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
        if a.annotation is not None:
            outer |= _names_in(a.annotation)
    if func.returns is not None:
        outer |= _names_in(func.returns)
    scope = _function_table(table, func)
    return outer | (_table_globals(scope) if scope is not None else _names_in(func))


def _names_in_list(nodes: list) -> set[str]:
    return set().union(*(_names_in(n) for n in nodes if n is not None)) if nodes else set()


def _function_table(
    table: symtable.SymbolTable, func: ast.FunctionDef | ast.ClassDef
) -> symtable.SymbolTable | None:
    for child in table.get_children():
        if child.get_name() == func.name and child.get_lineno() in (func.lineno, _first_line(func)):
            return child
    return None


def _table_globals(table: symtable.SymbolTable) -> set[str]:
    names = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    for child in table.get_children():
        names |= _table_globals(child)
    return names


def _statement_needs(s: ast.stmt, table: symtable.SymbolTable) -> set[str]:
    """The module-level names a kept statement reads when it runs or, for a function,
    when Triton compiles it (a @jit helper's body)."""
    if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
        return _global_names(table, s)
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return set()
    return _names_in(s)
