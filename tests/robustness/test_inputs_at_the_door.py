"""Every input checked at the door (issue 52, item 5): a bad option is kx's message
naming it, exit 2, with nothing left running; kx's own limits are never the file's fault."""

from __future__ import annotations

import re

from kx_testing import KERNELS, run_kx

VECTOR_ADD = str(KERNELS / "vector_add.py")


def test_a_memory_limit_too_small_for_kx_is_said_as_kxs_with_the_least_that_works():
    """Row 13: under --memory-limit 2048 the worker cannot map libtorch before the file
    runs; that was reported as the file's crash (exit 1)."""
    p = run_kx("compile", VECTOR_ADD, "--target", "cuda:90", "--memory-limit", "2048", no_cache=True)
    out = p.stdout + p.stderr
    assert p.returncode == 2, out
    assert "crash" not in out
    least = re.search(r"memory limit of 2048 MiB .* give it (\d+) MiB or more", out)
    assert least, out
    # the least it names works
    p = run_kx("compile", VECTOR_ADD, "--target", "cuda:90", "--memory-limit", least[1], no_cache=True)
    assert p.returncode == 0 and "add_kernel  compiled" in p.stdout, p.stdout + p.stderr


def test_a_limit_that_leaves_a_warm_child_no_room_compiles_cold(tmp_path, monkeypatch):
    """Row 13, warm: a child of the warm server starts as big as the server; under a
    limit just past that size it died silently (exit 1, "the file's crash"). The server
    refuses such a job, and the compile runs in a fresh worker: it fits, or the limit is
    said to be kx's (never the file's crash)."""
    import os
    import shutil
    import tempfile

    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.jobs import warm

    folder = tempfile.mkdtemp(prefix="kx-rt-")
    os.rmdir(folder)  # kx makes it itself
    monkeypatch.setenv("KX_RUNTIME_DIR", folder)
    proc = warm.launch(wait_s=180)
    try:
        status = warm.status()
        assert status is not None, "the warm worker did not start"
        with open(f"/proc/{status['pid']}/status") as f:
            size = next(int(line.split()[1]) >> 10 for line in f if line.startswith("VmSize:"))
        request = CompileRequest(VECTOR_ADD, target="cuda:90", memory_limit_mb=size + 32)
        result = compile_file(request, use_cache=False)
        assert not [d for d in result.diagnostics if d.kind == "crash"], result.diagnostics
        compiled = [k.status for k in result.kernels] == ["compiled"]
        assert compiled or any(d.kind == "argument" and "give it" in d.message for d in result.diagnostics)
        assert any(
            "warm server was not used" in d.message and "no room" in d.message for d in result.diagnostics
        )
    finally:
        warm.stop()
        if proc is not None:
            proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
