"""Display filters on a real compile: locations, debug info and SASS's //## comments are
hidden, paths shortened, and a link computed on the full text still lands on the
instruction it names."""

from __future__ import annotations

import pytest

from kx_core.ir.display_filters import DisplayFilters, filter_stage
from kx_core.ir.sourcemap import build_source_map
from kx_core.records.backends import ALL_STAGES
from kx_testing import KERNELS

FILE = str(KERNELS / "two_kernels.py")
# what stays hidden in each stage's filtered text
HIDDEN = {
    "ttir": ("loc(", "#loc"),
    "ttgir": ("loc(", "#loc"),
    "llir": ("!dbg", "!DI"),
    "ptx": (".loc\t", ".file\t", ".debug_"),
    "sass": ('//## File "',),
}
SQUARE = {"ttir": "arith.mulf", "ttgir": "arith.mulf", "llir": "fmul", "ptx": "mul.f32", "sass": "FMUL"}


@pytest.fixture(scope="module")
def row_sum(capture):
    return capture("two_kernels.py").kernels[1]


def _filtered(kernel, stage, filters=None):
    return filter_stage(kernel.stages[stage], ALL_STAGES[stage].syntax, filters or DisplayFilters())


def test_locations_and_debug_info_are_hidden(row_sum):
    for stage, needles in HIDDEN.items():
        full, shown = row_sum.stages[stage], _filtered(row_sum, stage).text
        assert any(n in full for n in needles), stage  # there was something to hide
        assert not any(n in shown for n in needles), stage
        assert len(shown.splitlines()) < len(full.splitlines()) or stage == "ttir"


def test_paths_shorten_where_locations_stay(row_sum):
    paths_only = DisplayFilters(hide_locations=False, hide_line_comments=False)
    for stage in ("ttgir", "sass"):
        assert str(KERNELS) in row_sum.stages[stage]
        shown = _filtered(row_sum, stage, paths_only).text
        assert str(KERNELS) not in shown and '"two_kernels.py"' in shown


def test_links_land_on_the_instruction_through_the_filter(row_sum):
    sm = build_source_map(row_sum.stages, FILE)
    line = next(
        i
        for i, t in enumerate((KERNELS / "two_kernels.py").read_text().splitlines(), 1)
        if "return x * x" in t
    )
    for stage, needle in SQUARE.items():
        f = _filtered(row_sum, stage)
        shown = f.text.split("\n")
        lines = f.shown_lines(sm.ir_lines(line)[stage])
        assert any(needle in shown[n - 1] for n in lines), (stage, [shown[n - 1] for n in lines])
        # and back: a shown line is the full text's line it says it is
        for n in lines:
            assert f.shown_line(f.original_line(n)) == n


def test_sass_lines_are_the_full_texts_and_a_comment_maps_to_its_instruction(row_sum):
    full = row_sum.stages["sass"].split("\n")
    f = _filtered(row_sum, "sass", DisplayFilters(shorten_paths=False))
    for shown_no, text in enumerate(f.text.split("\n"), start=1):
        assert full[f.original_line(shown_no) - 1] == text
    comment = next(i for i, t in enumerate(full, 1) if t.lstrip().startswith('//## File "'))
    assert full[f.original_line(f.shown_line(comment)) - 1] == full[comment]  # the next line


def test_no_filters_is_the_full_text(row_sum):
    off = DisplayFilters(hide_locations=False, hide_line_comments=False, shorten_paths=False)
    for stage in HIDDEN:
        f = _filtered(row_sum, stage, off)
        assert f.text == row_sum.stages[stage]
        assert f.originals == tuple(range(1, len(f.text.split("\n")) + 1))
