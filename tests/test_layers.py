"""The engine stays Qt-free and light: kx_core imports with PySide6/pyqtgraph absent,
and its compile front door does not import torch or triton."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = r"""
import importlib, pkgutil, sys
for name in ("PySide6", "pyqtgraph", "kx_gui", "shiboken6"):
    sys.modules[name] = None  # any import of these now raises ImportError
import kx_core
for mod in pkgutil.walk_packages(kx_core.__path__, "kx_core."):
    importlib.import_module(mod.name)
import kx_core.compile, kx_core.cli
print("imported", len(sys.modules))
"""

_LIGHT = r"""
import sys
import kx_core.compile, kx_core.cli
heavy = sorted(m for m in ("torch", "triton", "numpy", "PySide6") if m in sys.modules)
print(",".join(heavy) or "none")
"""


def _run(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_kx_core_imports_without_qt():
    p = _run(_PROBE)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("imported")


def test_front_door_imports_no_torch_or_triton():
    p = _run(_LIGHT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "none"


def test_no_kx_core_source_mentions_qt():
    for path in (ROOT / "kx_core").rglob("*.py"):
        text = path.read_text()
        for banned in ("PySide6", "pyqtgraph", "kx_gui"):
            assert f"import {banned}" not in text and f"from {banned}" not in text, path
