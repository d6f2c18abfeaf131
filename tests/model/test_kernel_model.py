"""Models of real captured kernels: FLOPs and bytes from the TTIR equal the formulas,
occupancy from the cubin's register count equals the calculator worked by hand, the
roofline's ridge and bounds, Spearman's rho, the spec table."""

from __future__ import annotations

import base64
from math import ceil

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.resources import cubin_resources
from kx_core.model import gemm
from kx_core.model.gpu import A100_SXM, H100_SXM, H200, SPECS, for_arch, spec
from kx_core.model.kernel import gpu_for, model_kernel, spearman
from kx_core.model.occupancy import curves, occupancy
from kx_core.model.roofline import roofline
from kx_core.model.work import estimate
from kx_testing import KERNELS, ROOT

IR = ROOT / "fixtures" / "ir"


@pytest.mark.parametrize("version", ["3.6.0", "3.9.0"])
@pytest.mark.parametrize("target", ["cuda80", "cuda90"])
def test_fixture_ttir_work_equals_the_formulas(version, target):
    # matmul.py: M = N = K = 512, 64x64x32 tiles, an 8x8 grid
    m = estimate(
        (IR / version / target / "matmul.ttir.mlir").read_text(), {"M": 512, "N": 512, "K": 512}, (8, 8, 1)
    )
    assert m.flops == gemm.gemm_flops(512, 512, 512) == m.dot_flops
    assert m.bytes == gemm.tiled_bytes(512, 512, 512, gemm.TileConfig(64, 64, 32))
    assert m.precision == "fp16" and not m.unknown_loops
    # vector_add.py: 98432 floats in blocks of 1024: 97 programs, the last one partly masked
    a = estimate((IR / version / target / "add.ttir.mlir").read_text(), {"n_elements": 98432}, (97, 1, 1))
    assert a.flops == 97 * 1024 and a.bytes == 97 * 1024 * 3 * 4 and a.precision == "fp32"


def test_unknown_loop_bounds_are_reported_not_guessed():
    m = estimate((IR / "3.9.0" / "cuda90" / "matmul.ttir.mlir").read_text(), {}, (8, 8, 1))
    assert m.unknown_loops and m.flops == 64 * 2 * 64 * 64 * 32 and "counted once" in m.notes[0]


@pytest.fixture(scope="module")
def autotuned():
    r = compile_file(CompileRequest(file=str(KERNELS / "matmul_autotune.py"), target="cuda:90"))
    assert len(r.kernels) >= 4
    return r.kernels


def test_captured_autotune_configs_model(autotuned):
    for k in autotuned:
        m = model_kernel(k, H100_SXM)  # the table's sm_90 GPU, on any machine
        assert model_kernel(k).gpu == gpu_for(k).name  # by default the local GPU of that arch, if any
        cfg = k.config.kwargs
        M = N = K = 512
        tile = gemm.TileConfig(
            cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"], k.config.num_warps, k.config.num_stages
        )
        assert m.work.flops == gemm.gemm_flops(M, N, K)
        assert m.work.bytes == gemm.tiled_bytes(M, N, K, tile)
        assert m.programs == ceil(M / tile.BM) * ceil(N / tile.BN)
        assert m.k1_occupancy == gemm.occupancy(H100_SXM, tile)
        assert m.gpu == H100_SXM.name and m.roofline.bound == "launch"
        assert m.unique_bytes == 3 * 512 * 512 * 2 and m.predicted_min_s <= m.predicted_s


def test_occupancy_from_the_cubins_registers_by_hand(autotuned):
    """The calculator by hand, for H100: registers go to warps in units of 256, shared
    memory to CTAs in units of 128 B plus 1 KB reserved; 64 warps and 32 CTAs per SM."""
    for k in autotuned:
        regs = cubin_resources(base64.b64decode(k.binaries["cubin"])).registers
        assert regs == k.metadata.registers
        warps, smem = k.metadata.num_warps, k.metadata.shared
        by_regs = (65536 // (ceil(regs * 32 / 256) * 256)) // warps
        by_smem = (228 * 1024) // (ceil((smem + 1024) / 128) * 128)
        by_threads = 64 // warps
        hand = min(by_regs, by_smem, by_threads, 32)
        occ = model_kernel(k).occupancy
        assert occ.blocks == hand and occ.fraction == hand * warps / 64
        assert dict(occ.limits)[occ.limiter] == hand


def test_occupancy_limits_and_curves():
    assert occupancy(H100_SXM, 1024, 64, 0).blocks == 1  # 64 regs x 1024 threads: the register file
    assert occupancy(H100_SXM, 128, 255, 0).limiter == "regs"
    bad = occupancy(H100_SXM, 128, 32, 300 * 1024)
    assert not bad.valid and bad.limiter == "smem" and "shared memory" in bad.reason
    c = curves(H100_SXM, 128, 96, 16384)
    xs, ys = c["regs"]
    assert ys[xs.index(96)] == occupancy(H100_SXM, 128, 96, 16384).fraction
    assert all(a >= b for a, b in zip(ys, ys[1:]))  # more registers never raise occupancy


def test_roofline_ridge_bound_and_percent():
    r = roofline(H200, 2 * 8192**3, 3 * 8192**2 * 2, "bf16")
    assert r.ridge == pytest.approx(989.4e12 / 4.8e12) and r.bound == "compute"
    assert r.attainable == H200.peak("bf16")
    half = roofline(H200, 2 * 8192**3, 3 * 8192**2 * 2, "bf16", time_s=2 * (2 * 8192**3) / H200.peak("bf16"))
    assert half.percent_of_roof == pytest.approx(50.0)
    copy = roofline(A100_SXM, 0, 2 * 2**30, "fp32")
    assert copy.bound == "memory" and copy.time_s == pytest.approx(2 * 2**30 / A100_SXM.peak_bw)
    assert roofline(H100_SXM, 10, 10).bound == "launch"


def test_spearman():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks (1,2,3,4,5) vs (2,1,4,3,5): d^2 = 4, rho = 1 - 6*4/(5*24) = 0.8
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert spearman([1, 2], [1, 2]) is None


def test_spec_table():
    assert set(SPECS) >= {"rtx3070", "a100", "h100", "h200", "rtx4090", "mi300x"}
    for g in SPECS.values():
        assert g.source and g.peak("fp32") < g.peak("bf16") and g.peak_bw > 0
    assert spec("NVIDIA H200") is H200 and for_arch("sm_80") is A100_SXM
    with pytest.raises(KeyError):
        spec("Voodoo2")


def test_grid_stride_loops_count_every_program_s_trips():
    """tl.range(pid, n_rows, num_programs): 132 programs share 1000 rows; every row is
    loaded and stored once as a BLOCK-wide tile (masks count whole), and the DRAM bytes
    are each tensor once."""
    r = compile_file(
        CompileRequest(
            str(ROOT / "fixtures" / "kernels" / "model" / "grid_stride_softmax.py"), target="cuda:90"
        )
    )
    (k,) = r.kernels
    args = {a.name: a.value for a in k.launch.args if a.kind == "int"}
    block = k.launch.constexprs["BLOCK"]
    m = model_kernel(k, H100_SXM)
    assert m.work.programs == 132 and not m.work.unknown_loops
    assert m.work.bytes == args["n_rows"] * block * 4 * 2
    assert m.work.dram_bytes == args["n_rows"] * args["n_cols"] * 4 * 2
    # the same kernel launched with one program per row does the same work
    order = [n for n, t in k.signature.items() if t != "constexpr"]
    per_row = estimate(k.stages["ttir"], args, (args["n_rows"], 1, 1), order)
    assert per_row.bytes == m.work.bytes and per_row.flops == m.work.flops


def test_bandwidth_above_the_dram_roof_is_called_l2_reuse(autotuned):
    """A run faster than DRAM could serve the requested bytes is said to be L2 reuse; the
    DRAM figure counts each tensor once."""
    from kx_core.model.kernel import bandwidth_text

    m = model_kernel(next(k for k in autotuned if k.status == "compiled"), H100_SXM)
    fast = m.work.bytes / (2 * H100_SXM.peak_bw)  # twice the DRAM roof's speed
    text = bandwidth_text(m, fast)
    assert "L2 reuse" in text and f"{m.work.dram_bytes / fast / 1e9:.0f} GB/s DRAM" in text
    assert "L2 reuse" not in bandwidth_text(m, m.work.bytes / (0.5 * H100_SXM.peak_bw))


def test_roofs_text_names_each_roofs_source():
    """--measured with only some ceilings measured (the H200 run measured copy bandwidth,
    bf16 and fp32 matmul): each roof says whether it is measured or the datasheet's, and
    the ridges use the measured DRAM roof."""
    from dataclasses import replace

    from kx_core.model.roofline import roofs_text

    gpu = replace(H200, measured=(("bf16", 687e12), ("bw", 4.25e12), ("fp32", 51.1e12)))
    text = roofs_text(gpu, measured=True)
    assert text.startswith("DRAM 4.25 TB/s measured; ")
    assert f"bf16 687.0 TFLOP/s measured (ridge {687e12 / 4.25e12:.0f} FLOP/B)" in text
    assert f"tf32 {H200.peak('tf32') / 1e12:.1f} TFLOP/s datasheet" in text
    plain = roofs_text(gpu)
    assert "measured" not in plain and f"DRAM {H200.peak_bw / 1e12:.2f} TB/s datasheet" in plain
