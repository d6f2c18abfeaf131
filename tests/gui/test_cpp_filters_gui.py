"""Issue 33 in the app: a C++ file's library functions are hidden from the Kernels pane
by default (how many is said), the filter menu turns each of Compiler Explorer's filters
on and off, the assembly reads with demangled names, and File ▸ Examples and the
Welcome page list the C++ examples."""

from __future__ import annotations

import shutil

import pytest

from gui_helpers import open_and_wait
from kx_testing import ROOT

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
USES_STD = ROOT / "fixtures" / "kernels" / "cpu_filters" / "uses_std.cpp"


def test_library_functions_are_hidden_and_counted_and_the_filter_shows_them(qtbot, make_window):
    w = make_window("cpu:avx2")
    result = open_and_wait(qtbot, w, USES_STD)
    pane = w.kernels_pane
    library = [row for row, k in enumerate(result.kernels) if k.library_code]
    assert library and all(pane.table.isRowHidden(row) for row in library)
    assert not any(pane.table.isRowHidden(row) for row in range(len(result.kernels)) if row not in library)
    assert pane.hidden_note.isVisible() and pane.hidden_note.text().startswith(
        f"{len(library)} library function"
    )
    assert not result.kernels[w.session.kernel_index].library_code  # the first selected is the user's
    w.set_display_filter("hide_library_functions", False)
    assert not any(pane.table.isRowHidden(row) for row in library) and not pane.hidden_note.isVisible()
    w.set_display_filter("hide_library_functions", True)
    assert all(pane.table.isRowHidden(row) for row in library)


def test_the_assembly_reads_demangled_and_the_toggle_brings_the_mangled_names_back(qtbot, make_window):
    w = make_window("cpu:avx2")
    result = open_and_wait(qtbot, w, USES_STD)
    row = next(i for i, k in enumerate(result.kernels) if k.name.startswith("kx_fix::top_k_dot"))
    w.kernels_pane.table.selectRow(row)
    stage = w.stage_pane
    stage.select_stage("asm")
    view = stage.current_view()
    qtbot.waitUntil(lambda: view.fully_loaded)
    assert view.text().splitlines()[0] == f"{result.kernels[row].name}:" and "_ZN6kx_fix" not in view.text()
    assert not any(t.lstrip().startswith("#") for t in view.text().splitlines())
    w.set_display_filter("demangle", False)
    view = stage.current_view()
    qtbot.waitUntil(lambda: view.fully_loaded)
    assert view.text().splitlines()[0].startswith("_ZN6kx_fix9top_k_dot")
    w.set_display_filter("demangle", True)


def test_file_examples_and_the_welcome_page_list_the_cpp_examples(qtbot, make_window):
    from kx_core.base.data import cpp_examples

    w = make_window()
    texts = [a.text() for a in w.features.examples.menu.actions()]
    for path in cpp_examples():
        assert f"{path.parent.name}/{path.name}" in texts and path.exists()
    assert any(t.startswith("cpu/rmsnorm_avx512.cpp") for t in texts) and "cpu_ext/silu_mul_ext.cpp" in texts
    welcome = [w.welcome.examples.item(i).text() for i in range(w.welcome.examples.count())]
    ext = next(t for t in welcome if t.startswith("cpu_ext/silu_mul_ext.cpp"))
    assert "torch extension" in ext
    # an example opens as the tier its name asks for (the GPU target stays for Triton files)
    action = next(a for a in w.features.examples.menu.actions() if a.text() == "cpu/rmsnorm_avx512.cpp")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        action.trigger()
    assert w.session.result.target.spec == "cpu:avx512" and w.session.result.kernels


EXTENSION_LIKE = ROOT / "fixtures" / "kernels" / "cpu_library" / "user" / "scale_rows.cpp"


def test_a_remark_line_links_to_its_source_line_and_that_lines_assembly(qtbot, make_window):
    """The Vectorization stage links like a Triton stage: a click on a remark marks its
    source line, and a click on that line marks the assembly the loop became."""
    from gui_helpers import click_line

    w = make_window("cpu:avx2")
    result = open_and_wait(qtbot, w, EXTENSION_LIKE)
    row = next(i for i, k in enumerate(result.kernels) if k.stages["vectorization"])  # the parallel body
    w.kernels_pane.table.selectRow(row)
    pane = w.stage_pane
    pane.select_stage("vectorization")
    view = pane.current_view()
    qtbot.waitUntil(lambda: view.fully_loaded)
    remark = view.text().splitlines()[0]
    line = int(remark.split(":")[1])
    click_line(qtbot, view, 1)
    assert w.source_pane.view.emphasis == {line}
    pane.select_stage("asm")
    click_line(qtbot, w.source_pane.view, line)
    asm = pane.current_view()
    qtbot.waitUntil(lambda: asm.fully_loaded)
    shown = asm.text().splitlines()
    assert any(shown[n - 1].strip().startswith(("cmp", "jne")) for n in asm.emphasis)  # the loop's control
    click_line(qtbot, w.source_pane.view, line + 1)  # its body: the 32-byte vectors the remark names
    assert any("ymm" in shown[n - 1] for n in asm.emphasis)


def test_a_build_toml_kernel_says_its_flags_in_the_status_line(qtbot, make_window):
    w = make_window("cpu:avx2")
    result = open_and_wait(
        qtbot, w, ROOT / "fixtures" / "kernels" / "cpu_build_toml" / "src" / "widen_avx512.cpp"
    )
    assert result.kernels and "../build.toml [kernel.widen_avx512]'s cxx-flags" in w.status_label.text()
    assert any(d.kind == "flags" for d in result.diagnostics)
