"""`python main.py FILE --screenshot OUT.png`: the headless path for tests and docs."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from kx_testing import BAD, KERNELS, ROOT


def run_main(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(ROOT),
        KX_SETTINGS_DIR=str(tmp_path / "settings"),
        KX_STATE_DIR=str(tmp_path / "state"),
    )
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, env=env, timeout=600
    )


def test_screenshot_of_a_compiled_file(tmp_path):
    shot = tmp_path / "kx.png"
    p = run_main(
        tmp_path,
        str(KERNELS / "matmul_autotune.py"),
        "--target",
        "cuda:90",
        "--stage",
        "sass",
        "--pane",
        "kernels",
        "--screenshot",
        str(shot),
    )
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr and "window shown with results" in p.stderr
    image = QImage(str(shot))
    assert image.width() >= 1280 and image.height() >= 800
    # not a blank picture: many distinct colours (text, highlighting, bands)
    colors = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colors) > 20


def test_failures_exit_non_zero_with_the_reason(tmp_path):
    p = run_main(tmp_path, str(tmp_path / "missing.py"), "--screenshot", str(tmp_path / "x.png"))
    assert p.returncode == 2 and "missing.py" in p.stderr
    shot = tmp_path / "err.png"
    p = run_main(tmp_path, str(BAD / "compile_error.py"), "--target", "cuda:90", "--screenshot", str(shot))
    assert p.returncode == 1 and "compile: arange's range must be a power of 2" in p.stderr
    assert QImage(str(shot)).width() >= 1280


def test_a_shipped_example_on_the_command_line_opens_as_the_users_copy(tmp_path):
    """README's quick start, `python main.py kx_core/data/examples/matmul_autotune.py`,
    opened kx's own file, so an edit and Ctrl+S changed the shipped example, while File ▸
    Examples opens a copy (issue 54). The command line opens it as the menu does."""
    example = KERNELS / "vector_add.py"
    shipped = example.read_bytes()
    shot = tmp_path / "kx.png"
    p = run_main(tmp_path, str(example), "--target", "cuda:90", "--screenshot", str(shot))
    assert p.returncode == 0, p.stderr
    copy = tmp_path / "state" / "examples" / "vector_add.py"
    assert copy.read_bytes() == shipped and example.read_bytes() == shipped
    assert "Quick start" in (ROOT / "README.md").read_text()  # whose first command this is
    assert "python main.py kx_core/data/examples/matmul_autotune.py" in (ROOT / "README.md").read_text()
    # another file opens as it is: no copy of it
    other = tmp_path / "mine.py"
    other.write_bytes(shipped)
    p = run_main(tmp_path, str(other), "--target", "cuda:90", "--screenshot", str(shot))
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "state" / "examples" / "mine.py").exists()
