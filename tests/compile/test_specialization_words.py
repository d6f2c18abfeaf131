"""Two specializations of one kernel told apart in a few words (Kernels, Roofline):
two_kernels.py launches row_sum_of_squares with a 16-aligned pointer and one that is
not. On hip:gfx942 each pointer also carries tt.pointer_range, which both share: the
words name only what differs ('x_ptrpointer_range' was shown)."""

from __future__ import annotations

import pytest

from kx_core.records.specialization_words import telling_apart


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_only_the_differing_attribute_is_named(capture, target):
    result = capture("two_kernels.py", target)
    words = sorted(telling_apart(result.kernels).values())
    assert words == ["x_ptr not %16", "x_ptr%16"], words
