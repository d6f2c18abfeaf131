"""Side-by-side diffs of real IR: a pass's before/after, and two stages."""

from __future__ import annotations

from kx_core.ir.passes import ir_around
from kx_core.ir.textdiff import side_by_side


def test_coalesce_pass_diff_shows_the_new_layout(capture):
    k = capture("vector_add.py", passes=True).kernels[0]
    i = next(i for i, p in enumerate(k.passes) if p.argument == "tritongpu-coalesce")
    before, after = ir_around(k.passes, i)
    assert after is not None and before != after
    diff = side_by_side(before, after, ignore_numbering=True)
    assert not diff.identical
    added = [after.splitlines()[n - 1] for n in diff.changed_right]
    assert any("#ttg.blocked" in line for line in added)
    # an unchanged pass diffs as identical once renumbering is ignored
    j = next(
        j for j, p in enumerate(k.passes) if p.kind == "mlir" and not p.changed and ir_around(k.passes, j)[1]
    )
    b, a = ir_around(k.passes, j)
    assert side_by_side(b, a, ignore_numbering=True).identical


def test_rows_cover_both_texts_and_intraline_spans():
    left = "a = 1\nb = 2\nc = 3\n"
    right = "a = 1\nb = 7\nc = 3\nd = 4\n"
    diff = side_by_side(left, right)
    assert [r.left for r in diff.rows if r.left] == [1, 2, 3]
    assert [r.right for r in diff.rows if r.right] == [1, 2, 3, 4]
    assert diff.changed_left == {2} and diff.changed_right == {2, 4}
    assert diff.left_spans[2] == [(4, 1)] and diff.right_spans[2] == [(4, 1)]


def test_renumbering_is_ignored_on_request():
    a = "%x_3 = arith.addi %a_1, %b_2 : i32 loc(#loc12)"
    b = "%x_5 = arith.addi %a_4, %b_9 : i32 loc(#loc30)"
    assert not side_by_side(a, b).identical
    assert side_by_side(a, b, ignore_numbering=True).identical
