"""Export and open a bundle (issue 31): another kx window opens it as it was, running
nothing; a bundle that is not one says why and loses nothing."""

from __future__ import annotations

import gzip
import json

import pytest

from gui_helpers import open_and_wait
from kx_core.records.bundle import BundleError, read_bundle, write_bundle
from kx_testing import KERNELS


def test_a_bundle_opens_as_it_was_in_another_window(qtbot, make_window, tmp_path):
    path = tmp_path / "two_kernels.py"
    path.write_text((KERNELS / "two_kernels.py").read_text())
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, path)
    bundle = tmp_path / "shared" / "two.kxb"
    bundle.parent.mkdir()
    assert w.features.bundles.export_bundle(str(bundle))
    other = make_window("hip:gfx942")  # another window, another target: the bundle's shows
    generation = other.session.generation
    with qtbot.waitSignal(other.result_shown, timeout=60_000) as blocker:
        assert other.open_file(str(bundle))
    shown = blocker.args[0]
    assert shown.to_json() == result.to_json()  # the same result, every stage and figure
    assert other.session.generation == generation + 1 and not other.session.compiling  # nothing ran
    assert other.source_pane.text() == path.read_text()
    # shown under the file's name, with no file: Ctrl+S asks where (issue 52, item 3)
    assert other.session.path == str(bundle.parent / "two_kernels.py") and other.session.no_file
    assert other.stage_pane.views["ttir"].toPlainText() == w.stage_pane.views["ttir"].toPlainText()
    assert "from the bundle two.kxb" in other.stage_pane.badge.text()
    assert not other.session.running  # F5 runs nothing until the folder is trusted
    # links work on the bundle's source lines
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "tl.load" in t)
    assert other.session.select_source_line(line)


def test_a_live_compile_exports_the_text_it_compiled(qtbot, make_window, tmp_path):
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    edited = path.read_text().replace("output = x + y", "output = x * y")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(edited)
    assert w.features.bundles.export_bundle(str(tmp_path / "live.kxb"))
    assert read_bundle(str(tmp_path / "live.kxb")).source == edited


def test_what_is_not_a_bundle_says_why(qtbot, make_window, tmp_path):
    bad = tmp_path / "bad.kxb"
    bad.write_text("not gzip at all")
    with pytest.raises(BundleError, match="not a kx bundle"):
        read_bundle(str(bad))
    with gzip.open(bad, "wt") as f:
        json.dump({"format": "kx-bundle/99"}, f)
    with pytest.raises(BundleError, match="kx-bundle/99"):
        read_bundle(str(bad))
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    result = w.session.result
    good = tmp_path / "good.kxb"
    write_bundle(str(good), (KERNELS / "vector_add.py").read_text(), result)
    doc = json.loads(gzip.open(good, "rt").read())
    doc["source"] += "# edited\n"
    with gzip.open(good, "wt") as f:
        json.dump(doc, f)
    with pytest.raises(BundleError, match="digest"):
        read_bundle(str(good))
    assert not w.open_file(str(good))  # refused with the reason; the window keeps its file
    assert "digest" in w.last_error and w.session.result is result


def test_a_build_still_compiling_is_not_exported(qtbot, make_window, tmp_path):
    """The first kernel's TTIR shown while Triton makes the rest (status 'compiling'):
    a partial, not a build another kx should open as this one."""
    from dataclasses import replace

    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, path)
    w.session.result = replace(result, kernels=(replace(result.kernels[0], status="compiling"),))
    bundle = tmp_path / "partial.kxb"
    assert not w.features.bundles.export_bundle(str(bundle)) and not bundle.exists()
    w.session.result = result
    assert w.features.bundles.export_bundle(str(bundle)) and bundle.exists()


def test_export_proposes_a_bundle_beside_the_file(qtbot, make_window, tmp_path):
    """Issue 54, Low: it proposed `kernel.kxb` in the app's current folder (the checkout)."""
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    assert w.features.bundles.bundle_proposal() == str(tmp_path / "vector_add.kxb")
