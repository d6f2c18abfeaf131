"""`kx compile --export tritonparse`: kx's capture written as a trace that tritonparse's own
parser (unified_parse, the package from the index) reads, finding every kernel and stage
kx wrote; and that kx opens again as the same kernels."""

from __future__ import annotations

import gzip
import json

import pytest
from records_testing import KERNEL_FILE

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.derived import with_derived
from kx_core.recorded.open_record import open_record
from kx_core.recorded.trace_export import TRACE_PREFIX, export_tritonparse, trace_path
from kx_testing import missing_extra


@pytest.fixture(scope="module")
def captured():
    """A real capture of the two recorded kernels' file (it launches both)."""
    result = compile_file(CompileRequest(str(KERNEL_FILE), target="cuda:90"), use_cache=False)
    return with_derived(result)


def _parsed_events(out_dir):
    (mapped,) = out_dir.glob("*_mapped.ndjson*")
    opener = gzip.open if mapped.name.endswith(".gz") else open
    with opener(mapped, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.extra("tritonparse")
def test_tritonparse_parses_the_exported_trace(captured, tmp_path):
    parse = pytest.importorskip("tritonparse.parse.utils", reason=missing_extra("tritonparse"))
    compiled = [k for k in captured.kernels if k.status == "compiled"]
    assert len(compiled) == 2
    out = trace_path(str(tmp_path / "trace") + "/")
    assert export_tritonparse(captured, out) == 2
    assert out.rsplit("/", 1)[1].startswith(TRACE_PREFIX)
    parsed_dir = tmp_path / "parsed"
    parse.unified_parse(source=str(tmp_path / "trace"), out=str(parsed_dir), overwrite=True, skip_logger=True)
    events = _parsed_events(parsed_dir)
    compilations = [e for e in events if e["event_type"] == "compilation"]
    by_hash = {e["payload"]["metadata"]["hash"]: e for e in compilations}
    assert sorted(by_hash) == sorted(k.metadata.hash for k in compiled)  # the capture's real hashes
    for k in compiled:
        payload = by_hash[k.metadata.hash]["payload"]
        assert payload["metadata"]["name"] == k.name
        wrote = {f"{k.name}.{s}": k.stages[s] for s in ("ttir", "ttgir", "llir", "ptx", "sass")}
        assert payload["file_content"] == wrote
        # tritonparse mapped the stages to each other and to the Python source kx wrote
        assert {"ttir", "ttgir", "ptx", "python"} <= set(payload["source_mappings"])
        assert payload["source_mappings"]["python"]
    launches = [e for e in events if e["event_type"] == "launch"]
    assert sorted(e["compilation_metadata"]["hash"] for e in launches) == sorted(by_hash)
    grids = {e["compilation_metadata"]["hash"]: e["grid"] for e in launches}
    assert all(grids[k.metadata.hash] == list(k.launch.grid) for k in compiled)


def test_kx_opens_its_export_as_the_same_kernels(captured, tmp_path):
    out = tmp_path / "kx_trace.ndjson.gz"
    export_tritonparse(captured, str(out))
    opened = open_record(str(out))
    compiled = [k for k in captured.kernels if k.status == "compiled"]
    assert [k.name for k in opened.result.kernels] == [k.name for k in compiled]
    for mine, theirs in zip(opened.result.kernels, compiled):
        assert mine.stages == {s: t for s, t in theirs.stages.items() if s != "elf"}
        assert mine.metadata.registers == theirs.metadata.registers  # kept in metadata.kx
        assert mine.launch.grid == theirs.launch.grid
