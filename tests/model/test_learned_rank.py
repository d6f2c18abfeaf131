"""The sweep ranking's learned correction (kx_core.model.learned_rank): the trees kx ships
are the fit of the recorded H200 rows (benchmarks/sweep_h200/ranking_rows.jsonl, written
by benchmarks/sweep_rerank.py --features from the H200's measurements and real compiles
with its Triton), they rank recording sets they were not fitted on better than the
analytic model alone, the rows are what a fresh compile with the H200's Triton gives,
and the MMA figures the trees read agree with the PTX's instructions."""

from __future__ import annotations

import json
import re
import statistics
import sys

import numpy as np
import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.model.gpu import spec
from kx_core.model.kernel import model_kernel
from kx_core.model.learned_rank import (
    FEATURES,
    Trees,
    applies,
    features,
    kind_of,
    mma_shape,
    ranking_note,
    trees_for,
)
from kx_core.model.ranking import config_time, rank_terms
from kx_core.sweep.driver import script
from kx_testing import ROOT, other_triton

sys.path.insert(0, str(ROOT / "scripts"))
import fit_ranking  # noqa: E402

SWEEP = ROOT / "fixtures" / "kernels" / "sweep"


@pytest.fixture(scope="module")
def sets():
    return fit_ranking.shapes_of(fit_ranking.ROWS)


def test_the_shipped_trees_are_the_fit_of_the_recorded_rows(sets):
    shipped = trees_for(spec("h200"))
    assert shipped is not None and shipped.features == FEATURES
    fitted = [(x, m) for name, shapes in sets.items() if name in fit_ranking.FITTED for *_, x, m in shapes]
    kinds = fit_ranking.kinds_of(sets)
    assert kinds == ("dot", "dot+reduce", "reduce") == shipped.kinds  # GEMMs, attention, softmax and norms
    again = json.loads(json.dumps(fit_ranking.fit(fitted, "h200", shipped.fitted_on, kinds).to_json()))
    assert again == json.loads(fit_ranking.OUT.read_text())
    assert len(fitted) == 140 and "140 recorded H200 shapes" in shipped.fitted_on


def test_sets_held_out_of_the_fit_rank_better_with_the_correction(sets):
    """Each fitted set held out in turn (the others fitted): the learned ranking's mean
    Spearman rho on it above the analytic model's, by 0.05 on average, and the winner in
    its top 3 no less often on average."""
    judged = fit_ranking.held_out(sets)
    assert [name for name, _, _ in judged] == list(fit_ranking.FITTED)
    for name, analytic, learned in judged:
        assert learned["all"][0] > analytic["all"][0], name
    gain = statistics.fmean(learned["all"][0] - analytic["all"][0] for _, analytic, learned in judged)
    assert gain >= 0.05, judged
    top3 = [(analytic["all"][1], learned["all"][1]) for _, analytic, learned in judged]
    assert statistics.fmean(b for _, b in top3) >= statistics.fmean(a for a, _ in top3), judged


def test_only_the_fitted_gpu_gets_the_correction():
    assert trees_for(spec("h100")) is None and trees_for(spec("h200")) is not None
    assert trees_for(spec("NVIDIA H200")) is trees_for(spec("h200"))
    assert "learned correction for NVIDIA H200 (fitted on 140" in ranking_note("NVIDIA H200", "dot")
    assert ranking_note("H100 SXM", "dot").startswith("ranked by kx's analytic model alone")


def test_a_tree_reads_its_feature_by_index():
    t = Trees("h200", FEATURES, 0.5, ([0, 1.0, -2.0, [1, 0.0, 4.0, 6.0]],))
    assert t.correction([0.5, 9.0]) == -1.0
    assert t.correction([2.0, -1.0]) == 2.0 and t.correction([2.0, 1.0]) == 3.0


def _records(tmp_path, shape, python=None):
    driver = tmp_path / "kx_sweep_driver.py"
    driver.write_text(script(str(SWEEP / "matmul.py"), "matmul_kernel", None, shape, None))
    result = compile_file(CompileRequest(str(driver), target="cuda:90", python=python, timeout_s=900))
    return [k for k in result.kernels if k.name == "matmul_kernel" and k.config and k.status == "compiled"]


# Example: "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"
_WGMMA_RE = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16")


def test_the_mma_figures_agree_with_the_ptx(tmp_path):
    """The MMA instruction N the trees read from the TTGIR layout is the N of every wgmma
    in the PTX; a 32-row tile, too small for a warpgroup's wgmma, has none (mma.sync)."""
    gpu = spec("h200")
    kernels = _records(tmp_path, {"M": 1024, "N": 1024, "K": 1024})
    assert len(kernels) == 16
    n_col, sync_col = FEATURES.index("mma_n"), FEATURES.index("mma_sync")
    seen = set()
    for k in kernels:
        m = model_kernel(k, gpu)
        row = features(m, k, gpu, rank_terms(m, k, gpu))
        wgmma = {int(n) for n in _WGMMA_RE.findall(k.stages["ptx"])}
        mma = mma_shape(k.stages["ttgir"])
        if wgmma:
            assert wgmma == {mma[1]} and mma[0] == 3 and row[sync_col] == 0.0
            assert 2 ** row[n_col] == mma[1]
        else:
            assert "mma.sync" in k.stages["ptx"] and row[sync_col] == 1.0, k.config.label
        seen.add(bool(wgmma))
        # the correction is applied to the terms' total on the H200, not elsewhere
        terms = rank_terms(m, k, gpu)
        assert config_time(m, k, gpu, learned=False) == terms.total
        assert config_time(m, k, gpu) == pytest.approx(terms.total * np.exp(trees_for(gpu).correction(row)))
    assert seen == {True, False}


@pytest.mark.managed_triton
def test_the_recorded_rows_are_what_a_fresh_compile_gives(tmp_path):
    """One recorded shape compiled again with the H200's Triton (a managed 3.6.0): the same
    features, config for config, as the committed rows."""
    other = other_triton()
    if other.version != "3.6.0":
        pytest.skip("the rows were computed with Triton 3.6.0")
    shape = {"M": 3072, "N": 3072, "K": 3072}
    rows = [json.loads(line) for line in fit_ranking.ROWS.read_text().splitlines()]
    recorded = {
        r["label"]: r["features"] for r in rows if r["kernel"] == "matmul_kernel" and r["shape"] == shape
    }
    assert len(recorded) == 16
    gpu = spec("h200")
    for k in _records(tmp_path, shape, other.python):
        m = model_kernel(k, gpu)
        got = [round(v, 9) for v in features(m, k, gpu, rank_terms(m, k, gpu))]
        assert got == recorded[k.config.label], k.config.label


def test_a_kind_of_kernel_the_trees_were_not_fitted_on_keeps_the_analytic_ranking(tmp_path):
    """An elementwise SwiGLU (fixtures/kernels/sweep/swiglu.py; measured on the H200, the
    trees ranked it worse than the analytic model: NOTES.md): no dot, no reduction in its
    TTIR, a kind the trees never saw, so its ranking is the terms' total, and the sweep's
    note says why."""
    gpu = spec("h200")
    driver = tmp_path / "kx_sweep_driver.py"
    driver.write_text(script(str(SWEEP / "swiglu.py"), "swiglu_kernel", None, {"N": 1 << 20}, None))
    result = compile_file(CompileRequest(str(driver), target="cuda:90", timeout_s=900))
    kernels = [k for k in result.kernels if k.name == "swiglu_kernel" and k.config and k.status == "compiled"]
    assert len(kernels) == 16
    for k in kernels:
        assert kind_of(k) == "elementwise" and not applies(trees_for(gpu), k)
        m = model_kernel(k, gpu)
        assert config_time(m, k, gpu) == rank_terms(m, k, gpu).total
    note = ranking_note("NVIDIA H200", "elementwise")
    assert note.startswith("ranked by kx's analytic model alone") and "neither dots nor reductions" in note
    # the fitted kinds, as the recordings' TTIRs have them
    matmul = _records(tmp_path, {"M": 512, "N": 512, "K": 512})[0]
    assert kind_of(matmul) == "dot" and applies(trees_for(gpu), matmul)
