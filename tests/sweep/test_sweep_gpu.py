"""`kx sweep` on the local GPU: its interleaved measurement against triton.testing.do_bench
on the same configs (kx bench --configs all --do-bench of the same shape's driver), one
measuring worker keyed by its GPU, and triton.autotune's own pick as the reference."""

from __future__ import annotations

import pytest

from kx_core.base.stats import spearman
from kx_core.bench.bench import bench_file, has_gpu
from kx_core.sweep.driver import script
from kx_core.sweep.run import SweepRequest, sweep
from kx_testing import ROOT

pytestmark = pytest.mark.gpu
MATMUL = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SHAPE = {"M": 4096, "N": 4096, "K": 1024}


@pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")
def test_the_sweeps_times_rank_as_do_bench_ranks(tmp_path):
    r = sweep(SweepRequest(MATMUL, "matmul_kernel", (SHAPE,), measure="all", gpus=1, versus_autotune=True))
    case = r.cases[0]
    assert case.error is None and r.measured == "gpu"
    assert case.gpu_key.startswith(case.measured_on) and r.shares == {case.gpu_key: 16}
    # every config timed is the binary kx's capture built: Triton's key on the GPU side is
    # the compile side's (kx_core.sweep.binaries), so the worker compiled none again
    assert (case.shipped, case.compiled_again) == (16, 0), case.notes
    driver = tmp_path / "shape.py"
    driver.write_text(script(MATMUL, "matmul_kernel", None, SHAPE, None))
    ref = {
        t.config: t.do_bench_ms * 1e3
        for t in bench_file(str(driver), "matmul_kernel", True, do_bench=True).timings
    }
    ours = {f.label: f.measured_us for f in case.configs}
    labels = sorted(ref)
    assert set(labels) == set(ours)
    rho = spearman([ours[x] for x in labels], [ref[x] for x in labels])
    assert rho >= 0.9, (rho, ours, ref)
    assert ref[case.winner] <= 1.03 * min(ref.values()), (case.winner, ref)
    # Triton's own autotuner over the same configs picks a config as fast (within 3%)
    assert case.triton_pick in ref and ref[case.triton_pick] <= 1.03 * ref[case.winner] * 1.03


@pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")
def test_a_shape_that_faults_the_gpu_does_not_fail_the_shapes_after_it():
    """An illegal address leaves the measuring process's CUDA context unusable (every later
    call fails): the shape that faulted says so, and the next shape is measured by a
    fresh worker on the same GPU."""
    faulting = str(ROOT / "fixtures" / "kernels" / "sweep" / "faulting.py")
    shapes = ({"N": 4096, "FAULT": 1}, {"N": 4096, "FAULT": 0})
    r = sweep(SweepRequest(faulting, "copy_kernel", shapes, measure="all", gpus=1))
    bad, good = r.cases
    assert bad.winner is None and "context was lost" in (bad.error or " ".join(bad.notes)), (
        bad.error,
        bad.notes,
    )
    assert good.error is None and good.winner is not None, (good.error, good.notes)
    assert all(f.measured_us for f in good.configs)
