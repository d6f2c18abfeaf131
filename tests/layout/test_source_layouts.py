"""The layouts a Gluon source writes, evaluated with Triton's own classes and tied to the
real compile: each one kx matches is, by Triton's linear layouts (distributed) or shared
placement, the very layout the TTGIR's tensors carry."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from kx_core.base.data import data_path
from kx_core.compile import CompileRequest, compile_file
from kx_core.ir.anatomy import layout_alias_texts, parse_layout
from kx_core.layout.linear import linear_bases
from kx_core.layout.shared import placement
from kx_core.layout.source_layouts import (
    CLASSES,
    SourceLayoutError,
    _canonical,
    find_layout_calls,
    render,
    source_layout_here,
)
from kx_testing import ROOT

FILES = {
    "transpose": data_path("examples", "gluon_transpose.py"),
    "wgmma": ROOT / "fixtures" / "kernels" / "gluon" / "wgmma_tile.py",
    "helpers": ROOT / "fixtures" / "kernels" / "gluon" / "helper_layouts.py",
}


@pytest.fixture(scope="module", params=sorted(FILES))
def compiled(request):
    path = FILES[request.param]
    result = compile_file(CompileRequest(file=str(path), target="cuda:90"))
    assert result.kernels and all(k.status == "compiled" for k in result.kernels)
    return path.read_text(), result


def test_the_attribute_names_are_tritons_own():
    """Every Gluon attribute kx reads exists on the installed Triton's class, in the order
    its constructor takes them."""
    from triton.experimental.gluon.language import _layouts
    from triton.experimental.gluon.language.amd import _layouts as amd

    for name, (_kind, fields) in CLASSES.items():
        cls = getattr(_layouts, name, None) or getattr(amd, name)
        params = list(inspect.signature(cls).parameters)
        assert [a for a, _ in fields if a in params] == [a for a, _ in fields], name


def _ttgirs(result):
    return [(k.display_name, k.stages["ttgir"]) for k in result.kernels]


def test_every_source_layout_is_the_layout_the_compile_used(compiled):
    text, result = compiled
    calls = find_layout_calls(text)
    assert len(calls) >= 5
    for call in calls:
        owner = next((k for k in result.kernels if k.name == call.scope), result.kernels[0])
        found = source_layout_here(
            text, call.line, call.col + 1, dict(owner.launch.constexprs), _ttgirs(result)
        )
        assert found.shapes, f"line {call.line}: {call.text}: {found.note}"
        kernel = next(k for k in result.kernels if k.display_name == found.kernel)
        aliases = layout_alias_texts(kernel.stages["ttgir"])
        shape = list(found.shape)
        if found.shared:
            assert np.array_equal(placement(found.attr, shape, {}), placement(found.alias, shape, aliases))
        else:
            mine, theirs = linear_bases(found.attr, shape, {}), linear_bases(found.alias, shape, aliases)
            assert (mine.reg, mine.lane, mine.warp) == (theirs.reg, theirs.lane, theirs.warp), call.text
        # the shape drawn is one a tensor of that kernel really has, with that layout
        spelled = "x".join(map(str, shape))
        assert any(spelled in line and found.alias in line for line in kernel.stages["ttgir"].splitlines())


def test_kx_renders_each_compiled_alias_as_triton_prints_it(compiled):
    """render(parse(alias)) means the same layout as the alias (Triton's linear layouts)."""
    _text, result = compiled
    checked = 0
    for kernel in result.kernels:
        ttgir = kernel.stages["ttgir"]
        aliases = layout_alias_texts(ttgir)
        for alias, attr in aliases.items():
            layout = _canonical(parse_layout(attr), aliases)
            if layout["kind"] not in {kind for kind, _ in CLASSES.values()}:
                continue
            again = render(layout)
            assert _canonical(parse_layout(again), {}) == layout
            if layout["kind"] == "blocked":
                shape = [64] * len(layout["sizePerThread"])
                a, b = linear_bases(again, shape, {}), linear_bases(alias, shape, aliases)
                assert (a.reg, a.lane, a.warp) == (b.reg, b.lane, b.warp)
            checked += 1
    assert checked


def test_a_layout_that_needs_a_runtime_value_says_which():
    text = (
        "from triton.experimental import gluon\n"
        "from triton.experimental.gluon import language as gl\n"
        "@gluon.jit\n"
        "def k(x, W: gl.constexpr):\n"
        "    lay: gl.constexpr = gl.BlockedLayout([1], [32], [W], [0])\n"
        "    bad: gl.constexpr = gl.BlockedLayout([1], [32], [4])\n"
    )
    with pytest.raises(SourceLayoutError, match="W is known only when the kernel runs"):
        source_layout_here(text, 5, 30, {}, [])
    found = source_layout_here(text, 5, 30, {"W": 8}, [])  # the launch's constexpr
    assert found.layout["warpsPerCTA"] == [8] and not found.shapes and "yours to set" in found.note
    with pytest.raises(SourceLayoutError, match="BlockedLayout"):
        source_layout_here(text, 6, 30, {}, [])  # a missing argument: Triton's own TypeError
    assert find_layout_calls("def broken(:\n    gl.BlockedLayout([1], [32], [4], [0])\n") == []


def test_only_the_files_triton_imports_run():
    """The file's other imports are not executed to evaluate a layout."""
    text = (
        "import os\n"
        "from triton.experimental.gluon import language as gl\n"
        "L = gl.BlockedLayout([1], [32], [os.cpu_count()], [0])\n"
    )
    with pytest.raises(SourceLayoutError, match="os is known only"):
        source_layout_here(text, 3, 10, {}, [])


def test_a_tutorial_for_another_triton_still_evaluates_what_it_can():
    """An import this Triton lacks leaves out that name only; gl.num_warps() is the
    launch's; names the __main__ block binds are the file's."""
    text = (
        "from triton.experimental.gluon import language as gl\n"
        "from triton.experimental.gluon.language.nvidia.blackwell import no_such_helper, TensorMemoryLayout\n"
        "L = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])\n"
        "if __name__ == '__main__':\n"
        "    warps = 4\n"
        "    M = gl.BlockedLayout([2], [32], [warps], [0])\n"
        "    T = no_such_helper(M)\n"
    )
    from kx_core.layout.source_layouts import NUM_WARPS

    assert source_layout_here(text, 3, 10, {NUM_WARPS: 8}, []).layout["warpsPerCTA"] == [8]
    assert source_layout_here(text, 6, 10, {}, []).layout["warpsPerCTA"] == [4]


def test_a_layout_parameter_is_the_launchs_constexpr(compiled):
    """`gl.arange(0, BLOCK, layout=layout)` with `layout` a constexpr parameter: the
    layout the launch passed, not a module-level name of the same spelling."""
    text, result = compiled
    from kx_core.layout.source_layouts import PARAMETER

    params = [c for c in find_layout_calls(text) if c.name == PARAMETER]
    if not params:
        pytest.skip("no layout parameter in this file")
    for call in params:
        owner = next(k for k in result.kernels if k.name == call.scope)
        found = source_layout_here(
            text, call.line, call.col + 1, dict(owner.launch.constexprs), _ttgirs(result)
        )
        assert found.kernel == owner.display_name and found.shapes
        spelled = owner.launch.constexprs[call.text]
        assert f"size_per_thread={found.layout['sizePerThread']}" in spelled.replace(" ", "").replace(
            ",", ", "
        )


def test_a_helper_built_layout_is_the_one_triton_builds():
    """Layouts a `@gluon.constexpr_function` builds (as Triton's Gluon tutorials build
    theirs) are clickable where they are built, where they are used and inside the
    helper; kx reads each from the compile, and it is, by Triton's linear layouts, the
    layout Triton's own helper returns for the launch (num_warps=4)."""
    import importlib.util

    from triton.experimental.gluon import language as gl

    from kx_core.layout.source_layouts import COMPILED, layout_dict

    path = FILES["helpers"]
    spec = importlib.util.spec_from_file_location("helper_layouts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def value(x):
        return getattr(x, "value", x)

    rows = value(module.rows_layout(4))
    cols = value(module.columns_of(rows))
    names = {"gl": gl, "layout": rows, "out_layout": cols, "num_warps": 4}
    names |= {"rows_layout": module.rows_layout, "columns_of": module.columns_of}
    text = path.read_text()
    result = compile_file(CompileRequest(file=str(path), target="cuda:90"))
    (kernel,) = result.kernels
    calls = find_layout_calls(text)
    assert {c.name for c in calls} >= {COMPILED, "BlockedLayout", "SliceLayout"}
    checked = 0
    for call in calls:
        found = source_layout_here(
            text, call.line, call.col + 1, dict(kernel.launch.constexprs), _ttgirs(result)
        )
        expected = value(eval(call.text.replace("gl.num_warps()", "4"), dict(names)))  # noqa: S307
        shape = list(found.shape)
        assert found.shapes and found.kernel == kernel.display_name, call.text
        mine = linear_bases(found.attr, shape, {})
        theirs = linear_bases(render(layout_dict(expected)), shape, {})
        assert (mine.reg, mine.lane, mine.warp) == (theirs.reg, theirs.lane, theirs.warp), (
            call.line,
            call.text,
        )
        checked += 1
    assert checked >= 8
