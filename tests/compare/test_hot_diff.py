"""The hot-line difference of two builds (kx_core/compare/hot_diff.py) on the matmul's
PC samples recorded on the H200 (fixtures/profile, scripts/gpu_profile_ground_truth.sh):
a build against itself changes no line; against the same build with lines added above
the kernel, every line pairs with its moved self; a build whose calls take twice as
long puts twice the time on every line. (Two real profiles of two builds are left for a
GPU session: NOTES.md.)"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kx_core.bench.profile import KernelProfile
from kx_core.compare.hot_diff import hot_diff, stage_pairs
from kx_core.ir.hot_lines import attribute
from kx_testing import ROOT

PROFILE = ROOT / "fixtures" / "profile" / "kx_matmul.json"


@pytest.fixture(scope="module")
def profile():
    k = KernelProfile.from_json(json.loads(PROFILE.read_text())["kernels"][0])
    return k, attribute(k), k.window_ms / k.calls * 1e3


def test_a_build_against_itself_changes_no_line(profile):
    k, hot, call_us = profile
    texts = dict(k.stages)
    d = hot_diff(hot, hot, call_us, call_us, texts, texts)
    assert d.lines and all(x.delta_us == 0 and x.line_a == x.line_b for x in d.lines)
    sass = sum(x.us_a for x in d.lines if x.stage == "sass")
    assert sass == pytest.approx(call_us)  # every sample is on a SASS line


def test_lines_added_above_pair_each_line_with_its_moved_self(profile):
    k, hot, call_us = profile
    source = "\n".join(f"line {i}" for i in range(1, max(hot.by_stage["source"]) + 1))
    moved = "# one\n# two\n# three\n" + source
    hot_b = replace(
        hot, by_stage=hot.by_stage | {"source": {n + 3: h for n, h in hot.by_stage["source"].items()}}
    )
    d = hot_diff(hot, hot_b, call_us, call_us, {"source": source}, {"source": moved})
    rows = [x for x in d.lines if x.stage == "source"]
    assert rows and all(x.line_b == x.line_a + 3 and x.delta_us == 0 for x in rows)


def test_slower_calls_put_more_time_on_every_line(profile):
    k, hot, call_us = profile
    texts = dict(k.stages)
    d = hot_diff(hot, hot, call_us, 2 * call_us, texts, texts)
    for x in d.lines:
        assert x.us_b == pytest.approx(2 * x.us_a)
    slower = d.slower("sass", n=3)
    assert len(slower) == 3 and slower[0].delta_us >= slower[-1].delta_us > 0


def test_stage_lines_pair_across_renumbering():
    a = "%1 = arith.addf %0, %0 : f32\n%2 = arith.mulf %1, %1 : f32"
    b = "%7 = arith.constant 1.0 : f32\n%8 = arith.addf %6, %6 : f32\n%9 = arith.mulf %8, %8 : f32"
    assert stage_pairs(a, b) == {1: 2, 2: 3}
