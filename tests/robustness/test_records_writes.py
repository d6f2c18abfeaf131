"""kx writes only where the user chose (issue 52, item 3: rows 4 and 5). A record's or a
bundle's names never decide where a save goes: the source a tritonparse trace carries for
a file this machine does not have, and a bundle's source, are documents with no file
(Session.no_file); Save asks where, F5 runs nothing before that, the folder the record
named is never trusted for them, and an autosave of them comes back the same way. A
bundle's file_name is a plain name, and its digest covers every field."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from records_open.records_testing import CACHE, TRACE

from kx_core.records import bundle as bundles
from kx_core.records.bundle import BundleError, read_bundle, write_bundle


@pytest.fixture
def make_window(make_window):
    """A headless window (tests/conftest.py's) that asks the trust question and where to
    save (both answered by tests)."""

    def make():
        w = make_window(timeout_s=180.0)
        w.ask_in_headless = True
        w.asked, w.save_asked = [], []
        w.ask_trust = lambda folder: w.asked.append(folder) or "source"
        w.source_pane.ask_save_path = lambda name: w.save_asked.append(name) or None  # cancelled
        return w

    return make


# ------------------------------------------------------------------ row 4: a trace's file_path


def planted_trace(tmp_path: Path) -> tuple[Path, Path]:
    """The fixture trace, its kernels' source named as a file that does not exist in a
    folder the user trusts (the trace's code would be planted there by a save)."""
    from kx_gui.trust import trust

    trusted = tmp_path / "trusted"
    trusted.mkdir()
    trust(str(trusted))
    planted = trusted / "planted.py"
    events = [json.loads(line) for line in TRACE.read_text().splitlines() if line.strip()]
    for e in events:
        e["payload"]["python_source"]["file_path"] = str(planted)
    trace = tmp_path / "sent" / "trace.ndjson"
    trace.parent.mkdir()
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    return trace, planted


def _open_record(qtbot, w, path: Path) -> None:
    """Open the trace and wait for its whole index (its first kernel shows before)."""
    with qtbot.waitSignal(w.result_shown, timeout=120_000):
        assert w.open_file(str(path))
    qtbot.waitUntil(lambda: w.session.result is not None and len(w.session.result.kernels) == 2)


def test_a_traces_source_is_a_document_with_no_file(qtbot, make_window, tmp_path):
    trace, planted = planted_trace(tmp_path)
    w = make_window()
    _open_record(qtbot, w, trace)
    assert "def " in w.source_pane.text()  # the trace's copy, shown
    w.source_pane.view.appendPlainText("# an edit")
    assert not w.save()  # asked where; cancelled: nothing written
    assert w.save_asked == ["planted.py"] and not planted.exists()  # before: written there
    assert w.session.no_file and "saved nowhere (Ctrl+S asks where)" in w.stage_pane.badge.text()
    assert w.windowTitle().startswith("kx — planted.py (a record's copy, not saved)")
    # F5 runs nothing and trusts nothing: the text is saved first, where the user says
    w.recompile()
    assert not planted.exists() and not w.session.compiling and not w.session.running
    assert w.asked == []  # the trusted folder the trace named decided nothing either
    # saved where the user chose: that file is the document, and still runs only when asked
    chosen = tmp_path / "mine" / "kernel.py"
    chosen.parent.mkdir()
    w.source_pane.ask_save_path = lambda name: str(chosen)
    assert w.save()
    assert chosen.read_text() == w.source_pane.text() and not planted.exists()
    assert w.session.path == str(chosen) and not w.session.no_file and not w.session.running
    w.recompile()
    assert w.asked == [str(chosen.parent)] and not w.session.running  # asked about its own folder


def test_an_autosave_of_a_records_text_comes_back_with_no_file(qtbot, make_window, tmp_path):
    trace, planted = planted_trace(tmp_path)
    w = make_window()
    _open_record(qtbot, w, trace)
    w.source_pane.view.appendPlainText("# typed before the crash")
    qtbot.waitUntil(lambda: bool(w.recovery.pending()), timeout=5_000)
    after = make_window()
    assert after.offer_recovery(ask=lambda e: True)
    assert after.source_pane.text().endswith("# typed before the crash")
    qtbot.wait(300)
    # before: restored as the file it names, running (its live compile ran the text)
    assert not after.session.running and not after.session.compiling and after.asked == []
    assert not after.save() and after.save_asked == ["planted.py"] and not planted.exists()
    assert after.session.no_file


# ------------------------------------------------------------------ row 5: a bundle's names


def _result():
    from kx_core.recorded.open_record import open_record

    return open_record(str(CACHE)).result


def _rewritten(path: Path, digest: str = "v2", **fields) -> Path:
    """The bundle at `path` with `fields` changed, its digest made again as kx-bundle/2's
    ("v2"), as kx-bundle/1's over the source and result only ("v1"), or left ("stale")."""
    doc = json.loads(gzip.decompress(path.read_bytes())) | fields
    if digest == "v2":
        doc["digest"] = bundles.digest_of(doc)
    elif digest == "v1":
        doc["format"], doc["digest"] = "kx-bundle/1", bundles._digest(doc["source"], doc["result"])
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return path


@pytest.mark.parametrize("digest", ["v1", "v2"])
@pytest.mark.parametrize("name", ["../proj/victim.py", "/home/someone/proj/victim.py", "..", "sub/k.py"])
def test_a_bundle_naming_a_path_is_refused(tmp_path, name, digest):
    bundle = tmp_path / "b.kxb"
    write_bundle(str(bundle), "x = 1\n", _result())
    _rewritten(bundle, digest, file_name=name)
    with pytest.raises(BundleError, match="its file_name .* is a path, not a file's name: not opened"):
        read_bundle(str(bundle))  # before: opened, and shown (and saved) as ../proj/victim.py


@pytest.mark.parametrize("name", ["a\nb.py", "\x1b[2Jk.py", "k" * 300 + ".py", 5, ""])
def test_a_bundle_file_name_must_be_a_plain_name(tmp_path, name):
    bundle = tmp_path / "b.kxb"
    write_bundle(str(bundle), "x = 1\n", _result())
    _rewritten(bundle, file_name=name)
    with pytest.raises(BundleError, match="its file_name"):
        read_bundle(str(bundle))


@pytest.mark.parametrize("field", ["file_name", "kx", "created"])
def test_every_field_of_a_bundle_is_under_its_digest(tmp_path, field):
    bundle = tmp_path / "b.kxb"
    write_bundle(str(bundle), "x = 1\n", _result())
    value = {"file_name": "other.py", "kx": "9.9.9", "created": 1.0}[field]
    _rewritten(bundle, "stale", **{field: value})
    with pytest.raises(BundleError, match="do not match their digest"):
        read_bundle(str(bundle))  # before: only the source and result were covered
    # a bundle an older kx wrote (kx-bundle/1: its digest covers the source and result) opens
    _rewritten(bundle, "v1")
    opened = read_bundle(str(bundle))
    assert opened.source == "x = 1\n" and len(opened.result.kernels) == 2


def test_save_never_overwrites_a_file_the_bundle_names(qtbot, make_window, tmp_path):
    """A bundle whose file_name is the name of the user's file beside it: shown under that
    name, it is a document with no file; Save asks where, and never writes victim.py."""
    folder = tmp_path / "proj"
    folder.mkdir()
    victim = folder / "victim.py"
    victim.write_text("# the user's own file\n")
    bundle = folder / "sent.kxb"
    write_bundle(str(bundle), "x = 1\n", _result())
    _rewritten(bundle, "v1", file_name="victim.py")  # as an older kx wrote it: still read
    w = make_window()
    with qtbot.waitSignal(w.result_shown, timeout=60_000):
        assert w.open_file(str(bundle))
    assert w.source_pane.text() == "x = 1\n"
    w.source_pane.view.appendPlainText("# an edit")
    assert not w.save() and w.save_asked == ["victim.py"]
    assert victim.read_text() == "# the user's own file\n"  # before: overwritten with the bundle's text
    assert w.session.no_file
    # the user's file changing on disk does not replace the bundle's text either
    victim.write_text("# changed by the user\n")
    qtbot.wait(300)
    assert w.source_pane.text().startswith("x = 1\n") and w.session.no_file
