"""A non-editable install: the wheel holds every data file kx reads at run time, and kx
run from that install, from a folder outside the checkout, finds its examples, e-graph
programs, lit tests and KernelBench library, and starts the app on an example."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kx_core.base.data import DATA_FOLDERS
from kx_testing import ROOT


def _source_data_files() -> set[str]:
    base = ROOT / "kx_core" / "data"
    return {
        p.relative_to(ROOT).as_posix()
        for p in base.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel built from a copy of the sources (the build writes build/ and egg-info
    beside them) and unpacked as pip would install it (pure Python: a wheel is a zip)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for pkg in ("kx_core", "kx_gui"):
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    (wheel,) = (tmp / "dist").glob("kx-*.whl")
    target = tmp / "site"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        missing = _source_data_files() - names
        assert not missing, f"the wheel lacks {sorted(missing)[:10]}"
        z.extractall(target)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "kx = kx_gui.launcher:main" in (target / entry_points).read_text()
    return target


def _run(installed: Path, cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(installed), QT_QPA_PLATFORM="offscreen")
    env.pop("KX_CACHE_DIR", None)
    env["XDG_CACHE_HOME"] = str(cwd / "cache")
    # the app's settings, autosaves and trials in the test's folder, not the user's
    for var in ("KX_SETTINGS_DIR", "KX_STATE_DIR", "KX_TRIALS_DIR"):
        env[var] = str(cwd / var.lower())
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_every_data_folder_is_in_the_wheel(installed):
    for folder in DATA_FOLDERS:
        shipped = sorted(p.name for p in (installed / "kx_core" / "data" / folder).iterdir())
        assert shipped, folder
        assert shipped == sorted(
            p.name for p in (ROOT / "kx_core" / "data" / folder).iterdir() if p.name != "__pycache__"
        )


def test_no_code_reads_the_checkouts_fixtures():
    """Run-time code reaches data through kx_core.base.data, never the checkout's fixtures/."""
    pattern = re.compile(r"""["']fixtures["']|fixtures/""")
    offenders = [
        f"{path.relative_to(ROOT)}:{i}"
        for pkg in ("kx_core", "kx_gui")
        for path in (ROOT / pkg).rglob("*.py")
        if "data" not in path.relative_to(ROOT / pkg).parts[:1]
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and not line.lstrip().startswith("#")
    ]
    assert not offenders, offenders


def test_the_installed_engine_finds_its_data(installed, tmp_path):
    probe = (
        "import json, kx_core\n"
        "from kx_core.base.data import examples, data_path\n"
        "print(json.dumps({'pkg': kx_core.__file__, 'examples': [p.name for p in examples()],"
        " 'lit': sorted(p.name for p in data_path('lit').glob('*.mlir'))}))\n"
    )
    p = _run(installed, tmp_path, "-c", probe)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["pkg"].startswith(str(installed))  # not the checkout
    assert "matmul_autotune.py" in got["examples"] and len(got["examples"]) >= 5
    assert "coalesce.mlir" in got["lit"]


def test_kernelbench_and_egraph_from_the_install(installed, tmp_path):
    kb = _run(installed, tmp_path, "-m", "kx_gui.launcher", "kernelbench", "--mode", "naive", "--json")
    assert kb.returncode == 0, kb.stderr[-2000:]
    tasks = {r["task"] for r in json.loads(kb.stdout)["naive"]}
    from kx_core.bench.kb_tasks import TASKS

    assert tasks == {t.name for t in TASKS}  # every task judged
    egg = installed / "kx_core" / "data" / "egraph" / "comm_assoc.egg"
    eg = _run(installed, tmp_path, "-m", "kx_gui.launcher", "egraph", str(egg), "--json")
    assert eg.returncode == 0, eg.stderr[-2000:]
    assert json.loads(eg.stdout)["iterations"]


_GUI_PROBE = """
import json, sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from kx_core.base.data import data_path
from kx_gui.main_window import MainWindow
w = MainWindow(target="cuda:90", headless=True)
pane = w.egraph_pane
pane.source.setText(str(data_path("egraph", "matmul_relu_fusion.egg")))
drawn = pane.saturate()
started = time.time()
while not drawn.done and time.time() - started < 120:  # the run and its layout are a job
    app.processEvents()
    time.sleep(0.01)
print(json.dumps({
    "examples": [a.text() for a in w.features.examples.menu.actions()],
    "egraph_drawn": bool(drawn) and len(pane.node_items) > 0,
    "egraph_info": pane.info.text(),
}))
w.session.shutdown()
"""


def test_the_app_from_the_install(installed, tmp_path):
    """`kx gui FILE --screenshot` shows the file's stages; the Examples menu lists the
    shipped examples; the E-graph pane draws (graphviz-pure found beside the interpreter)."""
    example = installed / "kx_core" / "data" / "examples" / "vector_add.py"
    shot = tmp_path / "shot.png"
    p = _run(
        installed,
        tmp_path,
        "-m",
        "kx_gui.launcher",
        "gui",
        str(example),
        "--target",
        "cuda:90",
        "--stage",
        "ptx",
        "--screenshot",
        str(shot),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "window shown with results" in p.stderr and shot.stat().st_size > 10_000
    probe = _run(installed, tmp_path, "-c", _GUI_PROBE)
    assert probe.returncode == 0, probe.stderr[-3000:]
    got = json.loads(probe.stdout.strip().splitlines()[-1])
    assert "matmul_autotune.py" in got["examples"] and "vector_add.py" in got["examples"]
    assert got["egraph_drawn"], got["egraph_info"]
