"""tritonparse traces recorded by tritonparse itself open as kernels whose stages are the
trace's file_content; a gzipped trace is read by offset through checkpoints; a truncated,
damaged or unknown record gives located diagnostics and what could be read."""

from __future__ import annotations

import gzip
import json
import os
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from records_testing import GPU_TRACE, KERNEL_FILE, TRACE, TRACE_GZIP_MEMBERS

from kx_core.cli.commands import main as kx_main
from kx_core.recorded import seekable_lines
from kx_core.recorded.open_record import NotARecord, open_record, with_record_stages
from kx_core.recorded.seekable_lines import SeekableLines


def _events(path=TRACE):
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def _compilations(path=TRACE):
    return [e for e in _events(path) if e["event_type"] == "compilation"]


@pytest.mark.parametrize("trace", [TRACE, GPU_TRACE], ids=["compile-only", "h200-launches"])
def test_every_kernel_and_stage_of_the_trace(trace):
    opened = open_record(str(trace))
    events = _compilations(trace)
    assert [k.name for k in opened.result.kernels] == [e["payload"]["metadata"]["name"] for e in events]
    for k, e in zip(opened.result.kernels, events):
        payload = e["payload"]
        md = payload["metadata"]
        expected = {
            name.rsplit(".", 1)[1]: text
            for name, text in payload["file_content"].items()
            if name.rsplit(".", 1)[1] in ("ttir", "ttgir", "llir", "ptx", "sass")
        }
        assert k.stages == expected
        assert (k.metadata.hash, k.metadata.num_warps, k.metadata.num_stages, k.metadata.shared) == (
            md["hash"],
            md["num_warps"],
            md["num_stages"],
            md["shared"],
        )
        assert k.target.spec == f"{md['target']['backend']}:{md['target']['arch']}"
        assert k.source_file == payload["python_source"]["file_path"]
        # the def line, inside the lines the record's source covers
        assert payload["python_source"]["start_line"] <= k.source_line <= payload["python_source"]["end_line"]
    assert opened.result.exit_status == 0 and not opened.result.diagnostics


def test_a_launch_the_trace_recorded_is_the_kernels_launch():
    """The H200 trace (tritonparse's launch tracing on): each kernel carries its first
    launch's grid and arguments as the run passed them."""
    launches = {
        e["compilation_metadata"]["hash"]: e for e in _events(GPU_TRACE) if e["event_type"] == "launch"
    }
    opened = open_record(str(GPU_TRACE))
    assert len(launches) == len(opened.result.kernels) == 2
    for k in opened.result.kernels:
        event = launches[k.metadata.hash]
        assert k.launch is not None and list(k.launch.grid)[: len(event["grid"])] == event["grid"]
        tensors = {a.name: a for a in k.launch.args if a.kind == "tensor"}
        recorded = {n: v for n, v in event["extracted_args"].items() if v.get("type") == "tensor"}
        assert sorted(tensors) == sorted(recorded)
        for name, v in recorded.items():
            assert list(tensors[name].shape) == v["shape"] and tensors[name].dtype == v["dtype"].removeprefix(
                "torch."
            )


def test_the_python_source_the_trace_carries_keeps_its_lines():
    opened = open_record(str(TRACE))
    e = _compilations()[0]["payload"]["python_source"]
    text = opened.index.python_source(opened.index.entries[0])[1]
    lines = text.split("\n")
    assert lines[e["start_line"] - 1 :][: len(e["code"].split("\n"))] == e["code"].split("\n")
    # the record's text stands in for a file this machine does not have
    assert (e["file_path"] in opened.sources) == (not os.path.exists(e["file_path"]))


@pytest.mark.parametrize("variant", ["gzip-members", "gzip-one-stream"])
def test_gzipped_traces_read_the_same(variant, tmp_path):
    if variant == "gzip-members":
        path = TRACE_GZIP_MEMBERS  # tritonparse's own compression="gzip"
    else:
        path = tmp_path / "trace.ndjson.gz"
        path.write_bytes(gzip.compress(TRACE.read_bytes()))
    plain = open_record(str(TRACE)).result.kernels
    packed = open_record(str(path)).result.kernels
    assert [k.stages for k in packed] == [k.stages for k in plain]
    assert [k.metadata.hash for k in packed] == [
        e["payload"]["metadata"]["hash"] for e in _compilations(path)
    ]


def test_index_first_then_stages_on_demand():
    lazy = open_record(str(TRACE), stages=False)
    assert all(not k.stages for k in lazy.result.kernels)
    assert all(k.metadata.extra.get("stages_not_read") for k in lazy.result.kernels)
    full = open_record(str(TRACE))
    assert [lazy.load(i).stages for i in range(2)] == [k.stages for k in full.result.kernels]
    assert [k.stages for k in with_record_stages(lazy).result.kernels] == [
        k.stages for k in full.result.kernels
    ]


def test_checkpoints_read_any_line_of_a_gzip_stream_again(tmp_path, monkeypatch):
    """Many checkpoints (a small interval) over one stream and over many members: every
    line read back by offset is the line the first pass saw."""
    monkeypatch.setattr(seekable_lines, "CHECKPOINT_BYTES", 50_000)
    monkeypatch.setattr(seekable_lines, "GZIP_CHUNK_BYTES", 7_000)
    monkeypatch.setattr(seekable_lines, "BLOCK_BYTES", 20_000)
    rng = random.Random(3)
    lines = [json.dumps({"n": i, "text": "x" * rng.randrange(10, 20_000)}).encode() for i in range(300)]
    one = tmp_path / "one.gz"
    one.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    members = tmp_path / "members.gz"
    members.write_bytes(b"".join(gzip.compress(line + b"\n") for line in lines))
    for path in (one, members):
        source = SeekableLines(str(path))
        seen = list(source.lines())
        assert [line for _, _, line in seen] == lines
        assert len(source.checkpoints) > 10 and source.problem is None
        for _, offset, line in rng.sample(seen, 40):
            assert source.read(offset, len(line)) == line


def _inflated(data: bytes) -> bytes:
    return zlib.decompressobj(31).decompress(data)


def test_a_truncated_gzip_trace_gives_what_was_read(tmp_path):
    data = TRACE.read_bytes()
    packed = gzip.compress(data)
    first_len = data.index(b"\n")
    # the compressed bytes that hold the first event and part of the second
    keep = next(k for k in range(64, len(packed), 64) if len(_inflated(packed[:k])) > first_len + 1000)
    cut = tmp_path / "cut.ndjson.gz"
    cut.write_bytes(packed[:keep])
    opened = open_record(str(cut))
    assert [k.name for k in opened.result.kernels] == [_compilations()[0]["payload"]["metadata"]["name"]]
    messages = " | ".join(d.message for d in opened.result.diagnostics)
    assert "truncated" in messages
    assert any(d.line == 2 for d in opened.result.diagnostics)  # the record cut in half, located
    assert opened.result.exit_status == 1


def test_garbage_and_unknown_events_are_located_and_skipped(tmp_path):
    lines = TRACE.read_bytes().splitlines()
    odd = json.loads(lines[0])
    del odd["payload"]["metadata"]["hash"]  # a compilation in a shape kx does not know
    mixed = tmp_path / "mixed.ndjson"
    mixed.write_bytes(
        b"\n".join([lines[0], b"this is not json {", json.dumps(odd).encode(), lines[1]]) + b"\n"
    )
    opened = open_record(str(mixed))
    assert [k.name for k in opened.result.kernels] == [
        e["payload"]["metadata"]["name"] for e in _compilations()
    ]
    by_line = {d.line: d for d in opened.result.diagnostics}
    assert "not JSON" in by_line[2].message
    assert "payload.metadata.hash" in by_line[3].message
    assert all(d.file == str(mixed) for d in opened.result.diagnostics)
    assert opened.result.exit_status == 1


def test_kx_open_exit_statuses_and_no_traceback(tmp_path, capsys):
    assert kx_main(["open", str(TRACE)]) == 0
    out = capsys.readouterr().out
    assert all(e["payload"]["metadata"]["name"] in out for e in _compilations())
    garbage = tmp_path / "garbage.ndjson"
    garbage.write_bytes(b'{"event_type": "compilation", "payload": {"metadata": {"hash"\n')
    assert kx_main(["open", str(garbage)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err and f"{garbage}:1:" in captured.out
    assert kx_main(["open", str(KERNEL_FILE)]) == 2
    assert "not a Triton cache" in capsys.readouterr().err
    assert kx_main(["open", str(TRACE), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["record"]["kind"] == "tritonparse" and len(doc["kernels"]) == len(_compilations())


@settings(max_examples=30, deadline=None)
@given(
    gzipped=st.booleans(),
    cuts=st.lists(st.tuples(st.floats(0, 1), st.binary(min_size=0, max_size=8)), min_size=1, max_size=4),
    truncate=st.one_of(st.none(), st.floats(0.01, 1)),
)
def test_any_damage_is_diagnostics_never_a_traceback(tmp_path_factory, gzipped, cuts, truncate):
    """Bytes overwritten anywhere, a file cut anywhere: open_record answers with what it
    read and located diagnostics (or says it is no record), never an exception."""
    data = bytearray(gzip.compress(TRACE.read_bytes()) if gzipped else TRACE.read_bytes())
    for where, junk in cuts:
        at = int(where * (len(data) - 1))
        data[at : at + len(junk)] = junk
    if truncate is not None:
        data = data[: max(1, int(truncate * len(data)))]
    path = tmp_path_factory.mktemp("damaged") / "trace.ndjson"
    path.write_bytes(bytes(data))
    try:
        opened = open_record(str(path))
    except NotARecord:
        return
    for d in opened.result.diagnostics:
        assert d.kind == "record" and d.file == str(path)
    assert opened.result.exit_status in (0, 1)
    if opened.result.diagnostics:
        assert opened.result.exit_status == 1


@pytest.mark.parametrize(
    "mutate",
    [
        lambda e: e.update(payload=[1, 2]),
        lambda e: e["payload"].update(metadata="not an object"),
        lambda e: e["payload"]["metadata"].update(num_warps="four", shared=None, target=[90]),
        lambda e: e["payload"].update(file_content=["ttir"], file_path=7, python_source="x"),
        lambda e: e.update(event_type=3),
    ],
    ids=["payload-list", "metadata-string", "field-types", "stage-shapes", "event-type-int"],
)
def test_events_of_another_shape_are_read_in_part(tmp_path, mutate):
    """Valid JSON in a shape kx does not know (another tritonparse version, another
    writer): the other kernel is read, nothing raises."""
    lines = TRACE.read_bytes().splitlines()
    odd = json.loads(lines[0])
    mutate(odd)
    path = tmp_path / "odd.ndjson"
    path.write_bytes(json.dumps(odd).encode() + b"\n" + lines[1] + b"\n")
    opened = open_record(str(path))
    second = _compilations()[1]["payload"]["metadata"]["name"]
    assert second in [k.name for k in opened.result.kernels]
    assert all(d.kind == "record" and d.file == str(path) for d in opened.result.diagnostics)


def test_a_trace_without_cubins_gets_them_from_its_own_triton_version():
    """tritonparse keeps the text stages, not the binary: kx recompiles each kernel's PTX
    with the Triton the trace names (here kx's own) and says so; registers and SASS equal
    those of the cubin the same compiles left in the cache folder."""
    import base64

    from kx_core.compile.artifacts.sass import disassemble

    cache = {k.metadata.hash: k for k in open_record(str(TRACE.parent / "cache")).result.kernels}
    for k in open_record(str(TRACE)).result.kernels:
        assert "cubin" in k.binaries and k.metadata.extra["recompiled_binaries"] == ["cubin"]
        assert any("recompiled by kx from the record's PTX" in n for n in k.metadata.extra["notes"])
        real = cache[k.metadata.hash]
        assert k.metadata.registers == real.metadata.registers
        mine, theirs = (base64.b64decode(x.binaries["cubin"]) for x in (k, real))
        assert disassemble(mine) == disassemble(theirs)


def test_a_ptx_its_triton_cannot_assemble_here_stays_without_a_cubin():
    """The H200's Triton 3.6 wrote PTX 9.0 (its ptxas is CUDA 13's); the package index's
    3.6.0 carries an older ptxas. kx shows no registers rather than another ptxas's."""
    (k,) = open_record(str(GPU_TRACE.parent / "inductor_trace.ndjson")).result.kernels
    assert "cubin" not in k.binaries and k.metadata.registers is None
    (note,) = [n for n in k.metadata.extra["notes"] if "no cubin" in n]
    assert "Unsupported .version" in note or "kx versions add 3.6.0" in note
