"""Where the window opens (issue 54, Low): the first window opened in the screen's top-left
corner; it opens centred on the screen, and where it was left once it has been closed.
Each start is a fresh process on an offscreen screen of 1920x1080 (the tests' own offscreen
screen is 800x800, smaller than the window)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from kx_testing import ROOT

START = """
import sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from kx_gui.main_window import MainWindow
w = MainWindow(target="cuda:90", headless=False, warm=False)
w.show()
t = time.time()
while time.time() - t < 1.5:
    app.processEvents()
    time.sleep(0.01)
screen = w.screen().availableGeometry()
frame = w.frameGeometry()
print("placed", frame.x(), frame.y(), frame.width(), frame.height(), screen.width(), screen.height())
if len(sys.argv) > 1:
    w.move(int(sys.argv[1]), int(sys.argv[2]))
    app.processEvents()
w.close()
"""


def _start(tmp_path, *move: int) -> tuple[int, ...]:
    screens = tmp_path / "screens.json"
    screens.write_text(
        json.dumps({"screens": [{"name": "big", "x": 0, "y": 0, "width": 1920, "height": 1080}]})
    )
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={screens}",
        PYTHONPATH=str(ROOT),
        KX_SETTINGS_DIR=str(tmp_path / "settings"),
        KX_STATE_DIR=str(tmp_path / "state"),
    )
    p = subprocess.run(
        [sys.executable, "-c", START, *map(str, move)], capture_output=True, text=True, env=env, timeout=300
    )
    assert p.returncode == 0, p.stderr
    (line,) = [s for s in p.stdout.splitlines() if s.startswith("placed")]
    return tuple(int(v) for v in line.split()[1:])


def test_the_first_window_opens_centred_and_then_where_it_was_left(tmp_path):
    x, y, w, h, sw, sh = _start(tmp_path, 150, 90)
    assert (sw, sh) == (1920, 1080) and (w, h) != (sw, sh)
    assert abs(x + w / 2 - sw / 2) <= 2 and abs(y + h / 2 - sh / 2) <= 2, (x, y, w, h)
    x, y, *_ = _start(tmp_path)  # its saved place, not the centre
    assert (x, y) == (150, 90)
