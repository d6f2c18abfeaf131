"""Proton profiles recorded on the H200 open as kx's profile result: every kernel's
launches and GPU time as the file has them; under PC sampling its samples and stall
reasons, summed from the file:line frames Proton keeps them on, its hot source lines,
which a build of the same kernel carries to the lines of its stages (lines of Triton's own
library, an inlined tl.max's, kept apart). A cut or damaged profile gives a
located diagnostic and the kernels before the cut."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from records_testing import KERNEL_FILE, PROTON_LINES, PROTON_PC, PROTON_TIMES

from kx_core.cli.commands import main as kx_main
from kx_core.ir.hot_lines import attribute
from kx_core.ir.sourcemap import same_source
from kx_core.recorded.open_record import NotARecord, open_record, record_kind
from kx_core.recorded.proton_profile import join_profile, library_lines
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


def _frames(path, kernel):
    """(file, line) -> metrics of a kernel's file:line frames, read from the tree (whose
    kernels run under no scope: each is a child of the root)."""
    (node,) = [n for n in json.loads(path.read_text())[0]["children"] if n["frame"]["name"] == kernel]
    out = {}
    for child in node.get("children", ()):
        file, line, _ = _LINE_FRAME_RE.match(child["frame"]["name"]).groups()
        out[(file, int(line))] = child["metrics"]
    return out


def _line_frames(path, kernel):
    """(file, line) -> num_samples of a kernel's file:line frames."""
    return {at: m["num_samples"] for at, m in _frames(path, kernel).items()}


def _tree_figures(path):
    """name -> {"samples", "stalled", "stalled_*"...} of each kernel: its node's own sample
    counts plus its line frames' (Proton keeps a Triton kernel's samples on its lines)."""
    out = {}
    for name, (_, _, metrics, _) in _kernel_nodes(path).items():
        figures = {}
        for m in (metrics, *_frames(path, name).values()):
            for key, n in m.items():
                if n and (key in ("num_samples", "num_stalled_samples") or key.startswith("stalled_")):
                    key = {"num_samples": "samples", "num_stalled_samples": "stalled"}.get(key, key)
                    figures[key] = figures.get(key, 0) + n
        out[name] = figures
    return out


def _is_library(file):
    return "/triton/language/" in file


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
    figures = _tree_figures(PROTON_PC)
    assert opened.profile.settings["mode"] == "pcsampling"
    for k in opened.profile.kernels:
        f = figures[k.kernel]
        assert (k.samples, k.stalled) == (f["samples"], f["stalled"]) and k.samples
        assert k.reasons == {r: n for r, n in f.items() if r.startswith("stalled_")}
    # the Triton kernels' samples are on their file:line frames, none on the kernel's node
    nodes = _kernel_nodes(PROTON_PC)
    for name in ("add_vectors", "softmax_rows"):
        _, _, metrics, lines = nodes[name]
        assert lines and "num_samples" not in metrics
        (k,) = [k for k in opened.profile.kernels if k.kernel == name]
        assert sum(m["samples"] for m in k.by_line.values()) == k.samples
        assert same_source(k.source_file, str(KERNEL_FILE))
    assert not opened.result.diagnostics and opened.result.exit_status == 0


def test_add_vectors_is_hottest_on_its_store():
    profile = open_record(str(PROTON_PC)).profile
    (k,) = [k for k in profile.kernels if k.kernel == "add_vectors"]
    frames = _line_frames(PROTON_PC, "add_vectors")
    assert {same_source(file, str(KERNEL_FILE)) for file, _ in frames} == {True}
    hot = attribute(k).by_stage["source"]
    assert {n: h.samples for n, h in hot.items()} == {line: n for (_, line), n in frames.items()}
    (file, line), _ = max(frames.items(), key=lambda kv: kv[1])
    assert max(hot, key=lambda n: hot[n].samples) == line
    # the tree's hottest line is the kernel's tl.store (line 18 when recorded)
    assert KERNEL_FILE.read_text().splitlines()[line - 1].strip().startswith("tl.store(")


def test_softmax_rows_lines_in_tritons_library_are_kept_apart():
    """The inlined tl.max and tl.sum's lines are in triton/language/standard.py, a frame of
    their own with no call site: the kernel's file stays record_kernels.py, and the library's
    lines are listed (and unattributed to the kernel's lines)."""
    profile = open_record(str(PROTON_PC)).profile
    (k,) = [k for k in profile.kernels if k.kernel == "softmax_rows"]
    frames = _line_frames(PROTON_PC, "softmax_rows")
    library = {f"{file}:{line}": n for (file, line), n in frames.items() if _is_library(file)}
    own = {line: n for (file, line), n in frames.items() if same_source(file, str(KERNEL_FILE))}
    assert library and own and len(library) + len(own) == len(frames)
    assert same_source(k.source_file, str(KERNEL_FILE))
    assert library_lines(k) == dict(sorted(library.items(), key=lambda kv: -kv[1]))
    hot = attribute(k)
    assert {n: h.samples for n, h in hot.by_stage["source"].items()} == own
    assert hot.unattributed == sum(library.values()) and hot.total == k.samples


def test_a_profile_whose_kernels_have_no_line_frames_says_so(tmp_path):
    """A profile as Proton writes it when CUPTI maps no PC to a line (its PC sampling
    started after the kernels' modules loaded): each kernel's samples on its own node."""
    doc = json.loads(PROTON_PC.read_text())
    figures = _tree_figures(PROTON_PC)
    for node in doc[0]["children"]:
        f = figures[node["frame"]["name"]]
        node["children"] = []
        node["metrics"] |= {"num_samples": f["samples"], "num_stalled_samples": f["stalled"]}
        node["metrics"] |= {r: n for r, n in f.items() if r.startswith("stalled_")}
    flat = tmp_path / "flat.hatchet"
    flat.write_text(json.dumps(doc))
    opened = open_record(str(flat))
    assert not any(k.by_line for k in opened.profile.kernels)
    assert {k.kernel: k.samples for k in opened.profile.kernels} == {
        n: f["samples"] for n, f in figures.items()
    }
    (lacks,) = opened.result.diagnostics
    assert lacks.kind == "record-lacks" and lacks.file == str(flat) and opened.result.exit_status == 0


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
    assert "add_vectors" in captured.out and "softmax_rows" in captured.out and not captured.err
    # softmax_rows's samples on Triton's library lines (inlined tl.max, tl.sum) get a note
    frames = _line_frames(PROTON_PC, "softmax_rows")
    library = sorted(
        ((n, f"{file}:{line}") for (file, line), n in frames.items() if _is_library(file)), reverse=True
    )
    (note,) = [line for line in captured.out.splitlines() if "Triton's own library" in line]
    assert note.lstrip().startswith(f"note: {sum(n for n, _ in library)} of {sum(frames.values())} samples")
    assert f"{os.path.basename(library[0][1])} {library[0][0]}" in note
    assert ("its hottest line is one of them" in note) == (library[0][0] == max(frames.values()))
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


def test_kx_open_beside_the_recorded_kernels_joins_both(capsys):
    assert kx_main(["open", str(PROTON_PC), "--beside", str(KERNEL_FILE), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["joined"]) == {"add_vectors", "softmax_rows"}
    for name in ("add_vectors", "softmax_rows"):
        own = {line for file, line in _line_frames(PROTON_PC, name) if same_source(file, str(KERNEL_FILE))}
        assert {int(n) for n in doc["joined"][name]["by_stage"]["source"]} == own
    assert set(doc["triton_library_lines"]) == {"softmax_rows"}


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
