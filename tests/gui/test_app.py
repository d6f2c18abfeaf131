"""The app starts on a fixture kernel, compiles it, shows its stages and quits."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from conftest import KERNELS, ROOT


def test_main_py_screenshot_of_a_compiled_file(tmp_path):
    shot = tmp_path / "kx.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            str(KERNELS / "vector_add.py"),
            "--target",
            "cuda:90",
            "--stage",
            "ptx",
            "--screenshot",
            str(shot),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    image = QImage(str(shot))
    assert image.width() >= 800 and image.height() >= 500


def test_window_lists_kernels_and_builds_stage_tabs(qtbot):
    from kx_gui.main_window import MainWindow

    window = MainWindow(target="cuda:80")
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.result_ready, timeout=300_000) as blocker:
        window.open_file(str(KERNELS / "two_kernels.py"))
    result = blocker.args[0]
    assert window.kernel_list.count() == len(result.kernels) == 3
    tabs = [window.stage_tabs.tabText(i) for i in range(window.stage_tabs.count())]
    assert tabs == ["Source", "TTIR", "TTGIR", "LLVM IR", "PTX", "SASS"]
    assert window.select_stage("ptx") and window.stage_tabs.currentWidget().toPlainText().startswith("//")
    assert "cuda:80" in window.status.text()
