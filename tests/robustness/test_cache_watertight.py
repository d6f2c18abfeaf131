"""kx's cache is watertight (issue 52, item 4). A cache that cannot be written (row 9)
turns itself off for the run and says so, with nothing left behind and nothing blamed on
the user's line.

The full disk is a real one: a 64 KiB tmpfs, filled, mounted over the cache folder in a
user and mount namespace of the kx command's own (`unshare -rm`); skipped where this
machine allows no such namespace."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from kx_testing import KERNELS, ROOT


def _namespaces() -> bool:
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


needs_namespaces = pytest.mark.skipif(
    not _namespaces(), reason="needs `unshare -rm` (a user and mount namespace) for a real full disk"
)


_FILES = "--- files in the cache folder:"


def _kx_on_a_full_cache(tmp_path, *args: str, read_only: bool = False) -> subprocess.CompletedProcess:
    """`kx ARGS` with its cache folder on a full (or read-only) 64 KiB tmpfs, in a
    runtime folder of its own (no warm server: that one writes outside the namespace)."""
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    runtime = tmp_path / "runtime"
    kx = shlex.join([sys.executable, "-m", "kx_core.cli", *args])
    fill = f"head -c 1000000 /dev/zero > {cache}/filler 2>/dev/null"
    ro = f"mount -o remount,ro {cache}" if read_only else "true"
    script = f"mount -t tmpfs -o size=64k tmpfs {cache} && {fill}; {ro} && {kx}; rc=$?; echo {shlex.quote(_FILES)}; find {cache} -type f; exit $rc"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env |= {"KX_CACHE_DIR": str(cache), "KX_RUNTIME_DIR": str(runtime)}
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=300
    )


@needs_namespaces
@pytest.mark.parametrize("read_only", [False, True], ids=["full", "read-only"])
def test_an_unwritable_cache_turns_itself_off_and_says_so(tmp_path, read_only):
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    for _ in range(2):  # a second try leaves nothing either
        p = _kx_on_a_full_cache(
            tmp_path, "compile", str(path), "--target", "cuda:90", "--json", read_only=read_only
        )
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        out, _, files = p.stdout.partition(_FILES)
        result = json.loads(out)
        # the kernel compiled: a cache kx cannot write is never the file's failure
        assert [k["status"] for k in result["kernels"]] == ["compiled"]
        blamed = [d for d in result["diagnostics"] if d["line"] is not None and d["kind"] != "placeholder"]
        assert not blamed, blamed
        tools = [d["message"] for d in result["diagnostics"] if d["kind"] == "tool"]
        assert any("result cache" in m and "cannot be written" in m and "not kept" in m for m in tools), tools
        if not read_only:  # the disk filled under Triton's writes: its cache is off for the run
            assert any(
                "Triton cache" in m and "No space left on device" in m and "off" in m for m in tools
            ), tools
        # no temporary file per try: the filler is the only file in the cache folder
        left = files.split()
        assert left == [str(tmp_path / "cache" / "filler")], left
