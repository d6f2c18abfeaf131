"""Paths and helpers shared by the tests."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "fixtures" / "kernels"


def run_kx(*args: str, no_cache: bool = False) -> subprocess.CompletedProcess:
    """The kx command line as a subprocess, as a user runs it."""
    cmd = [sys.executable, "-m", "kx_core.cli", *args] + (["--no-cache"] if no_cache else [])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
