"""The window process never imports torch or triton (issue 15): start-up stays a Qt
start-up, and Triton's C++ never runs where it could take the window down. Checked in a
fresh interpreter (this test process has imported both for other tests)."""

from __future__ import annotations

import os
import subprocess
import sys

from kx_testing import KERNELS, ROOT

PROBE = """
import sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from kx_gui.main_window import MainWindow
w = MainWindow(target="cuda:90", headless=True)
done = []
w.result_shown.connect(done.append)
w.open_file(sys.argv[1], trusted=True)
t = time.time()
while not done and time.time() - t < 300:
    app.processEvents()
    time.sleep(0.01)
assert done, "no result"
for name in ("stages", "pipeline", "diff", "concepts", "summary", "layout", "roofline",
             "autotune", "bench", "egraph", "luminal", "playground"):
    w.show_pane(name)
    app.processEvents()
w.session.select_ir_line("ttgir", 5)
jobs = [w.layout_pane.show_layout(
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    [64, 64])]
w.egraph_pane.source.setText("(+ (* x y) (* x z))")
jobs.append(w.egraph_pane.saturate())
w.playground_pane.run_lit()
w.playground_pane.wait()
t = time.time()
while not all(j.done for j in jobs) and time.time() - t < 120:  # their work ran on jobs' threads
    app.processEvents()
    time.sleep(0.01)
assert all(j.ok for j in jobs), [j.error for j in jobs]
app.processEvents()
print("imported:", sorted(m for m in ("torch", "triton") if m in sys.modules))
w.session.shutdown()
"""


def test_the_window_never_imports_torch_or_triton(tmp_path):
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        QT_QPA_PLATFORM="offscreen",
        KX_SETTINGS_DIR=str(tmp_path / "settings"),
        KX_STATE_DIR=str(tmp_path / "state"),
        KX_CACHE_DIR=str(tmp_path / "cache"),
    )
    p = subprocess.run(
        [sys.executable, "-c", PROBE, str(KERNELS / "matmul.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "imported: []" in p.stdout, p.stdout + p.stderr[-2000:]
