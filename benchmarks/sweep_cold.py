"""`kx sweep` run as a user runs it, from empty Triton and kx caches (the sweep
benchmarks' shared step): `cold_sweep(file, kernel, shapes, args)` -> (its JSON, the
process's wall seconds); exits with the sweep's error output when it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cold_sweep(file: Path, kernel: str, shapes: list[str], args: list[str], env: dict | None = None,
               timeout: float = 240.0, what: str = "") -> tuple[dict, float]:  # fmt: skip
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
                   KX_CACHE_DIR=os.path.join(cache, "kx"), **(env or {}))  # fmt: skip
        cmd = [sys.executable, "-m", "kx_core.cli", "sweep", str(file), "--kernel", kernel, "--json", *args]
        for s in shapes:
            cmd += ["--shape", s]
        start = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
        wall = time.perf_counter() - start
    if p.returncode != 0 or not p.stdout.strip():
        raise SystemExit(f"{what or kernel}: exit {p.returncode}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout), wall
