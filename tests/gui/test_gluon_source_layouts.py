"""Gluon: a layout written in the source is a link to the Layout pane, drawn at the shape
of the tensors that carry it in the real compile's TTGIR."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from gui_helpers import open_and_wait, settled
from kx_core.base.data import data_path
from kx_core.ir.anatomy import layout_alias_texts
from kx_core.layout.linear import linear_bases

EXAMPLE = data_path("examples", "gluon_transpose.py")


def _click_at(qtbot, view, line: int, col: int) -> None:
    """A real left click on (line, col) of a CodeView."""
    view.scroll_to_line(line)
    qtbot.wait(10)
    cursor = QTextCursor(view.document().findBlockByNumber(line - 1))
    cursor.movePosition(QTextCursor.MoveOperation.Right, n=col)
    rect = view.cursorRect(cursor)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _where(text: str, needle: str) -> tuple[int, int]:
    for i, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return i, line.index(needle) + 3
    raise AssertionError(needle)


def test_clicking_a_source_layout_draws_the_compiled_layout_at_its_tensor_shape(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, EXAMPLE)
    text = EXAMPLE.read_text()
    transpose = next(k for k in result.kernels if k.name == "transpose_kernel")
    ttgir = transpose.stages["ttgir"]
    aliases = layout_alias_texts(ttgir)
    view = w.source_pane.view
    assert view.char_marks, "the layouts are tinted as links"
    # a Gluon kernel has no TTIR: the Stages pane opens on its Gluon IR
    assert w.stage_pane.current_stage() == "gluon" and "tt.func" in w.stage_pane.current_view().text()

    # the load layout (a call over three lines): it is #blocked of the 64x64 tile
    line, col = _where(text, "gl.BlockedLayout(")
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        _click_at(qtbot, view, line, col)
    assert blocker.args[0] == "source"
    settled(qtbot, w.layout_pane)
    pane = w.layout_pane
    assert pane.ownership is not None and pane.ownership.shape == (64, 64)
    alias = next(a for a, t in aliases.items() if "sizePerThread = [1, 4]" in t)
    expected = linear_bases(alias, [64, 64], aliases)  # Triton's own, from the TTGIR
    shown = linear_bases(pane.layout_field.text(), [64, 64])
    assert (shown.reg, shown.lane, shown.warp) == (expected.reg, expected.lane, expected.warp)
    assert f"= {alias} in transpose_kernel" in pane.info.text()

    # a slice of the store layout, clicked on its own call: 1-D, 64 long
    line, col = _where(text, "gl.SliceLayout(1, store_layout)")
    _click_at(qtbot, view, line, col)
    qtbot.waitUntil(lambda: "SliceLayout(1, store_layout)" in pane.info.text(), timeout=60_000)
    settled(qtbot, pane)
    assert pane.ownership.shape == (64,)
    store = next(a for a, t in aliases.items() if "sizePerThread = [4, 1]" in t)
    expected = linear_bases(f"#ttg.slice<{{dim = 1, parent = {store}}}>", [64], aliases)
    shown = linear_bases(pane.layout_field.text(), [64])
    assert (shown.reg, shown.lane, shown.warp) == (expected.reg, expected.lane, expected.warp)


def test_a_layout_in_a_file_shown_without_running_is_not_evaluated(qtbot, make_window):
    w = make_window("cuda:90")
    assert w.features.trust.open_without_running(str(EXAMPLE))
    text = EXAMPLE.read_text()
    line, col = _where(text, "gl.BlockedLayout(")
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        _click_at(qtbot, w.source_pane.view, line, col)
    assert blocker.args[0] == "source_refused"
    assert "not evaluated" in w.layout_pane.info.text() and w.layout_pane.ownership is None


def test_a_helper_built_layout_opens_as_the_compile_made_it(qtbot, make_window, tmp_path):
    """`layout: gl.constexpr = rows_layout(gl.num_warps())`, a @gluon.constexpr_function
    of the file: clicking the helper's call draws the layout the compile gave the tensor
    that uses it, and says where it was read."""
    from kx_testing import ROOT

    path = ROOT / "fixtures" / "kernels" / "gluon" / "helper_layouts.py"
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, path)
    (kernel,) = result.kernels
    aliases = layout_alias_texts(kernel.stages["ttgir"])
    text = path.read_text()
    line, col = _where(text, "rows_layout(gl.num_warps())")
    with qtbot.waitSignal(w.session.view_requested, timeout=10_000) as blocker:
        _click_at(qtbot, w.source_pane.view, line, col)
    assert blocker.args[0] == "source"
    pane = w.layout_pane
    qtbot.waitUntil(lambda: "rows_layout" in pane.info.text(), timeout=60_000)
    settled(qtbot, pane)
    assert pane.ownership is not None and pane.ownership.shape == (64, 64)
    alias = next(a for a, t in aliases.items() if "sizePerThread = [1, 4]" in t)
    expected = linear_bases(alias, [64, 64], aliases)
    shown = linear_bases(pane.layout_field.text(), [64, 64])
    assert (shown.reg, shown.lane, shown.warp) == (expected.reg, expected.lane, expected.warp)
    assert "built by a helper: read from the compile, the tensor of line 28" in pane.info.text()
    pane.grab().save(str(tmp_path / "helper_layout.png"))
