"""File ▸ Open… on what a real run recorded (issue 36): a Triton cache folder and a
tritonparse trace open in the window like a compile's result, nothing run, the kernels'
source beside them; a trace's other kernels' stages are read when they are selected."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kx_testing import ROOT

RECORDS = ROOT / "fixtures" / "records" / "3.8.0" / "cuda90"
KERNEL_FILE = ROOT / "fixtures" / "records" / "record_kernels.py"


def _open_record(qtbot, w, path, complete: bool = True):
    with qtbot.waitSignal(w.result_shown, timeout=60_000) as blocker:
        assert w.open_file(str(path))
    if complete:  # a trace shows its first kernel first, then the whole index
        qtbot.waitUntil(lambda: w.session._record is not None and w.session._record.complete, timeout=60_000)
        qtbot.waitUntil(lambda: len(w.session.result.kernels) == len(w.session._record.result.kernels))
    return blocker.args[0]


def test_a_cache_folder_opens_with_its_stages_and_source(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    generation = w.session.generation
    result = _open_record(qtbot, w, RECORDS / "cache")
    assert w.session.generation == generation + 1 and not w.session.compiling
    assert sorted(k.name for k in result.kernels) == ["add_vectors", "softmax_rows"]
    kernel = w.session.kernel
    (folder,) = [p for p in (RECORDS / "cache").iterdir() if (p / f"{kernel.name}.ttir").exists()]
    for stage in ("ttir", "ptx"):  # the files as written; the views show them (loc lines filtered)
        assert kernel.stages[stage] == (folder / f"{kernel.name}.{stage}").read_text()
    assert f"tt.func public @{kernel.name}" in w.stage_pane.views["ttir"].toPlainText()
    meta = json.loads((folder / f"{kernel.name}.json").read_text())
    assert kernel.metadata.shared == meta["shared"] and kernel.metadata.num_warps == meta["num_warps"]
    if os.path.exists(kernel.source_file):  # the record names this checkout's file
        assert w.session.path == kernel.source_file
        assert w.source_pane.text() == Path(kernel.source_file).read_text()
    assert "Triton cache folder" in w.stage_pane.badge.text()
    w.grab().save(str(tmp_path / "cache_record.png"))


def test_a_trace_opens_first_kernel_then_the_rest_on_demand(qtbot, make_window):
    w = make_window("cuda:90")
    _open_record(qtbot, w, RECORDS / "trace.bin.ndjson")
    events = [json.loads(line) for line in (RECORDS / "trace.ndjson").read_text().splitlines() if line]
    contents = {e["payload"]["metadata"]["name"]: e["payload"]["file_content"] for e in events}
    second = w.session.result.kernels[1]
    assert not second.stages  # the index's kernel: its stages are not read yet
    w.session.select_kernel(1)
    name = w.session.kernel.name
    assert w.session.kernel.stages["ttgir"] == contents[name][f"{name}.ttgir"]
    assert f"tt.func public @{name}" in w.stage_pane.views["ttir"].toPlainText()  # the tab on screen
    assert w.session.result.kernels[1].stages  # kept: selecting it again reads nothing
    assert "tritonparse trace" in w.stage_pane.badge.text()


def test_what_is_no_record_is_still_a_message(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    empty = tmp_path / "empty_folder"
    empty.mkdir()
    messages = []
    w.session.error.connect(messages.append)
    w.show_error = messages.append  # headless: the message box is this list
    assert not w.open_file(str(empty)) or messages


def test_a_trace_from_another_machine_shows_the_source_it_carries(qtbot, make_window, tmp_path):
    lines = (RECORDS / "trace.ndjson").read_text().splitlines()
    moved = []
    for line in lines:  # the same run, as if made on a machine whose paths this one lacks
        event = json.loads(line)
        source = event["payload"]["python_source"]
        source["file_path"] = "/elsewhere/record_kernels.py"
        moved.append(json.dumps(event))
    trace = tmp_path / "elsewhere.ndjson"
    trace.write_text("\n".join(moved) + "\n")
    w = make_window("cuda:90")
    _open_record(qtbot, w, trace)
    first = json.loads(lines[0])["payload"]["python_source"]
    assert w.session.path == "/elsewhere/record_kernels.py"
    shown = w.source_pane.text().split("\n")
    code = first["code"].split("\n")
    assert shown[first["start_line"] - 1 : first["start_line"] - 1 + len(code)] == code  # at its lines
    assert "not on this machine" not in w.stage_pane.badge.text()


def test_a_traces_grid_is_the_one_it_recorded_and_none_says_why(qtbot, make_window):
    """A trace whose launches have grids showed "-" for its first kernel (issue 54): read
    before the launches were indexed, it kept no launch. It shows the grid the trace
    recorded; a trace that recorded no launch says why on hover."""
    from kx_gui.panes.kernels_pane import COLUMNS

    w = make_window("cuda:90")
    _open_record(qtbot, w, ROOT / "fixtures" / "records" / "3.6.0" / "cuda90-gpu" / "trace.ndjson")
    table, grid = w.kernels_pane.table, COLUMNS.index("grid")
    cells = {table.item(r, 0).text(): table.item(r, grid) for r in range(table.rowCount())}
    assert {name: cell.text() for name, cell in cells.items()} == {
        "add_vectors": "4x1x1",
        "softmax_rows": "64x1x1",
    }
    assert "launch" in cells["add_vectors"].toolTip()
    _open_record(qtbot, w, RECORDS / "trace.ndjson")  # traced without launches (no GPU)
    cells = [table.item(r, grid) for r in range(table.rowCount())]
    assert cells and all(c.text() == "-" for c in cells)
    assert all("no launch" in c.toolTip() and "enable_trace_launch" in c.toolTip() for c in cells)
