"""Every input checked at the door (issue 52, item 5): a bad option is kx's message
naming it, exit 2, with nothing left running; kx's own limits are never the file's fault."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from kx_testing import KERNELS, ROOT, run_kx

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
        assert compiled or any(d.kind == "argument" and "give it" in d.message for d in result.diagnostics), [
            str(d) for d in result.diagnostics
        ]
        assert any(
            "warm server was not used" in d.message and "no room" in d.message for d in result.diagnostics
        )
    finally:
        warm.stop()
        if proc is not None:
            proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


MATMUL = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SWEEP = ("sweep", MATMUL, "--kernel", "matmul_kernel", "--shape", "M=64,N=64,K=64", "--target", "cuda:90")


@pytest.mark.parametrize(
    "address, says",
    [
        ("127.0.0.1:1", "--ray 127.0.0.1:1: nothing answers there"),
        ("no-such-host.invalid:6379", "the host 'no-such-host.invalid' is not known"),
        ("ray://127.0.0.1:99999", "is not an address: give HOST:PORT"),
        ("nohost", "is not an address: give HOST:PORT"),
    ],
)
def test_a_ray_address_where_nothing_answers_is_said_by_kx_at_once(address, says):
    """Row 10: Ray's client retried such an address for ever (and kx said nothing); kx
    checks it first, whether Ray is installed or not: exit 2, the address named."""
    p = run_kx(*SWEEP, "--simulate", "--ray", address)
    assert p.returncode == 2 and says in p.stderr, p.stderr


@pytest.mark.extra("ray")
def test_a_sweep_on_ray_asks_ray_nothing_where_nothing_answers():
    """Row 10 with Ray installed: the sweep's own entry (the app's, a script's) checks the
    address before ray.init, which never returns for it."""
    from kx_core.model.gpu import spec
    from kx_core.sweep.ray_address import RayAddressError
    from kx_core.sweep.run import SweepRequest, sweep

    req = SweepRequest(
        MATMUL, "matmul_kernel", ({"M": 64, "N": 64, "K": 64},), target="cuda:90", gpu=spec("h200"),
        simulate=True, ray="127.0.0.1:1",
    )  # fmt: skip
    with pytest.raises(RayAddressError, match="nothing answers there"):
        sweep(req)


def test_sweep_help_says_where_a_local_ray_instance_listens():
    """Row 19: the help said a local instance runs on loopback; Ray registers it under
    the machine's address (ray_pool's docstring), so the help says that."""
    p = run_kx("sweep", "--help")
    text = " ".join(p.stdout.split())
    assert p.returncode == 0 and "on loopback" not in text
    assert "this machine's network address, not loopback alone" in text


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_a_python_probe_that_times_out_leaves_nothing_running(tmp_path):
    """Row 16: the probe of a `--python` that does not answer was killed alone; what it
    started lived on."""
    import time

    pid_file = tmp_path / "pid"
    slow = tmp_path / "python"
    slow.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    slow.chmod(0o755)
    p = run_kx("compile", VECTOR_ADD, "--python", str(slow), "--timeout", "2")
    assert p.returncode == 1 and "did not answer within 2 s (--timeout)" in p.stdout
    pid = int(pid_file.read_text())
    deadline = time.time() + 5
    while time.time() < deadline and _alive(pid):
        time.sleep(0.1)
    assert not _alive(pid), "the probe's child outlived it"


CALL = ("compile", VECTOR_ADD, "--target", "cuda:90", "--kernel", "add_kernel", "--no-cache")
OTHER_ARGS = ("--arg", "y_ptr=fp32[1024]", "--arg", "output_ptr=fp32[1024]", "--arg", "n_elements=1024")


@pytest.mark.parametrize(
    "arg, says",
    [
        ("x_ptr=fp32[-5]", "argument --arg: x_ptr=fp32[-5]: not a tensor"),
        ("x_ptr=fp32[3", "argument --arg: x_ptr=fp32[3: not a tensor"),
        ("x_ptr=fp32[4,4]:1", "argument --arg: x_ptr=fp32[4,4]:1: fp32[4,4]:1: 2 dimensions but 1 strides"),
        ("x_ptr=abc", "--arg x_ptr=abc: a string, which only a constexpr parameter takes"),
    ],
)
def test_a_bad_arg_value_is_exit_2_naming_the_argument(arg, says):
    """Row 16: these were a compile failure at the kernel's line (`TypeError: failed to
    specialize argument of type: str`), naming no argument."""
    p = run_kx(*CALL, "--arg", arg, *OTHER_ARGS, "--arg", "BLOCK_SIZE=256")
    assert p.returncode == 2 and says in p.stdout + p.stderr, p.stdout + p.stderr


def test_a_word_for_a_constexpr_is_exit_2_naming_it():
    """Row 16: `BLOCK_SIZE=abc` reached the compiler as a string and failed at the
    kernel's line; the command line's fault now names the option and the way to quote."""
    p = run_kx(*CALL, "--arg", "x_ptr=fp32[1024]", *OTHER_ARGS, "--arg", "BLOCK_SIZE=abc")
    assert p.returncode == 2 and "--arg BLOCK_SIZE=abc: read as the string 'abc'" in p.stdout, p.stdout
    p = run_kx(*CALL, "--signature", "*fp32,*fp32,*fp32,i32", "--constexpr", "BLOCK_SIZE=abc")
    assert p.returncode == 2 and "--constexpr BLOCK_SIZE=abc: read as the string 'abc'" in p.stdout, p.stdout
    assert "quote a string: BLOCK_SIZE='abc'" in p.stdout


def _versions(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """`kx versions ARGS` in a versions folder of the test's own, with no package index
    reachable (pip and uv offline: a release that does not exist fails at once)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), KX_VERSIONS_DIR=str(tmp_path / "versions"))
    env |= {"PIP_NO_INDEX": "1", "UV_OFFLINE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    cmd = [sys.executable, "-m", "kx_core.cli", "versions", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def test_a_failed_versions_add_leaves_nothing(tmp_path):
    """Row 19: a release pip cannot install left its environment (26 MB) behind."""
    p = _versions(tmp_path, "add", "99.99.99")
    assert p.returncode == 2 and "adding triton 99.99.99 failed" in p.stderr, p.stderr
    folder = tmp_path / "versions"
    assert not folder.exists() or not list(folder.iterdir()), list(folder.iterdir())


@pytest.mark.parametrize(
    "value", ["--index-url=https://example.invalid/simple", "-e.", "https://x.invalid/p.whl"]
)
def test_versions_with_takes_packages_never_installer_options(tmp_path, value):
    """Row 19: `--with=--index-url=...` went to pip as an option of its own."""
    p = _versions(tmp_path, "add", "99.99.99", f"--with={value}")
    assert p.returncode == 2 and "not a package requirement" in p.stderr, p.stderr
    assert not (tmp_path / "versions").exists()  # refused before anything was made


def test_a_space_key_that_is_not_the_kernels_is_said_not_pruned():
    """Row 19: `--space NOPE=1,2` compiled every config without the kernel's own
    meta-parameters and called each "pruned" (exit 0)."""
    p = run_kx(*SWEEP, "--measure", "none", "--space", "NOPE=1,2;BLOCK_M=64")
    assert p.returncode == 2, p.stdout + p.stderr
    assert "NOPE is not a parameter of matmul_kernel" in p.stderr and "BLOCK_M" in p.stderr
    assert "pruned" not in p.stdout
