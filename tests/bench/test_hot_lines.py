"""Hot lines from PC samples recorded on the H200 (scripts/gpu_profile_ground_truth.sh:
kx's own CUPTI sampling and Proton's, of the same vector add). kx's attribution through
its links conserves every sample, and its per-source-line shares equal Proton's, which
maps PCs to lines through CUPTI's own line table."""

from __future__ import annotations

import json

import pytest

from kx_core.bench.profile import KernelProfile, fold, proton_figures, proton_reason
from kx_core.ir.hot_lines import attribute, heat_for, hottest, sass_offsets
from kx_core.ir.sourcemap import build_source_map
from kx_testing import ROOT

FIXTURES = ROOT / "fixtures" / "profile"


def _kx(name: str) -> KernelProfile:
    return KernelProfile.from_json(json.loads((FIXTURES / f"kx_{name}.json").read_text())["kernels"][0])


@pytest.mark.parametrize("name", ["vector_add", "matmul"])
def test_every_sample_lands_on_a_line(name):
    k = _kx(name)
    hot = attribute(k)
    assert hot.unmatched == 0 and hot.total == k.samples > 0
    assert sum(h.samples for h in hot.by_stage["sass"].values()) == k.samples
    assert sum(h.samples for h in hot.by_stage["source"].values()) + hot.unattributed == k.samples
    offsets = sass_offsets(k.stages["sass"])
    assert {offsets[int(pc, 16)] for pc in k.by_pc} == set(hot.by_stage["sass"])
    for stage in ("ttir", "ttgir", "llir", "ptx"):
        assert hot.by_stage[stage], stage  # every stage has hot lines


def test_source_line_shares_equal_protons():
    k = _kx("vector_add")
    hot = attribute(k)
    tree = json.loads((FIXTURES / "proton_vector_add.hatchet.json").read_text())
    by_line, totals, launches = proton_figures(tree, "add_kernel")
    assert launches > 0 and totals["samples"] == sum(m["samples"] for m in by_line.values())
    # per launch, the two samplers' totals agree (different runs of the same kernel)
    assert k.samples / k.calls == pytest.approx(totals["samples"] / launches, rel=0.02)
    assert {int(key.rsplit(":", 1)[1]) for key in by_line} == set(hot.by_stage["source"])
    for key, m in by_line.items():
        line = int(key.rsplit(":", 1)[1])
        ours = hot.by_stage["source"][line].samples / k.samples
        assert ours == pytest.approx(m["samples"] / totals["samples"], abs=0.005), line


def test_protons_accounting_of_stall_reasons():
    assert proton_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard") == "stalled_long_scoreboard"
    assert (
        proton_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued")
        == "stalled_long_scoreboard"
    )
    assert (
        proton_reason("smsp__pcsamp_warps_issue_stalled_not_selected") is None
    )  # Proton spells it _not_Selected
    folded = fold(
        {
            "smsp__pcsamp_warps_issue_stalled_wait": 5,
            "smsp__pcsamp_warps_issue_stalled_wait_not_issued": 3,
            "smsp__pcsamp_warps_issue_stalled_not_selected": 7,
        }
    )
    assert folded == {"samples": 8, "stalled": 5, "stalled_wait": 5}


def test_heat_on_the_profiled_kernel_is_exact_and_the_table_is_hottest_first():
    k = _kx("vector_add")
    hot = attribute(k)
    smap = build_source_map(k.stages, k.source_file)
    heat = heat_for(hot, k.stages, smap, k.stages["sass"])
    assert heat["sass"] == hot.by_stage["sass"] and heat["source"] == hot.by_stage["source"]
    rows = hottest(hot, {**k.stages, "source": ""}, n=5)
    assert [r.samples for r in rows] == sorted((r.samples for r in rows), reverse=True)
    assert rows[0].stage == "source" and rows[0].share > 0.5  # the store line of a vector add


def test_without_a_gpu_profile_and_override_say_they_need_one(tmp_path):
    import shutil

    from kx_testing import run_kx

    if shutil.which("nvidia-smi"):
        pytest.skip("a GPU machine: tests/bench/test_profile_gpu.py runs these for real")
    example = str(ROOT / "kx_core" / "data" / "examples" / "vector_add.py")
    p = run_kx("profile", example)
    assert p.returncode == 2 and "needs an NVIDIA GPU" in p.stderr
    edited = tmp_path / "add_kernel.ttgir"
    edited.write_text("module {}\n")
    p = run_kx("bench", example, "--override", str(edited))
    assert p.returncode == 2 and "needs an NVIDIA GPU" in p.stderr
    p = run_kx("bench", example, "--override", str(tmp_path / "add_kernel.txt"))
    assert p.returncode == 2 and "no such file" in p.stderr
