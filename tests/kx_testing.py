"""Paths and helpers shared by the tests."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kx_core" / "data" / "examples"  # the shipped examples
BAD = ROOT / "fixtures" / "kernels" / "bad"  # one file per diagnostic kind (test-only)


# kx's optional extras (pyproject's [project.optional-dependencies]) -> the module each
# brings: a test marked `@pytest.mark.extra(NAME)` skips, naming the extra, without it
EXTRAS = {
    "helion": "helion",
    "cute": "cutlass",
    "tilelang": "tilelang",
    "ray": "ray",
    "tritonparse": "tritonparse",
}


def missing_extra(name: str) -> str | None:
    """Why a test of extra `name` cannot run here, or None when the extra is installed."""
    import importlib.util

    module = EXTRAS[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    return None if found else f"needs kx's optional extra {name!r}: pip install 'kx[{name}]'"


def run_kx(*args: str, no_cache: bool = False) -> subprocess.CompletedProcess:
    """The kx command line as a subprocess, as a user runs it."""
    cmd = [sys.executable, "-m", "kx_core.cli", *args] + (["--no-cache"] if no_cache else [])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def kernel_path(name: str) -> Path:
    """A test kernel by name: 'bad/NAME.py' is a test-only bad file, 'links/NAME.py' and
    'compare/NAME.py' test-only files (fixtures/kernels/links, /compare), anything else a shipped example."""
    if name.startswith("bad/"):
        return BAD / name.removeprefix("bad/")
    if name.startswith(("links/", "compare/")):
        return ROOT / "fixtures" / "kernels" / name
    return KERNELS / name


def line_of(name: str, needle: str) -> int:
    """The first line (1-based) of test kernel `name` that contains `needle`."""
    for i, text in enumerate(kernel_path(name).read_text().splitlines(), start=1):
        if needle in text:
            return i
    raise AssertionError(f"{needle!r} is not in {name}")


def make_venv(path: Path, extra: list[Path] = ()) -> Path:
    """A bare venv (no pip) whose site-packages see this interpreter's packages plus the
    folders `extra`: another interpreter for --python, in a second. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    py = path / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    Path(site, "kx_test.pth").write_text("\n".join([*ours, *map(str, extra)]) + "\n")
    return py


def other_triton():
    """The managed Triton version tests compare kx's own with: KX_TEST_TRITON_OTHER (CI
    adds it first: .ci/run), else 3.6.0 when `kx versions add 3.6.0` was run here; a skip
    otherwise (a failure where CI asked for it)."""
    import pytest

    from kx_core.base import triton_envs

    wanted = os.environ.get("KX_TEST_TRITON_OTHER")
    try:
        return triton_envs.find(wanted or "3.6.0")
    except triton_envs.VersionError as e:
        if wanted:  # CI asked for it: a missing environment is a failure, not a skip
            raise
        pytest.skip(str(e))


def assert_as_real_run(result, ground: Path) -> None:
    """kx's capture `result` compiled what the GPU's real run of the same file compiled
    (`ground`: scripts/record_real_runs.py's record), or differs only where kx said it
    guessed: a non-zero exit and every compile the real run lacks made after a placeholder.
    Inductor names its kernels by the torch that generated them, so under another torch
    than the record's only the file's own kernels are compared."""
    import json

    import torch

    from kx_core.compile.jobs.real_runs import compare

    real = json.loads(ground.read_text())
    c = compare(real, list(result.kernels))
    missing, extra = c.missing, c.extra
    if real.get("torch", "").split("+")[0] != torch.__version__.split("+")[0]:
        missing = {k for k in missing if not k[0].startswith("triton_")}
        extra = {k for k in extra if not k[0].startswith("triton_")}
    if not missing and not extra:
        return
    guessed = {k.name for k in result.kernels if k.after_placeholder}
    said = result.exit_status != 0 and all(k[0] in guessed for k in extra)
    assert said, (
        f"not as the real run ({ground.name}): missing {sorted(missing)[:3]}, extra {sorted(extra)[:3]}"
    )
