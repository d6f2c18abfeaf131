"""Pipeline, Concepts and Diff panes on real compiles."""

from __future__ import annotations

from gui_helpers import open_and_wait, wait_derived
from kx_core.ir.display_filters import filter_stage
from kx_core.records.backends import ALL_STAGES
from kx_testing import KERNELS


def test_pipeline_pane_captures_and_diffs_passes(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    assert w.show_pane("pipeline")
    pane = w.pipeline_pane
    assert pane.table.rowCount() == 0 and pane.capture_button.isEnabled()
    before = w.session.result
    with qtbot.waitSignal(w.session.pass_captures.captured, timeout=300_000) as got:
        qtbot.mouseClick(pane.capture_button, qtbot_button())
    assert got.args[1] == ""  # no error
    passes = w.session.kernel.passes
    # only the passes joined: the kernel's stages and the rest of the result are as they were
    assert w.session.result.kernels[0].stages == before.kernels[0].stages
    assert w.session.result.diagnostics == before.diagnostics
    assert pane.table.rowCount() == len(passes) > 50
    # the diff shows the first pass that changed the IR, not "no passes captured"
    first = next(j for j, p in enumerate(passes) if p.changed)
    assert pane.selected_index() == first
    assert pane.diff.left_title.text().startswith(f"before {passes[first].name} ")
    assert "no passes captured" not in pane.diff.summary.text()
    i = next(i for i, p in enumerate(passes) if p.argument == "tritongpu-accelerate-matmul")
    assert pane.select_pass(i)
    right = pane.diff.right.text().splitlines()
    assert any("#ttg.nvidia_mma" in right[n - 1] for n in pane.diff.diff.changed_right)
    pane.changed_only.setChecked(True)
    assert pane.table.rowCount() == sum(p.changed for p in passes)
    names = {pane.table.item(r, 2).text() for r in range(pane.table.rowCount())}
    assert "TritonGPUAccelerateMatmul" in names
    # issue 18, defect 10: the highlighted row and the diff name the same pass after the
    # filter changes, from an unchanged pass (filtered out) too
    pane.changed_only.setChecked(False)
    unchanged = next(j for j, p in enumerate(passes) if not p.changed and j > 5)
    assert pane.select_pass(unchanged)
    for only in (True, False):
        pane.changed_only.setChecked(only)
        shown = pane.selected_index()
        assert shown is not None and shown >= unchanged or not only
        assert pane.table.item(pane.table.currentRow(), 0).text() == str(shown)
        assert pane.diff.left_title.text().startswith(f"before {passes[shown].name} ")
    # a rebuild of the same build (a save that changed nothing): the passes stay
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.session.compile()
    assert w.session.kernel.passes == passes and pane.table.rowCount() > 0
    # another file: no pass, and no title of the last one's before/after
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    assert pane.table.rowCount() == 0
    assert pane.diff.left_title.text() == pane.diff.right_title.text() == ""
    assert "no passes captured" in pane.diff.summary.text()


def test_passes_of_every_config_side_by_side(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    configs = [k for k in result.kernels if k.status == "compiled"]
    w.show_pane("pipeline")
    pane = w.pipeline_pane
    done = []
    w.session.pass_captures.captured.connect(lambda name, error: done.append((name, error)))
    assert pane.capture_all_configs() == len(configs)
    qtbot.waitUntil(lambda: len(done) == len(configs), timeout=600_000)
    assert all(error == "" for _, error in done)
    assert all(k.passes for k in w.session.result.kernels if k.status == "compiled")


def qtbot_button():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_concepts_pane_tells_the_story(qtbot, make_window):
    w = make_window("cuda:80")
    open_and_wait(qtbot, w, KERNELS / "matmul.py")
    assert w.show_pane("concepts")
    pane = w.concepts_pane
    qtbot.waitUntil(lambda: bool(pane.steps), timeout=5000)  # a raised pane renders on the next turn
    steps = {f"{a}→{b}": (app, gone) for a, b, app, gone in pane.steps}
    assert "async_copy" in steps["ttir→ttgir"][0] and "mma_instruction" in steps["ttgir→llir"][0]
    assert pane.table.rowCount() == 4  # ttir, ttgir, llir, ptx, sass: four steps
    assert pane.histograms["ttgir"]["ttg"] > 0 and "ttg" not in pane.histograms["ttir"]


def test_diff_pane_compares_configs(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    pane = w.diff_pane
    pane.compare(0, "ttgir", 3, "ttgir")
    # as the stage views show them: the display filters apply (locations hidden by default)
    from kx_core.ir.display_filters import filter_stage

    shown = [
        filter_stage(result.kernels[i].stages["ttgir"], "mlir", w.session.display_filters).text
        for i in (0, 3)
    ]
    assert [pane.diff.left.text(), pane.diff.right.text()] == shown
    assert "#loc" not in shown[0] and "#loc" in result.kernels[0].stages["ttgir"]
    changed = [pane.diff.right.text().splitlines()[n - 1] for n in pane.diff.diff.changed_right]
    assert any("64" in line for line in changed)  # BLOCK_M 128 vs 64 shows in the types
    pane.compare(1, "ttgir", 1, "ttgir")
    assert pane.diff.diff.identical and pane.diff.summary.text() == "identical"


def test_summary_pane_has_a_column_per_config(qtbot, make_window):
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    assert w.show_pane("summary")
    table = w.summary_pane.table
    assert table.columnCount() == len(result.kernels) == 4
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    regs = labels.index("registers")
    assert [table.item(regs, c).text() for c in range(4)] == [
        str(k.metadata.registers) for k in result.kernels
    ]
    shapes = table.item(labels.index("MMA shapes"), 0).text()
    assert shapes.startswith("m64n") and "k16" in shapes


def test_diff_pane_compares_targets(qtbot, make_window):
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    pane = w.diff_pane
    with qtbot.waitSignal(pane.other_compiled, timeout=300_000) as blocker:
        pane.compare_target("cuda:80")
    assert blocker.args[0].target.spec == "cuda:80"
    pane.compare(0, "ptx", 0, "ptx")
    left, right = pane.diff.left.text(), pane.diff.right.text()
    assert ".target sm_90a" in left and ".target sm_80" in right
    changed = [right.splitlines()[n - 1] for n in pane.diff.diff.changed_right]
    assert any(".target sm_80" in line for line in changed)


def test_another_target_is_compared_stage_for_stage(qtbot, make_window):
    """Issue 54: with "B · compiled for cuda:80" the left side's TTIR was diffed against
    the other target's TTGIR (the right picker kept this compile's default). Two builds
    are compared stage for stage, whichever side's stage is picked."""
    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    pane = w.diff_pane
    pane.compare(0, "ttir", 0, "ttgir")  # within this compile: what its TTIR became in TTGIR
    with qtbot.waitSignal(pane.other_compiled, timeout=300_000) as blocker:
        pane.compare_target("cuda:80")
    other = blocker.args[0]
    filters = w.session.display_filters

    def shown(kernel, stage):
        return filter_stage(kernel.stages[stage], ALL_STAGES[stage].syntax, filters).text

    for box, stage in ((None, None), (pane.left_stage, "ptx"), (pane.right_stage, "ttgir")):
        if box is not None:
            box.setCurrentText(stage)
        stage = pane.left_stage.currentText()
        assert pane.right_stage.currentText() == stage
        assert pane.diff.left.text() == shown(result.kernels[0], stage)
        assert pane.diff.right.text() == shown(other.kernels[0], stage)
        assert (
            f"· {stage} ·" in pane.diff.left_title.text() and f"· {stage} ·" in pane.diff.right_title.text()
        )
    assert pane.left_label.text() == "A · this compile" and pane.right_label.text() == "B · compiled for"
    # B's SASS comes after its text stages: the page counts it then (it said 56 -> 0)
    qtbot.waitUntil(lambda: "sass" in pane.other_result.kernels[0].stages, timeout=120_000)
    qtbot.waitUntil(lambda: pane.comparison is not None and pane._sides[1] is pane.other_result.kernels[0])
    sass = {d.name: d for d in pane.comparison.instructions}["SASS instructions"]
    assert sass.a and sass.b
    assert "other build" in pane.capture_note.text()  # not "the previous compile's"


def test_the_compare_page_explains_two_configs(qtbot, make_window):
    """The Diff pane's compare page (issue 32): two configs of the autotuned matmul, each
    delta equal to the records' own figures (ptxas's, through the cubin), then the first
    divergent pass once both sides' passes are captured."""
    from gui_helpers import finished
    from kx_core.compare.pipelines import first_divergence

    w = make_window("cuda:90")
    result = open_and_wait(qtbot, w, KERNELS / "matmul_autotune.py")
    assert w.show_pane("diff")
    pane = w.diff_pane
    pane.compare(0, "ttgir", 3, "ttgir")
    qtbot.waitUntil(lambda: pane.comparison is not None, timeout=30_000)
    a, b = result.kernels[0], result.kernels[3]
    figures = {
        pane.figures.item(r, 0).text(): (pane.figures.item(r, 1).text(), pane.figures.item(r, 2).text())
        for r in range(pane.figures.rowCount())
    }
    assert figures["registers"] == (str(a.metadata.registers), str(b.metadata.registers))
    assert figures["spills"] == (str(a.metadata.spills), str(b.metadata.spills))
    assert a.short_name in pane.explain.text() and b.short_name in pane.explain.text()
    assert "asked differently" in pane.explain.text()  # the configs' block sizes
    assert not pane.pass_button.isEnabled() and pane.capture_button.isEnabled()
    captured = []
    w.session.pass_captures.captured.connect(lambda name, error: captured.append((name, error)))
    assert pane.capture_both() == 2
    qtbot.waitUntil(lambda: len(captured) == 2, timeout=600_000)
    assert all(error == "" for _, error in captured)
    qtbot.waitUntil(lambda: pane.pass_button.isEnabled(), timeout=30_000)
    fresh = w.session.result.kernels
    truth = first_divergence(fresh[0].passes, fresh[3].passes)
    assert pane.comparison.divergence == truth and truth is not None
    assert pane.show_divergence()
    assert pane.diff.left.text() == truth.after_a and pane.diff.right.text() == truth.after_b
    assert finished(qtbot, pane.jobs.submit("noop", lambda: None, lambda _v: True))


def test_the_compare_page_keeps_its_sides_and_ctrl_d_takes_the_selected_config(qtbot, make_window, tmp_path):
    path = tmp_path / "matmul_autotune.py"
    text = (KERNELS / "matmul_autotune.py").read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, path)
    pane = w.diff_pane
    pane.compare(0, "ttgir", 0, "ttgir")  # one record on both sides: nothing to explain
    qtbot.waitUntil(lambda: "on both sides" in pane.explain.text(), timeout=30_000)
    assert "every stage" not in pane.explain.text()
    pane.compare(1, "ptx", 3, "ptx")
    w.session.select_kernel(2)
    path.write_text(text + "\n")
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.recompile()  # a rebuild of the same file
    assert (pane.left_kernel.currentIndex(), pane.right_kernel.currentIndex()) == (1, 3)
    assert pane.left_stage.currentText() == pane.right_stage.currentText() == "ptx"
    w.pane_action("diff", "compare_previous")  # Ctrl+D
    assert pane.left_kernel.currentIndex() == pane.right_kernel.currentIndex() == w.session.kernel_index == 2
    assert pane.diff.left_title.text().startswith("A · previous compile")


def test_ctrl_d_after_editing_a_config_compares_that_config_previous_on_the_left(
    qtbot, make_window, tmp_path
):
    """A first user's run: config 4's num_stages=2 -> 3, saved, Ctrl+D. The selection fell
    back to the first config, both sides were that config ("no resource or instruction
    count differs"), the left picker drove the right text, and A was the right's kernel."""
    path = tmp_path / "matmul_autotune.py"
    text = (KERNELS / "matmul_autotune.py").read_text()
    path.write_text(text)
    w = make_window("cuda:90")
    before = open_and_wait(qtbot, w, path)
    pane = w.diff_pane
    assert w.show_pane("diff")
    # Ctrl+D with no earlier compile says so, and compares nothing
    w.pane_action("diff", "compare_previous")
    assert "No earlier compile" in pane.explain.text() and "on both sides" not in pane.explain.text()
    assert pane.comparison is None and not pane.capture_button.isEnabled()
    assert pane.capture_button.toolTip() and pane.capture_note.text()
    w.session.select_kernel(3)
    edited = "num_warps=4, num_stages=2)"
    assert text.count(edited) == 1
    w.source_pane.replace_text(text.replace(edited, "num_warps=4, num_stages=3)"))
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        assert w.save()
    wait_derived(qtbot, w)  # SASS comes from the same job just after the text stages
    after = w.session.result
    old, new = before.kernels[3], after.kernels[3]
    assert old.short_name.endswith("s2]") and new.short_name.endswith("s3]")
    assert w.session.kernel_index == 3  # the edited config stays selected, relabelled
    w.session.select_kernel(0)  # even with an unchanged config selected: the edited one
    w.pane_action("diff", "compare_previous")  # Ctrl+D
    assert (pane.left_kernel.currentIndex(), pane.right_kernel.currentIndex()) == (3, 3)
    assert pane.left_kernel.currentText() == old.short_name
    assert pane.right_kernel.currentText() == new.short_name
    # A = left = the previous compile, B = right = this compile, in the texts and the page
    stage = pane.left_stage.currentText()
    assert stage == pane.right_stage.currentText()
    shown = [
        filter_stage(k.stages[stage], ALL_STAGES[stage].syntax, w.session.display_filters).text
        for k in (old, new)
    ]
    assert [pane.diff.left.text(), pane.diff.right.text()] == shown
    assert pane.diff.left_title.text().startswith("A · previous compile")
    assert pane.diff.right_title.text().startswith("B · this compile")
    qtbot.waitUntil(lambda: pane.comparison is not None, timeout=30_000)
    assert (pane.comparison.kernel_a, pane.comparison.kernel_b) == (old.display_name, new.display_name)
    explained = pane.explain.text()
    assert explained.startswith(f"A (previous compile) {old.short_name} → B (this compile) {new.short_name}")
    assert "no resource or instruction count differs" not in explained
    # the previous compile cannot be recaptured: the button says so
    assert not pane.capture_button.isEnabled()
    assert "previous compile" in pane.capture_button.toolTip()
    assert pane.capture_note.text() == pane.capture_button.toolTip()


def test_capture_passes_is_off_where_nothing_compiled(qtbot, make_window):
    """Issue 54, Low: 'Capture passes' was enabled with nothing compiled (a library file
    whose kernels nothing launched): it is on only for a compiled kernel, and the pane
    says why otherwise."""
    w = make_window("cuda:90")
    open_and_wait(qtbot, w, KERNELS / "no_launch.py")
    assert w.show_pane("pipeline")
    pane = w.pipeline_pane
    assert w.session.kernel is not None and w.session.kernel.status == "not-launched"
    assert not pane.capture_button.isEnabled() and not pane.capture_all.isEnabled()
    assert "not-launched" in pane.diff.summary.text()
    open_and_wait(qtbot, w, KERNELS / "vector_add.py")
    assert pane.capture_button.isEnabled() and pane.capture_all.isEnabled()
