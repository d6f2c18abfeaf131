"""The engine stays Qt-free and light: kx_core imports with PySide6/pyqtgraph absent,
and its compile front door does not import torch or triton."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_layer_contracts_hold():
    """pyproject's import-linter contracts: kx_core's layers, the Qt-free engine, kx_gui's
    layers, each pane on its own."""
    lint_imports = pytest.importorskip("importlinter.cli").lint_imports  # the test extra has it

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_import_cycles():
    """No module reaches itself through imports (lazy ones inside functions included)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("kx_core", "kx_gui", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    cycles = []
    for start in sorted(edges):  # a cycle through `start` exists if start reaches itself
        seen, todo = set(), list(edges[start])
        while todo:
            m = todo.pop()
            if m == start:
                cycles.append(start)
                break
            if m not in seen:
                seen.add(m)
                todo.extend(edges.get(m, ()))
    assert not cycles, f"modules on an import cycle: {cycles}"
