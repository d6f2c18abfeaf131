"""`kx sweep --ray` on a local Ray instance (the optional extra): compiles as Ray CPU
tasks, measuring on Ray actors (simulated here: no GPU), the same winners as the local
pool, every case keyed by the actor that measured it."""

from __future__ import annotations

import pytest

from kx_core.model.gpu import spec
from kx_core.sweep.run import SweepRequest, sweep
from kx_testing import ROOT, missing_extra

pytestmark = pytest.mark.extra("ray")
ray = pytest.importorskip("ray", reason=missing_extra("ray"))

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
    # the compile tasks' binaries reached the actors through the object store
    assert [c.shipped for c in on_ray.cases] == [c.shipped for c in local.cases]
    assert all(c.shipped and c.compiled_again == 0 for c in on_ray.cases)


def test_a_binary_shared_by_shapes_is_put_in_the_object_store_once(local_ray):
    """Shapes whose sizes are all multiples of 16 share every config's specialization:
    one kernel, one content hash, one object."""
    from kx_core.sweep.ray_pool import compile_remote
    from kx_core.sweep.space import parse_space

    space = tuple(parse_space("BLOCK_M=64,128;BLOCK_N=64;BLOCK_K=32;GROUP_M=8;num_warps=4;num_stages=3"))
    req = SweepRequest(MATMUL, "matmul_kernel", SHAPES[:2], space, target="cuda:90", ray="")
    shipped = [s for _, _, s in compile_remote(req, list(req.shapes))]
    assert [sorted(s) for s in shipped] == [sorted(shipped[0])] * 2 and len(shipped[0]) == 2
    for label in shipped[0]:
        a, b = shipped[0][label], shipped[1][label]
        assert a["digest"] == b["digest"] and a["ref"] == b["ref"]
    files = ray.get(shipped[0][label]["ref"])
    assert f"{a['name']}.cubin" in files


def test_a_cluster_without_gpus_is_refused_with_the_reason(local_ray):
    from kx_core.bench.bench import has_gpu

    if has_gpu():  # the local instance then has this machine's GPUs
        pytest.skip("this machine has a GPU: a local Ray instance is not a cluster without one")
    r = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES[:1], target="cuda:90", ray="", measure="top-k"))
    assert r.measured == "none" and any("no local GPU" in n for n in r.notes)


@pytest.mark.gpu
def test_on_a_gpu_one_ray_actor_measures_what_the_local_worker_measures(local_ray):
    """A local Ray instance with one GPU actor against the local measuring worker, every
    config measured: the same winners, or (two timings of near-equal configs) a Ray
    winner within 3% of the local winner by the local worker's own times; the binaries
    reached the actor through the object store."""
    from kx_core.bench.bench import has_gpu

    if not has_gpu():
        pytest.skip("needs a CUDA GPU")
    shapes = ({"M": 4096, "N": 4096, "K": 1024}, {"M": 1024, "N": 4096, "K": 4096})
    common = dict(measure="all", gpus=1)
    local = sweep(SweepRequest(MATMUL, "matmul_kernel", shapes, **common))
    on_ray = sweep(SweepRequest(MATMUL, "matmul_kernel", shapes, ray="", **common))
    assert on_ray.measured == "gpu" and len(on_ray.workers) == 1
    assert on_ray.workers[0].split(" | ")[0] == local.workers[0].split(" | ")[0]  # the same GPU model
    for a, b in zip(local.cases, on_ray.cases):
        assert a.error is None and b.error is None
        times = {f.label: f.measured_us for f in a.configs}
        assert times[b.winner] <= 1.03 * times[a.winner], (a.label, a.winner, b.winner)
        assert (b.shipped, b.compiled_again) == (16, 0), b.notes


def test_an_actor_whose_gpu_context_was_lost_is_replaced_for_the_next_jobs(local_ray):
    """As the local pool does (tests/sweep/test_sweep_cpu.py): an actor that says its CUDA
    context was lost is killed and a fresh one measures the next job."""
    from kx_core.sweep.dispatch import Pool

    figures = [{"label": "a", "predicted_us": 2.0}, {"label": "b", "predicted_us": 1.0}]
    done = []
    with Pool(1, simulate=True, ray="") as pool:
        first = pool.workers[0].key  # "ray-simulated-<the actor's pid>"
        pool.run([{"figures": figures, "simulate_lost_context": True}, {"figures": figures}], done.append)
        assert pool.workers[0].key != first
    lost, then = sorted(done, key=lambda d: d.job_id)
    assert lost.result is None and "context was lost" in lost.error and lost.key == first
    assert then.error is None and then.result["times_us"] == {"a": 2.0, "b": 1.0} and then.key != first
