"""Nothing a record holds runs without the user's consent (issue 52, item 2: rows 2, 3, 6 and
row 19's "Open without running" on an Inductor folder). An Inductor debug folder or a
TORCH_TRACE log holds Inductor's output module, Python that kx compiles by running it under
its capture: `kx open` runs it only with `--trust` (without it, the module's kernels are
listed from its text and kx says it did not run it), and the app only where the user
trusts the record's folder, `kx gui LOG` included. A file shown without running stays
unrun when it changes on disk, and an autosave of an untrusted file whose file is gone
asks before anything runs."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
from records_open.records_testing import INDUCTOR_DEBUG, TORCH_TRACE_LOG

from kx_core import cli
from kx_testing import KERNELS

GRAPH = next(INDUCTOR_DEBUG.glob("torch_compile_debug/run_*/torchinductor/*/output_code.py")).parent
# the module's one kernel, as its text names it
KERNEL_NAME = "triton_per_fused__softmax_add_exp_mul_prepare_softmax_online_sub_sum_0"


def kx(*argv: str) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _planted(text: str, marker: Path) -> str:
    """An output module that, when run, writes `marker` (the os.system a sender plants)."""
    line = f"import os; os.system('touch {marker}')\n"
    first = text.index("\n") + 1  # after '# AOT ID: ...'
    return text[:first] + line + text[first:]


def hostile_debug_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the H200's Inductor debug graph folder whose module plants a command."""
    graph = tmp_path / "record" / GRAPH.name
    shutil.copytree(GRAPH, graph)
    marker = tmp_path / "ran-the-record"
    module = graph / "output_code.py"
    module.write_text(_planted(module.read_text(), marker))
    return graph, marker


def hostile_log(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the H200's TORCH_TRACE log whose output module plants a command (its
    has_payload digest made again, so that the log reads as whole)."""
    marker = tmp_path / "ran-the-log"
    lines = TORCH_TRACE_LOG.read_text().split("\n")
    i = next(n for n, line in enumerate(lines) if '{"inductor_output_code"' in line)
    end = next(n for n in range(i + 1, len(lines)) if not lines[n].startswith("\t"))
    payload = _planted("\n".join(x[1:] for x in lines[i + 1 : end]), marker)
    prefix, doc = lines[i].split("] ", 1)
    header = json.loads(doc) | {"has_payload": hashlib.md5(payload.encode()).hexdigest()}
    body = [f"{prefix}] {json.dumps(header)}", *("\t" + x for x in payload.split("\n"))]
    log = tmp_path / "logs" / TORCH_TRACE_LOG.name
    log.parent.mkdir()
    log.write_text("\n".join([*lines[:i], *body, *lines[end:]]))
    return log, marker


RECORDS = {"inductor-debug": hostile_debug_folder, "torch-trace": hostile_log}


# ------------------------------------------------------------------ row 6: kx open


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_kx_open_runs_no_record_code_without_trust(tmp_path, kind):
    record, marker = RECORDS[kind](tmp_path)
    code, out, err = kx("open", str(record))
    assert not marker.exists()  # before: the module ran (os.system), exit 0
    assert code == 4, (out, err)  # what it shows is not all the record holds
    assert KERNEL_NAME in out  # listed from the module's text
    assert "not run" in err and "--trust" in err  # said, with the way to run it
    # --json says the same, and no kernel has stages kx would have had to run for
    code, out, err = kx("open", str(record), "--json")
    doc = json.loads(out)
    assert not marker.exists() and code == 4
    assert [k["name"] for k in doc["kernels"]] == [KERNEL_NAME]
    assert not doc["kernels"][0]["stages"] and doc["kernels"][0]["status"] == "not-launched"
    assert any(d["kind"] == "not-captured" and "not run" in d["message"] for d in doc["diagnostics"])


def test_kx_open_trust_runs_the_module(tmp_path):
    record, marker = hostile_debug_folder(tmp_path)
    code, out, err = kx("open", str(record), "--trust")
    assert marker.exists()  # the user said so
    assert code == 0, (out, err) and "kx's compile of it" in out


def test_a_profile_beside_an_untrusted_record_runs_nothing(tmp_path):
    from records_open.records_testing import PROTON_TIMES

    record, marker = hostile_debug_folder(tmp_path)
    kx("open", str(PROTON_TIMES), "--beside", str(record))
    assert not marker.exists()


# ------------------------------------------------------------------ the app


@pytest.fixture
def make_window(make_window):
    """A headless window (tests/conftest.py's) that asks the trust question (ask_trust,
    replaced by each test)."""

    def make():
        w = make_window(timeout_s=120.0)
        w.ask_in_headless = True
        w.asked = []
        w.ask_trust = lambda folder: w.asked.append(folder) or "source"  # "Open without running"
        return w

    return make


def planted_kernel(folder: Path, marker: Path) -> Path:
    """A kernel file that writes `marker` when it runs (as a capture runs it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vector_add.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\n" + (KERNELS / "vector_add.py").read_text())
    return path


def _ran(qtbot, w, marker: Path) -> bool:
    """Whether anything ran: a compile started, or the file's code did (given a moment)."""
    qtbot.wait(300)
    return w.session.compiling or marker.exists()


def test_a_file_shown_without_running_stays_unrun_when_it_changes_on_disk(qtbot, make_window, tmp_path):
    """Row 2: the file watcher reloaded it with run=True (a pull, a sync ran it)."""
    marker = tmp_path / "ran"
    path = planted_kernel(tmp_path / "untrusted", marker)
    w = make_window()
    assert w.features.trust.open_without_running(str(path))
    assert not w.session.running and not _ran(qtbot, w, marker)
    changed = path.read_text() + "\n# pulled\n"
    with qtbot.waitSignal(w.session.document_opened, timeout=10_000):
        path.write_text(changed)
    assert w.source_pane.text() == changed  # shown again, as it is now
    assert not w.session.running and not _ran(qtbot, w, marker)  # before: compiling, the marker written
    # "take theirs" over unsaved edits keeps the decision too
    w.source_pane.ask_outside_change = lambda p, theirs: "theirs"
    w.source_pane.view.appendPlainText("# mine")
    theirs = changed + "# theirs\n"
    with qtbot.waitSignal(w.session.document_opened, timeout=10_000):
        path.write_text(theirs)
    assert w.source_pane.text() == theirs
    assert not w.session.running and not _ran(qtbot, w, marker)


@pytest.mark.parametrize("gone", ["deleted", "moved"])
def test_restoring_an_autosave_of_a_gone_untrusted_file_asks_first(qtbot, make_window, tmp_path, gone):
    """Row 3: the recovered text of a file no longer on disk came back with running on,
    and its live compile ran it, no question asked."""
    marker = tmp_path / "ran"
    path = planted_kernel(tmp_path / "untrusted", marker)
    w = make_window()
    text = path.read_text() + "# typed before the crash\n"
    w.recovery.save(str(path), text)
    if gone == "deleted":
        path.unlink()
    else:
        path.rename(tmp_path / "elsewhere.py")
    assert w.offer_recovery(ask=lambda e: True)
    assert w.asked == [str(path.parent)]  # before: [] (no question)
    assert w.source_pane.text() == text and w.source_pane.dirty  # nothing lost
    assert not w.session.running and not _ran(qtbot, w, marker)
    # cancelled: nothing restored, the autosave kept for a later answer
    other = make_window()
    other.ask_trust = lambda folder: "cancel"
    assert not other.offer_recovery(ask=lambda e: True) and other.recovery.pending()


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_the_app_runs_no_record_code_unless_its_folder_is_trusted(qtbot, make_window, tmp_path, kind):
    """Row 6 in the app, and row 19: `kx gui RECORD` opened it trusted (the command line's
    word for a file), and "Open without running" on it opened nothing, silently."""
    record, marker = RECORDS[kind](tmp_path)
    w = make_window()
    with qtbot.waitSignal(w.result_shown, timeout=120_000) as shown:
        assert w.open_file(str(record), trusted=True)  # as `kx gui RECORD` opens it
    assert w.asked  # before: no question (trusted=True), the module ran
    result = shown.args[0]
    assert [k.name for k in result.kernels] == [KERNEL_NAME] and not result.kernels[0].stages
    assert not marker.exists() and not w.session.compiling
    assert "was not run" in w.stage_pane.badge.text()
    assert "async_compile.triton(" in w.source_pane.text()  # the module is shown


def test_open_without_running_opens_a_record(qtbot, make_window, tmp_path):
    record, marker = hostile_debug_folder(tmp_path)
    w = make_window()
    with qtbot.waitSignal(w.result_shown, timeout=120_000):
        assert w.features.trust.open_without_running(str(record))  # before: read as a kernel file, refused
    assert [k.name for k in w.session.result.kernels] == [KERNEL_NAME] and not marker.exists()
    assert not w.asked  # nothing to ask: nothing runs


def test_f5_on_a_record_shown_without_running_asks_then_runs_it(qtbot, make_window, tmp_path):
    record, marker = hostile_debug_folder(tmp_path)
    w = make_window()
    with qtbot.waitSignal(w.result_shown, timeout=120_000):
        assert w.open_file(str(record))
    w.ask_trust = lambda folder: w.asked.append(folder) or "trust"
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as shown:
        w.recompile()
    assert w.asked[-1] == str(record)  # the record's own folder, asked about
    assert marker.exists()  # the user trusted it: its module ran under kx's capture
    assert shown.args[0].kernels[0].stages and "kx's compile of it" in w.stage_pane.badge.text()


def test_kx_gui_screenshot_of_a_record_runs_nothing(tmp_path):
    """`kx gui LOG --screenshot`: no one to ask, and the command line's naming of a record
    is no trust in its code; --trust is."""
    import os
    import subprocess
    import sys

    from kx_testing import ROOT

    log, marker = hostile_log(tmp_path)
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(ROOT),
        KX_SETTINGS_DIR=str(tmp_path / "settings"),
        KX_STATE_DIR=str(tmp_path / "state"),
    )
    shot = tmp_path / "log.png"
    p = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), str(log), "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0 and shot.exists(), p.stderr
    assert not marker.exists()  # before: the module ran


def test_jobs_that_import_the_file_run_nothing_for_a_bundle(qtbot, make_window, tmp_path, capture):
    """Capturing passes and the Arguments form's compile import the open file: for a
    bundle (sent beside a .py of the same name, as an unpacked archive would be) that
    imported the .py on disk, trusted by no one."""
    from kx_core.records.bundle import write_bundle

    result = capture("vector_add.py")
    marker = tmp_path / "ran"
    sent = tmp_path / "sent"
    planted_kernel(sent, marker)  # sent/vector_add.py, the name the bundle gives its source
    bundle = sent / "shared.kxb"
    write_bundle(str(bundle), (KERNELS / "vector_add.py").read_text(), result)
    w = make_window()
    with qtbot.waitSignal(w.result_shown, timeout=60_000):
        assert w.open_file(str(bundle))
    kernel = w.session.result.kernels[0]
    assert kernel.specialization is not None
    assert not w.session.capture_passes(kernel)  # before: started, importing sent/vector_add.py
    generation = w.session.generation
    assert w.session.compile_with_args(kernel.name, {"n": "1024"}) == generation
    assert not _ran(qtbot, w, marker) and not w.session.pass_captures.jobs
    assert "Ctrl+S asks where" in w.last_error
