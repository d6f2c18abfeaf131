from __future__ import annotations

import pytest

from kx_core.records.results import Target
from kx_core.records.target import TargetError, parse_target


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("cuda:90", Target("cuda", 90, 32)),
        ("sm_80", Target("cuda", 80, 32)),
        ("sm89", Target("cuda", 89, 32)),
        ("100", Target("cuda", 100, 32)),
        ("hip:gfx942", Target("hip", "gfx942", 64)),
        ("gfx90a", Target("hip", "gfx90a", 64)),
    ],
)
def test_spellings(spec, expected):
    assert parse_target(spec) == expected and parse_target(expected.spec) == expected


@pytest.mark.parametrize("spec", ["cuda:", "sm_x", "hip:mi300", "vulkan"])
def test_bad_spellings(spec):
    with pytest.raises(TargetError):
        parse_target(spec)
