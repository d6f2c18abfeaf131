"""Output pane (issue 31): what the file printed in each run, latest first; a run's
output never stands in the status line."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_testing import KERNELS


def _printing_copy(tmp_path, name: str, words: str):
    path = tmp_path / name
    text = (KERNELS / name).read_text()
    path.write_text(f"print({words!r})\nimport sys\nprint('to stderr', file=sys.stderr)\n" + text)
    return path


def test_a_capture_shows_what_the_file_printed(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, _printing_copy(tmp_path, "vector_add.py", "hello from the file"))
    assert w.show_pane("output")
    pane = w.output_pane
    (run,) = w.session.outputs.runs
    assert run.finished and "capture of vector_add.py for cuda:90" in run.title
    text = pane.view.toPlainText()
    assert "hello from the file" in text and "to stderr" in text
    assert "capture of vector_add.py" in pane.runs.currentText()


def test_a_check_run_prints_to_the_output_pane_not_the_status_line(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, _printing_copy(tmp_path, "checked_softmax.py", "checking now"))
    bench = w.bench_pane
    assert bench.run_check()
    qtbot.waitUntil(lambda: len(w.session.outputs.runs) == 2, timeout=60_000)
    bench.wait()
    latest = w.session.outputs.runs[0]
    assert latest.title.startswith("check") and latest.finished and "checking now" in latest.text
    assert "checking now" not in bench.status.text()
    assert w.show_pane("output")
    assert "checking now" in w.output_pane.view.toPlainText()
    w.output_pane.runs.setCurrentIndex(1)  # the capture before it
    assert "capture" in w.output_pane.runs.currentText()
    # the capture ran on tensors without data: what it printed about values is marked
    assert "not a real run" in w.output_pane.runs.currentText()
    assert w.output_pane.note.text().startswith("⚠ a capture run")
    w.output_pane.runs.setCurrentIndex(0)  # the check ran the file for real
    assert "not a real run" not in w.output_pane.runs.currentText()
    assert w.output_pane.note.text() == "stdout + stderr"


def test_a_newer_run_replaces_the_one_shown(qtbot, make_window, tmp_path):
    """Another file's capture came finished at once and the pane stayed on the last
    file's output (first-user run)."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, _printing_copy(tmp_path, "vector_add.py", "first file"))
    assert w.show_pane("output")
    assert "first file" in w.output_pane.view.toPlainText()
    w.output_pane.runs.setCurrentIndex(0)  # the user looked at it
    other = tmp_path / "other"
    other.mkdir()
    open_and_wait(qtbot, w, _printing_copy(other, "vector_add.py", "second file"))
    qtbot.waitUntil(lambda: "second file" in w.output_pane.view.toPlainText(), timeout=10_000)
    assert w.output_pane.runs.currentIndex() == 0


def test_another_files_run_is_said_to_be_another_files(qtbot, make_window, tmp_path):
    """After Open Without Running, the Output pane still lists the last file's run, as
    history: it says whose run it is rather than standing as the open file's (a
    first-user run: only its heading named the other file)."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, _printing_copy(tmp_path, "vector_add.py", "first file"))
    assert w.show_pane("output")
    assert "not of" not in w.output_pane.note.text()
    other = tmp_path / "other.py"
    other.write_text((KERNELS / "vector_add.py").read_text())
    assert w.features.trust.open_without_running(str(other))
    qtbot.waitUntil(lambda: "not of other.py" in w.output_pane.note.text(), timeout=10_000)
    assert "a run of vector_add.py" in w.output_pane.note.text()


def test_a_bundles_output_says_where_it_was_printed(qtbot, make_window, tmp_path):
    """After File ▸ Open Bundle the pane said "a run of vector_add.py, not of
    vector_add.py" (issue 54): the bundle's output is what its file printed where the
    bundle was made (nothing ran here), and another file of the same name is told apart
    by its folder."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, _printing_copy(tmp_path, "vector_add.py", "printed when captured"))
    bundle = tmp_path / "shared" / "va.kxb"
    bundle.parent.mkdir()
    assert w.features.bundles.export_bundle(str(bundle))
    with qtbot.waitSignal(w.result_shown, timeout=60_000):
        assert w.open_file(str(bundle))
    assert w.show_pane("output")
    pane = w.output_pane
    qtbot.waitUntil(lambda: "va.kxb" in pane.runs.currentText(), timeout=10_000)
    assert "printed when captured" in pane.view.toPlainText()
    assert "nothing ran here" in pane.runs.currentText()
    assert "not of" not in pane.note.text()  # the open document's own output, as recorded
    pane.runs.setCurrentIndex(1)  # the first file's capture: the same name, another folder
    note = pane.note.text()
    assert "not of vector_add.py" not in note, note
    assert str(tmp_path) in note and str(bundle.parent) in note, note
