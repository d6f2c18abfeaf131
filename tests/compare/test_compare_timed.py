"""The GPU side of `kx compare` (kx_core.bench.paired): the verdict's statistics, the
no-GPU answer, and on a GPU the verdict against triton.testing.do_bench."""

from __future__ import annotations

import json
import random

import pytest

from kx_core.bench.bench import has_gpu
from kx_core.bench.paired import NOISE_FLOOR, time_pair, verdict_of
from kx_core.compare.sides import pick
from kx_testing import KERNELS, run_kx

AUTOTUNED = str(KERNELS / "matmul_autotune.py")


def test_the_verdict_follows_the_interval():
    rng = random.Random(7)
    a = [10.0 * (1 + rng.gauss(0, 0.004)) for _ in range(20)]
    same = [10.0 * (1 + rng.gauss(0, 0.004)) for _ in range(20)]
    ratio, low, high, verdict = verdict_of(a, same)
    assert low <= ratio <= high and verdict == "no significant difference"
    slower = [x * 1.08 for x in same]
    ratio, low, high, verdict = verdict_of(a, slower)
    assert low > 1 and verdict == "slower" and ratio == pytest.approx(1.08, rel=0.01)
    assert verdict_of(slower, a)[3] == "faster"
    # an interval that excludes 1 by less than the noise floor is no difference
    tiny = [x * (1 + NOISE_FLOOR / 4) for x in a]
    assert verdict_of(a, tiny)[3] == "no significant difference"
    assert verdict_of(a, slower, seed=3)[1:3] == verdict_of(a, slower, seed=3)[1:3]  # seeded


@pytest.mark.skipif(has_gpu(), reason="the no-GPU answer")
def test_without_a_gpu_time_says_so_and_exits_incomplete():
    r = run_kx("compare", f"{AUTOTUNED}#0", f"{AUTOTUNED}#1", "--target", "cuda:90", "--time", "--json")
    assert r.returncode == 4 and "no local GPU" in r.stderr
    assert any("no local GPU" in n for n in json.loads(r.stdout)["notes"])


@pytest.mark.gpu
def test_the_same_kernel_twice_is_no_difference(capture):
    name = pick(capture("matmul_autotune.py", "local"), "0")[0].display_name
    t = time_pair(AUTOTUNED, name, AUTOTUNED, name, rounds=20)
    assert t.verdict == "no significant difference", t.verdict_text
    assert t.low <= 1 + NOISE_FLOOR and t.high >= 1 - NOISE_FLOOR


@pytest.mark.gpu
def test_a_real_difference_agrees_with_do_bench(capture):
    kernels = pick(capture("matmul_autotune.py", "local"), None)
    a, b = kernels[0].display_name, kernels[-1].display_name
    t = time_pair(AUTOTUNED, a, AUTOTUNED, b, rounds=20, do_bench_runs=10)
    oracle = sorted(t.do_bench_ratios)[len(t.do_bench_ratios) // 2]
    # do_bench's own ratio lies in kx's interval (give or take the noise floor) ...
    assert t.low - NOISE_FLOOR <= oracle <= t.high + NOISE_FLOOR, (t.verdict_text, t.do_bench_ratios)
    # ... and where do_bench sees a difference beyond the floor, kx's verdict has its sign
    if abs(oracle - 1) > 2 * NOISE_FLOOR:
        assert t.verdict == ("slower" if oracle > 1 else "faster"), (t.verdict_text, oracle)
