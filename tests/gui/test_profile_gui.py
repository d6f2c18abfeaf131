"""Hot lines in the app (issue 21), from a profile recorded on the H200 (the app here
has no GPU: Profile and Edit a stage are off and say why). The recorded profile of the
vector add, shown over kx's own compile of the same file: the Hot lines table lists the
hottest lines first, the Source pane's gutter carries a bar on every sampled line (the
hottest full length), the stage views carry their statements' heat, and a double click
on a row links its line."""

from __future__ import annotations

import json

from gui_helpers import open_and_wait
from kx_core.bench.profile import ProfileResult
from kx_testing import ROOT

VECTOR_ADD = ROOT / "kx_core" / "data" / "examples" / "vector_add.py"


def test_a_recorded_profile_becomes_hot_lines(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, VECTOR_ADD)
    pane = w.bench_pane
    if not pane.gpu:
        assert not pane.profile_button.isEnabled() and "needs an NVIDIA GPU" in pane.profile_button.toolTip()
        assert not pane.run_profile() and "needs an NVIDIA GPU" in pane.status.text()
    result = ProfileResult.from_json(
        json.loads((ROOT / "fixtures" / "profile" / "kx_vector_add.json").read_text())
    )
    pane.show_profile(result)
    table = pane.hot_view.table
    assert table.rowCount() > 5 and pane.tabs.currentIndex() == pane.hot_tab
    samples = [int(table.item(r, 3).text().replace(",", "")) for r in range(table.rowCount())]
    assert samples == sorted(samples, reverse=True)
    top_stage, top_line = table.item(0, 1).text(), int(table.item(0, 2).text())
    # the add: its warps wait there for the loads (long scoreboard), so the samples land on it
    assert top_stage == "source" and "x + y" in VECTOR_ADD.read_text().splitlines()[top_line - 1]
    heat = w.source_pane.view.heat
    assert heat[top_line][0] == 1.0 and "samples" in heat[top_line][1] and "stalled on" in heat[top_line][1]
    assert set(heat) == set(w.session.profiles.hot_lines["add_kernel"][0].by_stage["source"])
    stages = w.stage_pane
    stages.select_stage("ttgir")
    assert stages.views["ttgir"].heat  # the statements' heat on TTGIR lines
    table.cellDoubleClicked.emit(0, 0)
    assert w.session.selected_line == top_line


def test_an_edited_stage_run_shows_beside_the_original_and_saves_as_a_trial(qtbot, make_window, tmp_path):
    from kx_core.bench.override import OverrideResult
    from kx_core.bench.trials import TrialStore, trials_root

    matmul = ROOT / "kx_core" / "data" / "examples" / "matmul.py"
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, matmul)
    pane = w.bench_pane
    if not pane.gpu:
        assert not pane.edit_button.isEnabled()
        assert not pane.edit_stage("ttgir", "garbage") and "needs an NVIDIA GPU" in pane.status.text()
    recorded = json.loads((ROOT / "fixtures" / "profile" / "override_matmul_ttir.json").read_text())
    stage_file = tmp_path / "matmul_kernel.ttir"  # the recorded run's file lived on the GPU machine
    stage_file.write_text("// the edited TTIR, as the trial store copies it\n")
    r = OverrideResult.from_json({**recorded, "stage_file": str(stage_file)})
    pane.show_override(r)
    assert pane.timing_table.rowCount() == 2
    assert pane.timing_table.item(1, 0).text() == "matmul_kernel (edited ttir)"
    assert "DIFFERENT outputs" in pane.status.text() and f"{r.speedup:.3f}x" in pane.status.text()
    tid = pane.save_trial()
    trial = {t: v for _, t, v in TrialStore(trials_root(), "matmul").tree()}[tid]
    assert trial["correctness"] == "fail" and trial["speedup"] == r.speedup
    assert (TrialStore(trials_root(), "matmul").dir / tid / "matmul_kernel.ttir").exists()


def test_hot_lines_of_another_build_are_not_drawn(qtbot, make_window, tmp_path):
    """A profile sampled before the file changed draws no heat on the changed file's
    lines, and the Bench pane says the hot lines are another build's."""
    path = tmp_path / "vector_add.py"
    path.write_text(VECTOR_ADD.read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    pane = w.bench_pane
    result = ProfileResult.from_json(
        json.loads((ROOT / "fixtures" / "profile" / "kx_vector_add.json").read_text())
    )
    pane._run_build = w.session.build_on_disk()  # what _start records when a run begins
    pane.show_profile(result)
    assert w.source_pane.view.heat
    path.write_text("# a line added above the kernel after the profile\n" + path.read_text())
    with qtbot.waitSignal(w.session.result_settled, timeout=300_000):
        w.session.compile()
    assert w.session.build.content != w.session.profiles.build.content
    assert w.session.profiles.heat() == ({}, 0) and not w.source_pane.view.heat
    assert "the hot lines are of another build: the file changed since" in pane.status.text()
