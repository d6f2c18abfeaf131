"""File ▸ Export Repro Script… (issue 54): the script of the kernel selected in the Kernels
pane, written from the text that was compiled (the editor's unsaved text in a live
compile), compiles the kernel on screen: kx's capture of the script gives its hash."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_core.compile import CompileRequest, compile_file
from kx_testing import KERNELS


def test_the_selected_kernels_script_compiles_the_kernel_on_screen(qtbot, make_window, tmp_path):
    path = tmp_path / "vector_add.py"
    original = (KERNELS / "vector_add.py").read_text()
    path.write_text(original)
    w = make_window("cuda:90")
    action = w.features.repro.action
    assert action.text() == "Export &Repro Script…" and not action.isEnabled()
    assert action in w.menus.menu("file").actions()
    open_and_wait(qtbot, w, path)
    assert action.isEnabled()
    # an unsaved edit moves the kernel two lines down: its hash is the edit's, not the file's
    edited = original.replace("@triton.jit\n", "# two lines\n# more\n@triton.jit\n", 1)
    with qtbot.waitSignal(w.result_shown, timeout=300_000):
        w.source_pane.replace_text(edited)
    kernel = w.session.kernel
    assert kernel.name == "add_kernel" and kernel.status == "compiled"
    assert w.features.repro.script_proposal() == str(tmp_path / "vector_add_add_kernel_repro.py")
    script = tmp_path / "repro.py"
    assert w.features.repro.export_script(str(script))
    assert "repro script written" in w.status_label.text()
    text = script.read_text()
    assert f'"expected_hash": "{kernel.metadata.hash}"' in text
    run = compile_file(CompileRequest(str(script), target="cuda:90"), use_cache=False)
    assert [k.metadata.hash for k in run.kernels if k.status == "compiled"] == [kernel.metadata.hash]
    assert path.read_text() == original  # the file was not saved


def test_no_kernel_no_script(qtbot, make_window, tmp_path):
    w = make_window("cuda:90")
    assert not w.features.repro.export_script(str(tmp_path / "repro.py"))
    assert "no kernel selected" in w.last_error and not (tmp_path / "repro.py").exists()
