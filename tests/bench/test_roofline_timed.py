"""`kx roofline --timed` (issue 31): every config's achieved point from kx's own timing,
beside the predicted one; without a GPU, exit 2 and why."""

from __future__ import annotations

import json

import pytest

from kx_core.bench.bench import has_gpu
from kx_testing import KERNELS, run_kx


@pytest.mark.skipif(has_gpu(), reason="the no-GPU answer")
def test_without_a_gpu_it_says_so():
    p = run_kx("roofline", str(KERNELS / "vector_add.py"), "--timed")
    assert p.returncode == 2 and "no" in p.stderr and "local GPU" in p.stderr


@pytest.mark.skipif(not has_gpu(), reason="times on the local GPU")
def test_every_config_gets_its_achieved_point():
    p = run_kx("roofline", str(KERNELS / "matmul_autotune.py"), "--target", "local", "--timed", "--json")
    assert p.returncode == 0, p.stderr
    kernels = json.loads(p.stdout)["kernels"]
    assert len(kernels) == 4
    for m in kernels:
        s, roof = m["measured_s"], m["roofline"]
        assert s and s > 0
        assert roof["achieved"] == pytest.approx(roof["flops"] / s)  # FLOP/s from kx's timing
        assert roof["percent_of_roof"] == pytest.approx(100 * roof["achieved"] / roof["attainable"])
    # another target than the GPU's: refused, not timed against other kernels
    p = run_kx("roofline", str(KERNELS / "vector_add.py"), "--target", "hip:gfx942", "--timed")
    assert p.returncode == 2 and "--target local" in p.stderr
