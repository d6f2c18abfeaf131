"""Proton profiles recorded on the H200 open as kx's profile result: every kernel's
launches and GPU time as the file has them; under PC sampling its samples and stall
reasons, and where Proton kept file:line frames, its hot source lines, which a build of
the same kernel carries to the lines of its stages. A cut or damaged profile gives a
located diagnostic and the kernels before the cut."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from records_testing import PROTON_LINES, PROTON_PC, PROTON_TIMES

from kx_core.cli.commands import main as kx_main
from kx_core.ir.hot_lines import attribute
from kx_core.recorded.open_record import NotARecord, open_record, record_kind
from kx_core.recorded.proton_profile import join_profile
from kx_testing import ROOT

VECTOR_ADD = ROOT / "kx_core" / "data" / "examples" / "vector_add.py"
# Example: "/work/main/kx_core/data/examples/vector_add.py:18@add_kernel"
_LINE_FRAME_RE = re.compile(r"^(.+):(\d+)@(.+)$")


def _kernel_nodes(path):
    """name -> (count, time ns, metrics, line frames' metrics by line) of the file's kernel
    nodes (those whose metrics name their device), read here without kx."""
    out = {}

    def walk(node):
        metrics = node.get("metrics", {})
        if "device_type" in metrics:
            lines = {}
            for child in node.get("children", ()):
                m = _LINE_FRAME_RE.match(child["frame"]["name"])
                if m:
                    lines[int(m.group(2))] = child["metrics"]
            out[node["frame"]["name"]] = (metrics["count"], metrics["time (ns)"], metrics, lines)
            return
        for child in node.get("children", ()):
            walk(child)

    walk(json.loads(path.read_text())[0])
    return out


@pytest.mark.parametrize("path", [PROTON_TIMES, PROTON_PC, PROTON_LINES])
def test_every_kernel_with_its_launches_and_time(path):
    assert record_kind(str(path)) == "proton"
    opened = open_record(str(path))
    nodes = _kernel_nodes(path)
    profile = opened.profile
    assert profile.sampler == "proton" and not opened.result.kernels
    assert [k.kernel for k in profile.kernels] == list(nodes)
    for k in profile.kernels:
        count, time_ns, _, _ = nodes[k.kernel]
        assert (k.launches, k.calls) == (count, count)
        assert k.window_ms * 1e6 == pytest.approx(time_ns)
    assert sum(k.window_ms for k in profile.kernels) * 1e6 == pytest.approx(
        sum(t for _, t, _, _ in nodes.values())
    )
    device = json.loads(path.read_text())[1]["CUDA"]["0"]
    assert f"arch {device['arch']}" in profile.device and f"{device['num_sms']} SMs" in profile.device


def test_the_recorded_kernels_ran_twenty_times_each():
    """fixtures/records/record_kernels.py's two kernels, launched 20 times in both runs."""
    for path in (PROTON_TIMES, PROTON_PC):
        profile = open_record(str(path)).profile
        assert {
            k.kernel: k.launches for k in profile.kernels if k.kernel in ("add_vectors", "softmax_rows")
        } == {
            "add_vectors": 20,
            "softmax_rows": 20,
        }
    assert open_record(str(PROTON_TIMES)).profile.settings["mode"] == "time"


def test_pc_sampling_gives_each_kernels_samples_and_stall_reasons():
    opened = open_record(str(PROTON_PC))
    nodes = _kernel_nodes(PROTON_PC)
    assert opened.profile.settings["mode"] == "pcsampling"
    for k in opened.profile.kernels:
        metrics = nodes[k.kernel][2]
        assert (k.samples, k.stalled) == (metrics["num_samples"], metrics["num_stalled_samples"])
        assert k.reasons == {r: n for r, n in metrics.items() if r.startswith("stalled_") and n}
    # this record's kernels have no file:line frames: it says so, and reads whole
    assert not any(lines for *_, lines in nodes.values()) and not any(
        k.by_line for k in opened.profile.kernels
    )
    (lacks,) = opened.result.diagnostics
    assert lacks.kind == "record-lacks" and lacks.file == str(PROTON_PC) and opened.result.exit_status == 0


def test_line_frames_are_the_hot_source_lines():
    profile = open_record(str(PROTON_LINES)).profile
    (k,) = [k for k in profile.kernels if k.kernel == "add_kernel"]
    lines = _kernel_nodes(PROTON_LINES)["add_kernel"][3]
    hot = attribute(k)
    assert {n: h.samples for n, h in hot.by_stage["source"].items()} == {
        n: m["num_samples"] for n, m in lines.items()
    }
    assert hot.total == k.samples == sum(m["num_samples"] for m in lines.values()) and hot.unattributed == 0
    assert k.source_file.endswith("vector_add.py")


def test_a_build_of_the_same_kernel_carries_the_hot_lines_to_its_stages():
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.artifacts.derived import with_derived

    profile = open_record(str(PROTON_LINES)).profile
    build = with_derived(compile_file(CompileRequest(str(VECTOR_ADD), target="cuda:90")))
    j = join_profile(profile, build)["add_kernel"]
    source = j.hot.by_stage["source"]
    hottest = max(source, key=lambda n: source[n].samples)
    for stage in ("ttir", "ttgir", "llir", "ptx", "sass"):
        assert j.links[stage].get(hottest), stage  # the hottest line went somewhere in each stage
        # each of its lines there has the statement's samples (no PCs: not per instruction)
        assert {j.heat[stage][n].samples for n in j.links[stage][hottest]} == {source[hottest].samples}


def test_kx_open_prints_kernels_and_their_hottest_source_lines(capsys):
    assert kx_main(["open", str(PROTON_LINES), "--kernel", "add_kernel", "--top", "3"]) == 0
    out = capsys.readouterr().out
    lines = _kernel_nodes(PROTON_LINES)["add_kernel"][3]
    ranked = sorted(lines, key=lambda n: -lines[n]["num_samples"])[:3]
    printed = [int(m) for m in re.findall(r"^\s+source:(\d+)", out, re.MULTILINE)]
    assert printed == ranked
    assert kx_main(["open", str(PROTON_PC)]) == 0
    captured = capsys.readouterr()
    assert "add_vectors" in captured.out and "softmax_rows" in captured.out and "record-lacks" in captured.err
    assert kx_main(["open", str(PROTON_PC), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["record"]["kind"] == "proton" and len(doc["kernels"]) == len(_kernel_nodes(PROTON_PC))


def test_kx_open_beside_a_build_joins_by_kernel_name(capsys):
    assert (
        kx_main(["open", str(PROTON_LINES), "--kernel", "add_kernel", "--beside", str(VECTOR_ADD), "--json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    joined = doc["joined"]["add_kernel"]["by_stage"]
    assert {"source", "ttir", "ttgir", "llir", "ptx", "sass"} <= set(joined)
    lines = _kernel_nodes(PROTON_LINES)["add_kernel"][3]
    assert {int(n) for n in joined["source"]} == set(lines)


def test_a_cut_profile_keeps_the_kernels_before_the_cut(tmp_path):
    text = PROTON_PC.read_text()
    names = list(_kernel_nodes(PROTON_PC))
    cut = tmp_path / "cut.hatchet"
    at = text.index('"softmax_rows"')
    cut.write_text(text[:at])
    assert record_kind(str(cut)) == "proton"
    opened = open_record(str(cut))
    (problem,) = [d for d in opened.result.diagnostics if d.kind == "record"]
    assert (problem.file, problem.line) == (str(cut), text[:at].count("\n") + 1) and problem.column
    got = [k.kernel for k in opened.profile.kernels]
    assert got == names[: len(got)] and "add_vectors" in got and "softmax_rows" not in got
    assert opened.result.exit_status == 1


def test_garbage_is_no_record_or_a_located_diagnostic(tmp_path, capsys):
    noise = tmp_path / "noise.hatchet"
    noise.write_bytes(b"\x00\x01 not json")
    with pytest.raises(NotARecord):
        open_record(str(noise))
    shaped = tmp_path / "shaped.hatchet"
    shaped.write_text('[{"children": [{"frame": 7, "metrics": [1]}, 3], "frame": {"name": "ROOT"}}, {}]')
    opened = open_record(str(shaped))
    assert not opened.profile.kernels and opened.result.exit_status == 1
    assert kx_main(["open", str(shaped)]) == 1
    assert "Traceback" not in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(cut=st.floats(0, 1), noise=st.binary(max_size=6), at=st.floats(0, 1))
def test_any_damage_to_a_profile_is_diagnostics_never_a_traceback(tmp_path_factory, cut, noise, at):
    data = bytearray(PROTON_PC.read_bytes())
    where = int(at * len(data))
    data[where : where + len(noise)] = noise
    damaged = tmp_path_factory.mktemp("damaged") / "p.hatchet"
    damaged.write_bytes(bytes(data[: max(1, int(cut * len(data)))]))
    try:
        opened = open_record(str(damaged))
    except NotARecord:
        return
    assert opened.profile is not None and all(d.file == str(damaged) for d in opened.result.diagnostics)
