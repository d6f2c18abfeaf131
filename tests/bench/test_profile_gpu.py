"""Profiling and edit-and-retime on the GPU (issue 21). The oracle for kx's samples is
Proton's pcsampling on the same number of calls of the same kernel: per-kernel totals
and stall-reason shares agree; kx's per-line figures conserve every sample (SASS lines
sum to the total; source lines to the total less what has no location). An edit that
removes work is faster and caught as wrong; an edit that changes nothing is correct and
times within 3% of the original."""

from __future__ import annotations

import json
import re

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

from kx_core.bench.bench import MeasureJob  # noqa: E402
from kx_core.bench.requests import ProfileRequest  # noqa: E402
from kx_core.ir.hot_lines import attribute  # noqa: E402
from kx_testing import ROOT, run_kx  # noqa: E402

EXAMPLES = ROOT / "kx_core" / "data" / "examples"
CALLS = 2000


def _profile(name: str, proton: bool):
    return MeasureJob(ProfileRequest(calls=CALLS, proton=proton), str(EXAMPLES / name)).start().wait(600)


@pytest.mark.parametrize("name", ["vector_add.py", "matmul.py"])
def test_samples_conserve_and_match_protons_totals(name):
    kx, proton = _profile(name, False), _profile(name, True)
    assert kx.ok and proton.ok, (kx.diagnostics, proton.diagnostics)
    ours, theirs = kx.kernels[0], proton.kernels[0]
    assert ours.kernel == theirs.kernel and ours.calls == CALLS
    # Proton's session covers every launch of the kernel (it maps PCs to lines only for
    # modules loaded while it runs): compare per launch
    assert theirs.launches >= CALLS
    assert ours.samples / ours.calls == pytest.approx(theirs.samples / theirs.launches, rel=0.02)
    assert ours.stalled / ours.calls == pytest.approx(theirs.stalled / theirs.launches, rel=0.02)
    for reason, n in theirs.reasons.items():
        if n > 0.05 * theirs.stalled:
            assert ours.reasons.get(reason, 0) / ours.stalled == pytest.approx(
                n / theirs.stalled, abs=0.01
            ), reason
    hot = attribute(ours)
    assert hot.unmatched == 0
    assert sum(h.samples for h in hot.by_stage["sass"].values()) == ours.samples
    assert sum(h.samples for h in hot.by_stage["source"].values()) + hot.unattributed == ours.samples
    # Proton's own per-line figures (its PC -> file:line through CUPTI): the same shares
    lines = {int(key.rsplit(":", 1)[1]): m["samples"] for key, m in theirs.by_line.items()}
    assert lines, "Proton gave no per-line figures"
    for line, n in lines.items():
        mine = hot.by_stage["source"].get(line)
        assert (mine.samples if mine else 0) / ours.samples == pytest.approx(n / theirs.samples, abs=0.02), (
            line
        )


def _stage(name: str, stage: str) -> str:
    return _profile(name, False).kernels[0].stages[stage]


def test_an_edit_that_removes_work_is_faster_and_caught(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # the runs below share it
    ttir = _stage("matmul.py", "ttir")
    # the K loop runs from its lower bound to its lower bound: no iteration, no dot
    edited, n = re.subn(r"(scf\.for %[\w.]+ = (%[\w.]+) to )%[\w.]+", r"\1\2", ttir, count=1)
    assert n == 1
    path = tmp_path / "matmul_kernel.ttir"
    path.write_text(edited)
    p = run_kx("bench", str(EXAMPLES / "matmul.py"), "--override", str(path), "--json")
    r = json.loads(p.stdout)
    assert r["diagnostics"] == [] and r["kernel"] == "matmul_kernel", p.stderr
    assert not r["correct"] and r["mismatches"]
    assert r["speedup"] > 1.2
    # Triton's cache still holds the original: the next run of the file is not the edit
    assert _stage("matmul.py", "ttir") == ttir


@pytest.mark.parametrize("stage", ["ttgir", "ptx"])
def test_an_edit_that_changes_nothing_times_the_same(tmp_path, stage):
    path = tmp_path / f"matmul_kernel.{stage}"
    path.write_text(_stage("matmul.py", stage))
    p = run_kx("bench", str(EXAMPLES / "matmul.py"), "--override", str(path), "--json")
    r = json.loads(p.stdout)
    assert r["diagnostics"] == [] and r["correct"], (p.stderr, r)
    assert abs(r["speedup"] - 1) < 0.03, r


def test_an_edit_that_does_not_compile_is_a_diagnostic(tmp_path):
    path = tmp_path / "matmul_kernel.ttgir"
    path.write_text(_stage("matmul.py", "ttgir").replace("tt.return", "tt.retrun", 1))
    p = run_kx("bench", str(EXAMPLES / "matmul.py"), "--override", str(path), "--json")
    r = json.loads(p.stdout)
    assert p.returncode == 1 and r["diagnostics"] and r["diagnostics"][0]["kind"] == "compile"
