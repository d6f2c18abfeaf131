"""A C++ CPU kernel in the app (issue 19): it opens without a trust question, compiles
with g++ for the CPU target, shows Assembly and Vectorization tabs, and a click on an
intrinsic's line marks the instruction it became."""

from __future__ import annotations

import shutil

import pytest

from gui_helpers import click_line, open_and_wait
from kx_testing import ROOT

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
RMSNORM = ROOT / "kx_core" / "data" / "examples" / "cpu" / "rmsnorm_avx2.cpp"


def test_a_cpp_kernel_opens_to_its_assembly_with_linked_lines(qtbot, make_window):
    w = make_window("cpu:avx2")
    result = open_and_wait(qtbot, w, RMSNORM)
    assert result.target.spec == "cpu:avx2" and len(result.kernels) == 2
    pane = w.stage_pane
    assert [pane.tabs.tabText(i) for i in range(pane.tabs.count())] == ["Assembly", "Vectorization"]
    row = next(i for i, k in enumerate(result.kernels) if "_omp_fn" in k.name)  # the loop body
    w.kernels_pane.table.selectRow(row)
    pane.select_stage("asm")
    view = pane.current_view()
    qtbot.waitUntil(lambda: view.fully_loaded)
    assert ".cfi_" not in view.text()  # the directives filter
    line = next(
        i for i, t in enumerate(RMSNORM.read_text().splitlines(), 1) if "_mm256_fmadd_ps(v, v, acc)" in t
    )
    click_line(qtbot, w.source_pane.view, line)
    shown = view.text().splitlines()
    assert any(shown[n - 1].strip().startswith("vfmadd") for n in view.emphasis)
    assert "cpu:avx2" in w.status_label.text() and "g++" in w.status_label.text()
