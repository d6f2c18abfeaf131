"""Live recompile (issue 31): the edited text compiles as you type, unsaved, as the file;
the file on disk is untouched until Ctrl+S."""

from __future__ import annotations

from gui_helpers import open_and_wait, wait_derived
from kx_testing import KERNELS


def test_typing_recompiles_the_edited_text_not_the_file(qtbot, make_window, tmp_path):
    path = tmp_path / "two_kernels.py"
    original = (KERNELS / "two_kernels.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    first = open_and_wait(qtbot, w, path)
    assert w.features.files.live_action.isChecked() and w.editor.live
    edited = original.replace("x * alpha", "x * alpha + 1.0")
    assert edited != original
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.source_pane.replace_text(edited)
    live = blocker.args[0]
    assert path.read_text() == original and w.editor.dirty  # nothing written
    scale = next(k for k in live.kernels if k.name == "scale_kernel")
    assert "1.000000e+00" in scale.stages["ttir"]
    assert live.build.content != first.build.content  # the text's build, not the file's
    assert w.session.build_on_disk().content == first.build.content
    # the results name the text's lines: a new line above shifts the kernel's lines down
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.source_pane.replace_text("# a new first line\n" + edited)
    moved = next(k for k in blocker.args[0].kernels if k.name == "scale_kernel")
    assert f'two_kernels.py":{_def_line(original) + 1}' in moved.stages["ttir"]


def test_live_recompile_can_be_switched_off(qtbot, make_window, tmp_path):
    path = tmp_path / "two_kernels.py"
    path.write_text((KERNELS / "two_kernels.py").read_text())
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    w.features.files.live_action.setChecked(False)
    generation = w.session.generation
    w.source_pane.replace_text(path.read_text() + "\n# an edit\n")
    qtbot.wait(800)  # more than the pause after which a live compile starts
    assert w.session.generation == generation and not w.session.compiling


def _def_line(text: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("def scale_kernel"))


def test_the_config_looked_at_shows_before_the_other_configs_compile(qtbot, make_window, tmp_path):
    """Issue 51: an edit in a 4-config autotuned kernel shows the selected config's new
    TTIR while Triton makes its later stages, then its stages as soon as it is compiled,
    while the others still compile, marked so; the finished result keeps the same config
    selected."""
    path = tmp_path / "matmul_autotune.py"
    original = (KERNELS / "matmul_autotune.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    label = w.session.kernel.config.label
    seen = []  # (kernels on screen, compiling, the build note, the TTIR shown) at each change
    w.session.kernel_changed.connect(
        lambda k, _m: seen.append(
            (
                len(w.session.result.kernels),
                w.session.compiling,
                w.session.build_note,
                k.stages.get("ttir", "") if k else "",
                k.status if k else "",
            )
        )
    )
    edited = original.replace("tl.store(c_ptrs, c, mask=c_mask)", "tl.store(c_ptrs, c * 3.0, mask=c_mask)")
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.source_pane.replace_text(edited)
    final = blocker.args[0]
    early = [s for s in seen if s[1]]
    assert early, "nothing was shown before the compile ended"
    kernels, _, note, ttir, status = early[0]
    assert kernels < len(final.kernels) == 4
    assert "3.000000e+00" in ttir  # the edit, in the stage on screen
    # first the config's TTIR while Triton makes its later stages, then compiled configs
    assert status == "compiling" and "first stage" in note and "previous build" not in note
    assert any(s[4] == "compiled" and "so far" in s[2] for s in early[1:])
    assert w.session.kernel.config.label == label and not w.session.compiling
    assert "3.000000e+00" in w.session.kernel.stages["ttir"]


def test_a_new_compile_stops_the_shown_builds_disassembly(qtbot, make_window, tmp_path):
    """Issue 51: SASS is made after a build's text stages are on screen; an edit made then
    compiles on cores that disassembly no longer takes: the delivered build's job is told
    to stop, and its derived stages never reach the screen of the new build."""
    path = tmp_path / "matmul_autotune.py"
    original = (KERNELS / "matmul_autotune.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    jobs = []
    w.session.compile_started.connect(lambda generation: jobs.append(w.session.job))
    derived = []
    w.session.stages_derived.connect(derived.append)
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        assert w.open_file(str(path))
    first = jobs[0]
    assert w.session.awaiting_derived and not first.isFinished()  # four kernels to disassemble
    with qtbot.waitSignal(w.result_shown, timeout=300_000) as blocker:
        w.source_pane.replace_text(original.replace("c, mask=c_mask", "c * 2.0, mask=c_mask"))
    assert first.cancelled.is_set()
    qtbot.waitUntil(first.isFinished, timeout=60_000)
    assert all(r.build == blocker.args[0].build for r in derived)  # no SASS of the first build shown
    wait_derived(qtbot, w)
    assert all(k.stages.get("sass", "").strip() for k in w.session.result.kernels)
