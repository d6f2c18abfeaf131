"""`kx sweep` without a GPU: every config of every shape compiled through kx's capture,
its figures those of the compiled records, pruned as the GPU would, ranked by the model;
the measuring step through the same dispatch path with simulated workers (the model's
figures as their measurement); the exit status and note when nothing could be measured."""

from __future__ import annotations

import json

import pytest
import triton

from kx_core.compile import CompileRequest, compile_file
from kx_core.model.gpu import spec
from kx_core.sweep.driver import script
from kx_core.sweep.result import tuned_configs
from kx_core.sweep.run import SweepRequest, sweep
from kx_core.sweep.space import parse_space
from kx_testing import ROOT, run_kx

SWEEP = ROOT / "fixtures" / "kernels" / "sweep"
MATMUL = str(SWEEP / "matmul.py")
SHAPES = (
    {"M": 1024, "N": 1024, "K": 512},
    {"M": 4096, "N": 4096, "K": 4096},
    {"M": 256, "N": 4096, "K": 4096},
)
H200 = spec("h200")
# a tile whose pipeline needs more shared memory than an H200 SM has (4 x 256x256x64 fp16)
SPACE = "BLOCK_M=64,128,256;BLOCK_N=128,256;BLOCK_K=64;GROUP_M=8;num_warps=8;num_stages=4"


@pytest.fixture(scope="module")
def simulated():
    req = SweepRequest(MATMUL, "matmul_kernel", SHAPES, target="cuda:90", gpu=H200, simulate=True, gpus=3,
                       top_k=3, env={"KX_SWEEP_SIMULATE_S": "0.5"})  # fmt: skip
    return sweep(req)


def test_every_config_is_compiled_and_its_figures_are_the_records(simulated, tmp_path):
    case = simulated.cases[0]
    assert len(case.configs) == 16 and case.error is None
    driver = tmp_path / "one.py"
    driver.write_text(script(MATMUL, "matmul_kernel", None, SHAPES[0], None))
    records = {k.config.label: k for k in compile_file(CompileRequest(str(driver), target="cuda:90")).kernels}
    for f in case.configs:  # the registers and shared memory of the cubin Triton built
        meta = records[f.label].metadata
        assert (f.registers, f.spills, f.shared) == (meta.registers, meta.spills, meta.shared)
    ranks = sorted(f.model_rank for f in case.configs if f.pruned is None)
    assert ranks == list(range(1, 17))
    by_rank = sorted((f for f in case.configs if f.model_rank), key=lambda f: f.model_rank)
    assert all(a.rank_us <= b.rank_us for a, b in zip(by_rank, by_rank[1:]))


def test_the_top_the_uncertain_and_the_default_are_measured(simulated):
    for case in simulated.cases:
        timed = [f for f in case.configs if f.measured_us is not None]
        third = sorted(f.rank_us for f in case.configs)[2]
        assert {f.label for f in timed} >= {f.label for f in case.configs if f.model_rank <= 3}
        assert case.configs[0].measured_us is not None  # the default's regret is measured
        extra = [f for f in timed if f.model_rank > 3 and f is not case.configs[0]]
        assert all(f.rank_us <= third * 1.1 for f in extra)
        # simulated: the measurement is the model's own figure, and says so
        assert case.simulated and all(f.measured_us == f.predicted_us for f in timed)
        assert (
            case.winner_in_top3
            and case.regret_model == pytest.approx(0.0, abs=1e-9)
            or case.regret_model >= 0
        )


def test_each_case_is_measured_by_one_worker_and_the_workers_share_the_jobs(simulated):
    keys = {c.gpu_key for c in simulated.cases}
    assert None not in keys and len(keys) >= 2  # the jobs spread over the pool
    assert set(simulated.shares) == keys <= set(simulated.workers)
    measured = sum(1 for c in simulated.cases for f in c.configs if f.measured_us is not None)
    assert sum(simulated.shares.values()) == measured
    assert {c.worker for c in simulated.cases} <= {0, 1, 2}  # which worker, where keys repeat


def test_every_measured_config_reaches_its_worker_as_the_binary_the_compile_side_built(simulated):
    """Each worker read back, through Triton's own loader, the kernel of every config it
    was given (kx_core.sweep.binaries); nothing was compiled where it was measured."""
    for case in simulated.cases:
        timed = [f for f in case.configs if f.measured_us is not None]
        assert case.shipped == len(timed) and case.compiled_again == 0, case.label
    s = simulated.summary()
    assert s["shipped"] == sum(simulated.shares.values()) and s["compiled_again"] == 0


def test_without_shipping_the_workers_get_no_binaries(monkeypatch):
    monkeypatch.setenv("KX_SWEEP_SHIP", "0")
    r = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES[:1], target="cuda:90", gpu=H200, simulate=True,
                           gpus=1, top_k=3))  # fmt: skip
    assert r.cases[0].winner is not None and r.cases[0].shipped == 0


def test_workers_are_pinned_to_their_gpu_or_to_the_devices_asked_for(monkeypatch):
    from kx_core.sweep.dispatch import device_of

    monkeypatch.delenv("KX_SWEEP_DEVICES", raising=False)
    assert [device_of(i) for i in range(3)] == ["0", "1", "2"]
    monkeypatch.setenv("KX_SWEEP_DEVICES", "0,0")  # two workers on one GPU (kx sweep --devices)
    assert [device_of(i) for i in range(3)] == ["0", "0", "0"]


def test_one_worker_and_three_pick_the_same_winners(simulated):
    one = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES, target="cuda:90", gpu=H200, simulate=True,
                             gpus=1, top_k=3))  # fmt: skip
    assert [c.winner for c in one.cases] == [c.winner for c in simulated.cases]
    assert len(one.shares) == 1


def test_a_tile_the_gpu_cannot_hold_is_pruned_with_the_reason():
    r = sweep(SweepRequest(MATMUL, "matmul_kernel", SHAPES[1:2], tuple(parse_space(SPACE)), target="cuda:90",
                           gpu=H200, measure="none"))  # fmt: skip
    case = r.cases[0]
    pruned = {f.label: f.pruned for f in case.configs if f.pruned}
    assert list(pruned) == ["BLOCK_M=256,BLOCK_N=256,BLOCK_K=64,GROUP_M=8,w8,s4"]
    assert "shared" in next(iter(pruned.values()))
    big = next(f for f in case.configs if f.pruned)
    assert big.model_rank is None and big.measured_us is None
    if big.shared:  # the capture keeps the compiled figures of a config it refuses
        assert big.shared > H200.smem_per_block


def test_the_tuned_table_goes_straight_into_triton_config(simulated):
    tables = tuned_configs(simulated)
    assert {t["gpu_key"] for t in tables} == set(simulated.shares)
    for t in tables:
        assert t["simulated"]
        for value in t["shapes"].values():
            cfg = triton.Config(**value)
            assert cfg.kwargs["BLOCK_M"] in (32, 64, 128, 256)


def test_without_a_gpu_the_cli_ranks_and_says_nothing_was_measured(tmp_path):
    csv_path = tmp_path / "sweep.csv"
    r = run_kx("sweep", str(SWEEP / "softmax.py"), "--kernel", "softmax_kernel", "--shape", "M=4096,N=1024",
               "--target", "cuda:90", "--json", "--csv", str(csv_path))  # fmt: skip
    assert r.returncode == 4, r.stderr
    out = json.loads(r.stdout)
    assert out["measured"] == "none" and any("no local GPU" in n for n in out["notes"])
    assert len(out["cases"][0]["configs"]) == 12 and out["cases"][0]["winner"] is None
    assert len(csv_path.read_text().splitlines()) == 13


def test_bad_input_is_a_usage_error_with_the_reason():
    r = run_kx("sweep", MATMUL, "--kernel", "matmul_kernel", "--shape", "M=4096,K")
    assert r.returncode == 2 and "'K' is not NAME=INTEGER" in r.stderr
    # no shape: the file's own launches are the shapes (test_sweep_calls); a file that
    # launches none is told to give one
    r = run_kx("sweep", str(SWEEP / "faulting.py"), "--kernel", "copy_kernel", "--target", "cuda:90")
    assert r.returncode == 2 and "launched no copy_kernel" in r.stderr and "give --shape" in r.stderr
    r = run_kx("sweep", MATMUL, "--kernel", "nope", "--shape", "M=64,N=64,K=64", "--target", "cuda:90")
    assert r.returncode == 1 and "no kernel named 'nope'" in r.stderr


def test_a_worker_whose_gpu_context_was_lost_is_replaced_for_the_next_jobs():
    """A measuring worker that says its CUDA context was lost (an illegal address on a real
    GPU: every later call fails) ends; the pool starts a fresh one on the same device, so
    the next job is measured (the dispatch path, with a simulated worker)."""
    from kx_core.sweep.dispatch import Pool

    figures = [{"label": "a", "predicted_us": 2.0}, {"label": "b", "predicted_us": 1.0}]
    done = []
    with Pool(1, simulate=True) as pool:
        first = pool.workers[0].proc.pid
        pool.run([{"figures": figures, "simulate_lost_context": True}, {"figures": figures}], done.append)
        assert pool.workers[0].proc.pid != first
    lost, then = sorted(done, key=lambda d: d.job_id)
    assert lost.result is None and "context was lost" in lost.error
    assert then.error is None and then.result["times_us"] == {"a": 2.0, "b": 1.0}
