"""An Inductor debug folder (TORCH_COMPILE_DEBUG) and a TORCH_TRACE log recorded on the H200
(Triton 3.6.0, torch 2.11) hold Inductor's output module, source only: each opens as the
module's kernels, their stages kx's compile of that source for the recorded target, every
one labelled recompiled with the Triton that compiled it beside the run's. The same
model's tritonparse trace opens as the run's own compile, and agrees on names and config.
A cut or damaged record gives located diagnostics and what could be read. Each is opened
trusted (`trusted=True`, `--trust`): running the module is running the record's code
(tests/robustness/test_records_consent.py: nothing runs without it)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil

import pytest
import triton
from records_testing import INDUCTOR_DEBUG, INDUCTOR_TRACE, TORCH_TRACE_LOG

from kx_core.cli.commands import main as kx_main
from kx_core.recorded.open_record import open_record, record_kind, record_notes

GRAPH = next(INDUCTOR_DEBUG.glob("torch_compile_debug/run_*/torchinductor/*/output_code.py")).parent
OUTPUT_CODE = GRAPH / "output_code.py"
# Example: triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''
_KERNEL_RE = re.compile(r"^\w+ = async_compile\.triton\('(\w+)', '''$", re.MULTILINE)


def _names(text: str) -> list[str]:
    return _KERNEL_RE.findall(text)


def _log_events(path=TORCH_TRACE_LOG):
    """(header line number, header JSON, payload text) of every event of the log."""
    events = []
    for number, line in enumerate(path.read_text().split("\n"), start=1):
        if line.startswith("\t"):
            events[-1][2].append(line[1:])
        elif line:
            events.append((number, json.loads(line.split("] ", 1)[1]), []))
    return [(n, doc, "\n".join(p)) for n, doc, p in events]


def _first(kind: str):
    return next(e for e in _log_events() if kind in e[1] or e[1].get("artifact", {}).get("name") == kind)


def test_every_folder_of_the_debug_layout_is_an_inductor_debug_record():
    run = GRAPH.parent.parent
    for folder in (INDUCTOR_DEBUG, run.parent, run, GRAPH.parent, GRAPH):
        assert record_kind(str(folder)) == "inductor-debug", folder
    assert record_kind(str(TORCH_TRACE_LOG)) == "torch-trace"
    assert record_kind(str(INDUCTOR_TRACE)) == "tritonparse"


def test_the_debug_folder_opens_as_its_modules_kernels_recompiled_and_labelled():
    text = OUTPUT_CODE.read_text()
    opened = open_record(str(INDUCTOR_DEBUG), trusted=True)
    result = opened.result
    assert opened.kind == "inductor-debug" and result.exit_status == 0
    assert sorted({k.name for k in result.kernels}) == sorted(_names(text)) and len(_names(text)) == 1
    cc = re.search(r"DeviceProperties\(type='cuda',[^)]*\bcc=(\d+)", text).group(1)
    torch_version = re.search(r"^# torch version: (\S+)$", (GRAPH / "fx_graph_runnable.py").read_text(), re.M)
    lines = text.splitlines()
    for k in result.kernels:
        assert k.status == "compiled" and k.target.spec == f"cuda:{cc}"
        assert {"ttir", "ttgir", "llir", "ptx"} <= set(k.stages)
        # the module is the kernels' source: their def line is its line
        assert k.source_file == str(OUTPUT_CODE) and lines[k.source_line - 1].startswith(f"def {k.name}(")
        note = k.metadata.extra["recompiled"]
        assert f"Triton {triton.__version__}" in note and "does not name the run's Triton" in note
        assert note in record_notes(k)
    assert result.triton_version == triton.__version__
    recompiled = [d for d in result.diagnostics if d.kind == "recompiled"]
    assert recompiled and recompiled[0].file == str(OUTPUT_CODE)
    if torch_version.group(1) != __import__("torch").__version__:
        assert f"the run's was {torch_version.group(1)}" in recompiled[0].message


def test_the_torch_trace_log_opens_as_its_output_modules_kernels():
    line, doc, payload = _first("inductor_output_code")
    assert hashlib.md5(payload.encode()).hexdigest() == doc["has_payload"]
    metrics = _first("compilation_metrics")[1]["compilation_metrics"]
    _, _, info = _first("triton_kernel_info")
    launched = {name: dict(facts["only_config"]) for name, facts in json.loads(info).items()}
    opened = open_record(str(TORCH_TRACE_LOG), trusted=True)
    result = opened.result
    assert opened.kind == "torch-trace" and result.exit_status == 0
    assert sorted({k.name for k in result.kernels}) == sorted(_names(payload))
    for k in result.kernels:
        # the module the log carries, kept where this machine can show it, line for line
        assert open(k.source_file).read() == payload
        assert k.metadata.extra["record_file"] == doc["inductor_output_code"]["filename"]
        assert k.metadata.extra["record"] == f"torch-trace line {line}"
        note = k.metadata.extra["recompiled"]
        assert (
            f"the run had Triton {metrics['triton_version']}" in note
            or metrics["triton_version"] == triton.__version__
        )
        # the log says which config ran: kx's compile of it is that one, and it says so
        config = dict(k.config.kwargs) | {"num_warps": k.config.num_warps, "num_stages": k.config.num_stages}
        assert config == launched[k.name] and k.chosen is None
        assert "the run launched this config" in k.metadata.extra["launched"]
    # what the log holds, every kind of event counted
    counts: dict[str, int] = {}
    for _, event, _ in _log_events():
        key = next(k for k in event if k not in ("frame_id", "frame_compile_id", "attempt", "has_payload"))
        key = f"artifact {event['artifact']['name']}" if key == "artifact" else key
        counts[key] = counts.get(key, 0) + 1
    assert opened.contents == counts


def test_the_models_tritonparse_trace_is_the_same_kernel_compiled_by_the_run():
    """The run's own compile (tritonparse) and kx's recompile of the debug folder agree on
    the kernel and its config; the trace's stages are the run's (Triton 3.6.0)."""
    traced = open_record(str(INDUCTOR_TRACE))
    compiles = [json.loads(x) for x in INDUCTOR_TRACE.read_text().splitlines() if x.strip()]
    md = next(e for e in compiles if e["event_type"] == "compilation")["payload"]["metadata"]
    (k,) = traced.result.kernels
    assert (k.name, k.metadata.num_warps, k.metadata.num_stages) == (
        md["name"],
        md["num_warps"],
        md["num_stages"],
    )
    assert traced.result.triton_version == md["triton_version"] and not traced.result.diagnostics
    assert "recompiled" not in k.metadata.extra  # read, not compiled
    recompiled = open_record(str(GRAPH), trusted=True).result.kernels
    assert [(r.name, r.config.num_warps, r.config.num_stages) for r in recompiled] == [
        (md["name"], md["num_warps"], md["num_stages"])
    ]


def test_a_module_cut_inside_a_kernel_is_located_and_not_compiled(tmp_path):
    graph = tmp_path / "model__0_inference_0.0"
    shutil.copytree(GRAPH, graph)
    text = OUTPUT_CODE.read_text()
    start = text.index("async_compile.triton(")
    (graph / "output_code.py").write_text(text[: start + 400])
    opened = open_record(str(graph), trusted=True)
    (k,) = opened.result.kernels
    assert k.status == "failed" and "cut short" in k.message
    cut = [d for d in opened.result.diagnostics if d.kind == "record"]
    assert cut and cut[0].file == str(graph / "output_code.py")
    assert cut[0].line == text[:start].count("\n") + 1  # the kernel's block starts there
    assert opened.result.exit_status == 1


def test_a_module_cut_after_its_kernels_is_compiled_and_its_syntax_error_located(tmp_path):
    graph = tmp_path / "model__0_inference_0.0"
    shutil.copytree(GRAPH, graph)
    text = OUTPUT_CODE.read_text()
    cut_at = text.index("def call(self, args):") + len("def call(self, args):") + 12
    (graph / "output_code.py").write_text(text[:cut_at] + "(\n")
    opened = open_record(str(graph), trusted=True)
    assert opened.result.exit_status == 1
    syntax = [d for d in opened.result.diagnostics if d.kind == "syntax"]
    assert syntax and syntax[0].line is not None
    assert all(k.status == "failed" for k in opened.result.kernels)
    assert sorted(k.name for k in opened.result.kernels) == sorted(_names(text))


def test_a_cut_or_damaged_log_is_located_and_read_in_part(tmp_path):
    lines = TORCH_TRACE_LOG.read_text().split("\n")
    header, doc, payload = _first("inductor_output_code")
    # cut inside the output module's payload: the module is not compiled, the events before are counted
    cut = tmp_path / "cut.log"
    cut.write_text("\n".join(lines[: header + 20]))
    opened = open_record(str(cut), trusted=True)
    assert not opened.result.kernels and opened.result.exit_status == 1
    digest = [d for d in opened.result.diagnostics if "has_payload" in d.message]
    assert digest and (digest[0].file, digest[0].line) == (str(cut), header)
    assert opened.contents["inductor_output_code"] == 1
    # a damaged line elsewhere: located, skipped, the rest read
    damaged = tmp_path / "damaged.log"
    bad = 3
    damaged.write_text(
        "\n".join([*lines[: bad - 1], "V1203 15:02:29.105000 716 x.py:1] {not json", *lines[bad:]])
    )
    opened = open_record(str(damaged), trusted=True)
    assert [d.line for d in opened.result.diagnostics if d.kind == "record"] == [bad]
    assert sorted({k.name for k in opened.result.kernels}) == sorted(_names(payload))


@pytest.mark.parametrize("args", [[], ["--json"]])
def test_kx_open_says_what_a_log_holds_and_that_it_recompiled(args, capsys):
    assert kx_main(["open", str(TORCH_TRACE_LOG), "--trust", *args]) == 0
    out = capsys.readouterr().out
    if args:
        doc = json.loads(out)
        assert doc["record"]["kind"] == "torch-trace"
        assert all("recompiled" in k["metadata"] for k in doc["kernels"])
    else:
        assert "TORCH_TRACE log" in out and "these stages are kx's compile" in out
        assert f"it holds {len(_log_events())} events" in out


@pytest.mark.parametrize("share", [0.002, 0.1, 0.5, 0.7, 0.95])
def test_a_log_cut_anywhere_is_read_in_part_never_a_traceback(share, tmp_path):
    data = TORCH_TRACE_LOG.read_bytes()
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[: int(share * len(data))])
    opened = open_record(str(cut), trusted=True)
    assert opened.kind == "torch-trace" and all(d.file for d in opened.result.diagnostics)
    header = _first("inductor_output_code")[0]
    assert bool(opened.result.kernels) == (
        cut.read_text().count("\n") > header + _first("inductor_output_code")[2].count("\n")
    )
