"""The GPU side of `kx compare` (kx_core.bench.paired): the verdict's statistics, the
no-GPU answer, and on a GPU the verdict against triton.testing.do_bench."""

from __future__ import annotations

import json
import random

import pytest

from kx_core.bench.bench import has_gpu
from kx_core.bench.paired import NOISE_FLOOR, SHORT_NOISE_FLOOR, noise_floor, time_pair, verdict_of
from kx_core.compare.sides import pick
from kx_testing import KERNELS, ROOT, run_kx

AUTOTUNED = str(KERNELS / "matmul_autotune.py")
# 4096^3 over two tiles: 220 and 450 us on an H200, long enough for do_bench to be steady
TWO_TILES = str(ROOT / "fixtures" / "kernels" / "gpu" / "matmul_two_tiles.py")


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
    # a launch-scale call (under 0.1 ms) needs a bigger change: two workers disagree more
    short = [x * 1e-3 for x in a]
    assert noise_floor(0.009) == SHORT_NOISE_FLOOR > noise_floor(0.22) == NOISE_FLOOR
    assert verdict_of(short, [x * 1.03 for x in short])[3] == "no significant difference"
    assert verdict_of(short, [x * 1.08 for x in short])[3] == "slower"


@pytest.mark.skipif(has_gpu(), reason="the no-GPU answer")
def test_without_a_gpu_time_says_so_and_exits_incomplete():
    r = run_kx("compare", f"{AUTOTUNED}#0", f"{AUTOTUNED}#1", "--target", "cuda:90", "--time", "--json")
    assert r.returncode == 4 and "no local GPU" in r.stderr
    assert any("no local GPU" in n for n in json.loads(r.stdout)["notes"])


@pytest.mark.gpu
@pytest.mark.parametrize("path", [TWO_TILES, AUTOTUNED])
def test_the_same_kernel_twice_is_no_difference(path):
    from kx_core.compile import CompileRequest, compile_file

    name = pick(compile_file(CompileRequest(path, target="local")), "0")[0].display_name
    t = time_pair(path, name, path, name, rounds=20)
    assert t.verdict == "no significant difference", t.verdict_text


@pytest.mark.gpu
def test_a_real_difference_has_do_benchs_sign_and_ratio():
    """The verdict has do_bench's sign and its interval holds do_bench's ratio (within the
    noise floor). Rounds are timed as do_bench times a call (25 ms warm-up, 100 ms): with
    25 ms bursts and no warm-up the 128x128 tile timed 227 us against do_bench's 250 us,
    1.97x against 1.75x in every run (NOTES.md)."""
    from kx_core.compile import CompileRequest, compile_file

    kernels = pick(compile_file(CompileRequest(TWO_TILES, target="local")), None)
    t = time_pair(
        TWO_TILES, kernels[0].display_name, TWO_TILES, kernels[-1].display_name, rounds=20, do_bench_runs=5
    )
    oracle = sorted(t.do_bench_ratios)[len(t.do_bench_ratios) // 2]
    assert abs(oracle - 1) > 2 * t.floor  # a real difference, by do_bench too
    assert t.verdict == ("slower" if oracle > 1 else "faster"), (t.verdict_text, t.do_bench_ratios)
    assert t.low - t.floor <= oracle <= t.high + t.floor, (t.verdict_text, t.do_bench_ratios)


@pytest.mark.gpu
def test_hot_lines_follow_the_measured_times():
    """`--hot`: each side's chosen config sampled in its own worker; the per-call times the
    two profiles give agree with the interleaved timing's ratio, and the slower side has
    SASS lines that got slower."""
    r = run_kx(
        "compare", f"{TWO_TILES}#0", f"{TWO_TILES}#1", "--target", "local", "--time", "--hot", "--json"
    )
    assert r.returncode == 0, r.stderr
    pair = json.loads(r.stdout)["pairs"][0]
    timing, hot = pair["timing"], pair["timing"]["hot_lines"]
    assert hot["samples_a"] > 1000 and hot["samples_b"] > 1000
    sampled = hot["call_us_b"] / hot["call_us_a"]
    assert timing["low"] * 0.85 <= sampled <= timing["high"] * 1.15, (sampled, timing)
    slower_side = "slower" if timing["ratio"] > 1 else "faster"
    assert hot[slower_side]["sass"], hot
    # placed by compulsory bytes, a GEMM is under its roof (requested bytes put it at 200%)
    for tag in ("a", "b"):
        assert timing[f"roofline_{tag}"]["bytes"] == "each tensor once"
        assert 0 < timing[f"roofline_{tag}"]["percent_of_roof"] <= 100
