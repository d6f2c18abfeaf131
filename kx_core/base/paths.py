"""Where kx's own files are: the folder that holds the kx_core package (a worker process
gets it on its path, from an editable or an installed copy alike) and kx's cache folder."""

from __future__ import annotations

import os
from pathlib import Path

# kx_core/base/paths.py -> the folder holding kx_core (the checkout, or site-packages)
ENGINE_ROOT = str(Path(__file__).resolve().parents[2])


def worker_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of `env` (default: os.environ) whose PYTHONPATH starts with ENGINE_ROOT, so a
    worker started with any interpreter imports this kx_core."""
    out = dict(os.environ if env is None else env)
    out["PYTHONPATH"] = os.pathsep.join(p for p in (ENGINE_ROOT, out.get("PYTHONPATH")) if p)
    return out


def runtime_dir() -> str:
    """Where kx's warm servers keep their sockets: $KX_RUNTIME_DIR (a test session's own),
    else $XDG_RUNTIME_DIR/kx, else $TMPDIR/kx-<uid>. Short: a socket's path is limited to
    about 100 bytes. Not made or checked here (private_dir does, on every use)."""
    import tempfile

    if env := os.environ.get("KX_RUNTIME_DIR"):
        return env
    if xdg := os.environ.get("XDG_RUNTIME_DIR"):
        if os.path.isdir(xdg):
            return os.path.join(xdg, "kx")
    return os.path.join(tempfile.gettempdir(), f"kx-{os.getuid()}")


def cache_dir() -> Path:
    """kx's cache folder: $KX_CACHE_DIR, else $XDG_CACHE_HOME/kx, else ~/.cache/kx."""
    if env := os.environ.get("KX_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kx"
