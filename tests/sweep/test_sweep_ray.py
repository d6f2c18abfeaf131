"""`kx sweep --ray` on a local Ray instance (the optional extra): compiles as Ray CPU
tasks, measuring on Ray actors (simulated here: no GPU), the same winners as the local
pool, every case keyed by the actor that measured it."""

from __future__ import annotations

import pytest

from kx_core.model.gpu import spec
from kx_core.sweep.run import SweepRequest, sweep
from kx_testing import ROOT

ray = pytest.importorskip("ray", reason="the 'ray' extra: pip install 'kx[ray]'")

MATMUL = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SHAPES = (
    {"M": 1024, "N": 1024, "K": 512},
    {"M": 4096, "N": 4096, "K": 4096},
    {"M": 256, "N": 4096, "K": 4096},
)


@pytest.fixture(scope="module")
def local_ray():
    yield
    if ray.is_initialized():
        ray.shutdown()


def test_ray_gives_the_local_pools_winners(local_ray):
    common = dict(target="cuda:90", gpu=spec("h200"), simulate=True, gpus=2, top_k=3,
                  env={"KX_SWEEP_SIMULATE_S": "0.5"})  # fmt: skip
    local = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES, **common))
    on_ray = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES, ray="", **common))
    assert [c.winner for c in on_ray.cases] == [c.winner for c in local.cases]
    assert all(c.winner and c.error is None for c in on_ray.cases)
    assert all(k.startswith("ray-simulated-") for k in on_ray.workers) and len(on_ray.workers) == 2
    assert {c.gpu_key for c in on_ray.cases} <= set(on_ray.workers)
    assert sum(on_ray.shares.values()) == sum(local.shares.values())


def test_a_cluster_without_gpus_is_refused_with_the_reason(local_ray):
    r = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES[:1], target="cuda:90", ray="", measure="top-k"))
    assert r.measured == "none" and any("no local GPU" in n for n in r.notes)
