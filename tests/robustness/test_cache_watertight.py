"""kx's cache is watertight (issue 52, item 4). What the file read in any way keys the
cache or keeps its result out of it (row 11): the whole environment, a folder's listing,
a process it started. A cache that cannot be written (row 9) turns itself off for the
run and says so, with nothing left behind and nothing blamed on the user's line.

The full disk is a real one: a 64 KiB tmpfs, filled, mounted over the cache folder in a
user and mount namespace of the kx command's own (`unshare -rm`); skipped where this
machine allows no such namespace."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_testing import KERNELS, ROOT

# ways to read a variable that the file never looks up by name: set after the first
# compile, it was not among the names that entry recorded
WHOLE_ENV = {
    "dict": 'dict(os.environ).get("KX_TEST_WHOLE", "1024")',
    "copy": 'os.environ.copy().get("KX_TEST_WHOLE", "1024")',
    "items": 'next((v for k, v in os.environ.items() if k == "KX_TEST_WHOLE"), "1024")',
}


def _vector_add(tmp_path, prelude: str) -> str:
    """vector_add with its block size from `prelude`'s BLOCK, not its own text."""
    text = (KERNELS / "vector_add.py").read_text().replace("BLOCK_SIZE=1024", "BLOCK_SIZE=BLOCK")
    assert "BLOCK_SIZE=BLOCK" in text
    path = tmp_path / "vector_add.py"
    path.write_text(prelude + text)
    return str(path)


def _compile(path: str):
    return compile_file(CompileRequest(path, target="cuda:90"))


def _grid(result) -> int:
    (kernel,) = [k for k in result.kernels if k.status == "compiled"]
    return kernel.launch.grid[0]


@pytest.mark.parametrize("how", sorted(WHOLE_ENV))
def test_a_file_that_reads_the_whole_environment_is_keyed_on_it(tmp_path, monkeypatch, how):
    monkeypatch.delenv("KX_TEST_WHOLE", raising=False)
    path = _vector_add(tmp_path, f"import os\nBLOCK = int({WHOLE_ENV[how]})\n")
    first = _compile(path)
    assert _compile(path).from_cache  # nothing changed: still served
    monkeypatch.setenv("KX_TEST_WHOLE", "256")
    second = _compile(path)
    assert not second.from_cache and _grid(second) > 3 * _grid(first)


def test_a_file_that_lists_a_folder_is_keyed_on_its_names(tmp_path):
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "a.json").write_text("{}")
    path = _vector_add(
        tmp_path, f"import glob\nBLOCK = 1024 // len(glob.glob({str(configs)!r} + '/*.json'))\n"
    )
    first = _compile(path)
    assert _compile(path).from_cache
    (configs / "b.json").write_text("{}")  # no file it opened changed: only the listing
    second = _compile(path)
    assert not second.from_cache and _grid(second) > _grid(first)


def test_a_file_that_reads_through_a_process_is_not_cached_and_says_so(tmp_path):
    cfg = tmp_path / "block.txt"
    cfg.write_text("1024")
    prelude = f"import subprocess\nBLOCK = int(subprocess.check_output(['cat', {str(cfg)!r}]))\n"
    path = _vector_add(tmp_path, prelude)
    first = _compile(path)
    (note,) = [d for d in first.diagnostics if d.kind == "uncached"]
    assert note.line == 2 and "cat " in note.message and "not cached" in note.message
    cfg.write_text("256")  # read by `cat`, which kx cannot watch
    second = _compile(path)
    assert not second.from_cache and _grid(second) > 3 * _grid(first)


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


def test_torch_and_triton_files_are_never_the_users_wherever_installed():
    """A file of torch's or triton's own folder is not the user's, whether or not it lies
    under site-packages (a source build, a PYTHONPATH install): Triton's own `ptxas
    --version` was said as the file starting a process, so no result was ever cached there.
    The folders are found from the imported modules, without importing anything."""
    import os

    import torch
    import triton

    from kx_core.compile.artifacts.file_kinds import loaded_library_dirs
    from kx_core.compile.capturing.device import reads

    dirs = loaded_library_dirs()
    for module in (torch, triton):
        folder = os.path.join(os.path.realpath(os.path.dirname(module.__file__)), "")
        assert folder in dirs
        assert not reads._users(os.path.join(folder, "backends", "compiler.py"))
    assert reads._users(os.path.join(os.path.dirname(os.path.abspath(__file__)), "a_users_file.py"))
