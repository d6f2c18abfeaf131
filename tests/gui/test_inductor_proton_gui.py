"""File ▸ Open on the H200's Inductor debug folder and Proton profiles (issue 36): the folder
opens as its output module's kernels, recompiled by kx and labelled so in the Kernels
pane; a Proton profile opened beside a build of the same kernels puts its figures in the
Bench pane's Hot lines and its line heat in the Source gutter."""

from __future__ import annotations

import json
import re

from kx_gui.panes.kernels_pane import note_of
from kx_testing import ROOT

GPU_RECORDS = ROOT / "fixtures" / "records" / "3.6.0" / "cuda90-gpu"
PROTON_LINES = ROOT / "fixtures" / "profile" / "proton_vector_add.hatchet.json"
VECTOR_ADD = ROOT / "kx_core" / "data" / "examples" / "vector_add.py"


def _open(qtbot, w, path):
    with qtbot.waitSignal(w.result_shown, timeout=120_000) as blocker:
        assert w.open_file(str(path), trusted=True)
    return blocker.args[0]


def test_an_inductor_debug_folder_opens_recompiled_and_labelled(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    result = _open(qtbot, w, GPU_RECORDS / "inductor_debug")
    (module,) = (GPU_RECORDS / "inductor_debug").glob(
        "torch_compile_debug/run_*/torchinductor/*/output_code.py"
    )
    names = re.findall(r"^\w+ = async_compile\.triton\('(\w+)'", module.read_text(), re.MULTILINE)
    assert sorted({k.name for k in result.kernels}) == sorted(names)
    assert w.session.path == str(module) and w.source_pane.text() == module.read_text()
    badge = w.stage_pane.badge.text()
    assert "Inductor debug folder" in badge and "kx's compile of it" in badge and "nothing ran" not in badge
    assert "tt.func public @" in w.stage_pane.views["ttir"].toPlainText()
    # the kernel's row says its stages are kx's (kernels_pane.note_of: the row's note)
    assert all("kx's compile of it" in note_of(k) for k in result.kernels)
    assert any(d.kind == "recompiled" for d in result.diagnostics)
    w.grab().save(str(tmp_path / "inductor_debug.png"))


def test_a_proton_profile_beside_its_kernels_build_shows_hot_lines(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    _open(qtbot, w, VECTOR_ADD)
    build = w.session.build
    assert w.open_file(str(PROTON_LINES))
    profiles = w.session.profiles
    assert profiles.result is not None and profiles.result.sampler == "proton" and profiles.build == build
    assert w.session.path == str(VECTOR_ADD)  # the document stays: a profile has no kernels of its own
    tree = json.loads(PROTON_LINES.read_text())[0]
    (node,) = [n for n in tree["children"] if n["frame"]["name"] == "add_kernel"]
    lines = {
        int(c["frame"]["name"].split(":")[-1].split("@")[0]): c["metrics"]["num_samples"]
        for c in node["children"]
    }
    heat, total = profiles.heat()
    assert {n: h.samples for n, h in heat["source"].items()} == lines and total == sum(lines.values())
    assert heat.get("ttgir")  # carried to the stage lines through the build's source map
    bench = w.pane("bench")
    assert "proton" in bench.hot_view.summary.text() and bench.hot_view.table.rowCount() > 0
    assert "joined by name" in w.status_label.text()
    w.grab().save(str(tmp_path / "proton_hot_lines.png"))


def test_a_profile_of_other_kernels_says_so(qtbot, make_window):
    w = make_window("cuda:90")
    _open(qtbot, w, VECTOR_ADD)
    assert w.open_file(str(GPU_RECORDS / "proton_pc.hatchet"))
    assert "none is a kernel on screen" in w.status_label.text()
    assert w.session.profiles.heat() == ({}, 0)
