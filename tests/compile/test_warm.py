"""The warm worker (issue 15): a compile through it gives what a cold worker gives, pays
no imports, and a crash or a timeout costs its child only."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs import warm
from kx_testing import BAD, KERNELS, ROOT, run_kx


@pytest.fixture(scope="module", autouse=True)
def own_runtime_folder():
    """This module's servers in a runtime folder of its own: its tests start, count and
    stop servers, and the test session's warm worker (conftest) is left alone."""
    import tempfile

    with pytest.MonkeyPatch.context() as mp:
        folder = tempfile.mkdtemp(prefix="kx-rt-")
        mp.setenv("KX_RUNTIME_DIR", folder)
        yield folder


@pytest.fixture(scope="module")
def server():
    proc = warm.launch(wait_s=180)
    assert warm.status() is not None, "the warm worker did not start"
    yield warm.status()
    warm.stop()
    if proc is not None:
        proc.wait(30)


def _compile(name: str, **fields):
    path = str(BAD / name[4:]) if name.startswith("bad/") else str(KERNELS / name)
    return compile_file(CompileRequest(path, target="cuda:90", **fields), use_cache=False)


def test_warm_and_cold_give_the_same_result(server):
    jobs = warm.status()["jobs"]
    hot = _compile("two_kernels.py")
    assert warm.status()["jobs"] == jobs + 1  # it went through the warm worker
    cold = _compile("two_kernels.py", cold=True)
    assert [k.display_name for k in hot.kernels] == [k.display_name for k in cold.kernels]
    assert [k.stages["ptx"] for k in hot.kernels] == [k.stages["ptx"] for k in cold.kernels]
    assert hot.diagnostics == cold.diagnostics
    assert hot.timings["imports_s"] < 0.1 < cold.timings["imports_s"]  # torch and triton were there


def test_a_warm_child_does_not_warm_up_again_for_the_servers_target(server):
    """Issue 51: the server compiled its warm-up kernel for cuda:90 before forking; a job's
    autotuned launch warms up only where that was not done (cold: once, before forking
    its configs)."""
    jobs = warm.status()["jobs"]
    hot = _compile("matmul_autotune.py")
    assert warm.status()["jobs"] == jobs + 1  # through the warm worker
    assert len(hot.kernels) == 4 and "autotune_s" in hot.timings
    assert "warmup_s" not in hot.timings
    cold = _compile("matmul_autotune.py", cold=True)
    assert "warmup_s" in cold.timings


DYNAMO_PROBE = ROOT / "fixtures" / "kernels" / "torch_ops" / "dynamo_state_of_a_capture.py"


def _dynamo_state(result) -> dict:
    line = next((ln for ln in result.output.splitlines() if ln.startswith("DYNAMO_STATE ")), None)
    assert line, (result.output[-2000:], [str(d) for d in result.diagnostics])
    return json.loads(line.split(" ", 1)[1])


def _preimported(server) -> None:
    if not server.get("dynamo_preimported"):
        from kx_core.compile.capturing.device.dynamo_preimport import unwanted

        pytest.skip(f"the warm server did not import dynamo ahead: {unwanted() or 'its log says why'}")


def test_a_child_of_a_preimporting_server_holds_what_a_cold_capture_holds(server):
    """Issue 51: the server imports torch._dynamo and Inductor once (2.7 s of every
    torch.compile capture's child); a cold capture imports them after its GPU stand-in is
    in place, so what they bind at import is the stand-in's. The child rewrites what the
    pre-import bound (dynamo_preimport.refresh): without it this probe stopped at
    "NameError: _get_device_properties" (Inductor calling the real driver) and 300 of its
    dynamo rule lookups differed. Every answer, the kernels and their PTX are the cold
    worker's."""
    _preimported(server)
    jobs = warm.status()["jobs"]
    hot = compile_file(CompileRequest(str(DYNAMO_PROBE), target="cuda:90"), use_cache=False)
    assert warm.status()["jobs"] == jobs + 1  # through the warm worker
    cold = compile_file(CompileRequest(str(DYNAMO_PROBE), target="cuda:90", cold=True), use_cache=False)
    hot_state, cold_state = _dynamo_state(hot), _dynamo_state(cold)
    assert hot_state.pop("preimported") and not cold_state.pop("preimported")
    assert hot_state == cold_state
    assert sum(key.startswith("lookup torch.cuda.") for key in cold_state) > 100  # the probe asked
    assert cold_state["graph breaks"] == 0 and cold_state["device_count"] == 1
    assert [k.display_name for k in hot.kernels] == [k.display_name for k in cold.kernels]
    assert [k.stages["ptx"] for k in hot.kernels] == [k.stages["ptx"] for k in cold.kernels]
    assert hot.kernels and hot.diagnostics == cold.diagnostics


def test_a_job_whose_environment_the_import_read_otherwise_runs_cold(server, monkeypatch):
    """Inductor's config reads TORCHINDUCTOR_* variables when it is imported: a job whose
    value differs from the server's (here max-autotune for pointwise kernels) cannot take
    the server's import, and runs in a fresh worker, with nothing said (its result is
    right; only the imports were paid)."""
    _preimported(server)
    monkeypatch.setenv("TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE", "1")
    jobs = warm.status()["jobs"]
    r = compile_file(CompileRequest(str(DYNAMO_PROBE), target="cuda:90"), use_cache=False)
    assert warm.status()["jobs"] == jobs  # not through the warm worker
    assert not _dynamo_state(r)["preimported"] and r.kernels
    assert not [d for d in r.diagnostics if d.kind == "tool"], [str(d) for d in r.diagnostics]


def test_a_crash_or_a_timeout_costs_the_child_only(server):
    pid = warm.status()["pid"]
    crash = _compile("bad/segfault.py")
    assert [d.kind for d in crash.diagnostics if d.fatal] == ["crash"]
    hang = _compile("bad/infinite_loop.py", timeout_s=5)
    assert [d.kind for d in hang.diagnostics if d.fatal] == ["timeout"] and hang.diagnostics[0].line
    info = warm.status()
    assert info["pid"] == pid and info["running"] == 0
    assert _compile("vector_add.py").ok


def test_the_child_dies_with_the_client(server, tmp_path):
    script = (
        "import sys; from kx_core.compile import CompileRequest, compile_file; "
        f"compile_file(CompileRequest({str(BAD / 'infinite_loop.py')!r}, timeout_s=120), use_cache=False)"
    )
    p = subprocess.Popen([os.sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=os.getcwd()))
    deadline = time.time() + 60
    while time.time() < deadline and warm.status()["running"] == 0:
        time.sleep(0.2)
    assert warm.status()["running"] == 1
    p.kill()
    p.wait()
    deadline = time.time() + 10
    while time.time() < deadline and warm.status()["running"]:
        time.sleep(0.2)
    assert warm.status()["running"] == 0


def test_kx_daemon_start_status_stop():
    try:
        assert run_kx("daemon", "start").returncode == 0
        status = run_kx("daemon", "status")
        assert status.returncode == 0 and "running: pid" in status.stdout
        jobs = warm.status()["jobs"]
        p = run_kx("compile", str(KERNELS / "vector_add.py"), "--target", "cuda:90", "--no-cache", "--json")
        assert p.returncode == 0 and warm.status()["jobs"] == jobs + 1
    finally:
        assert "stopped" in run_kx("daemon", "stop").stdout
    assert run_kx("daemon", "status").returncode == 1


def test_each_virtual_environment_gets_its_own_server(tmp_path):
    """Two environments whose bin/python link to one base interpreter never share a
    server (one started from a since-deleted environment served the next CI run)."""
    import sys

    from kx_core.compile.jobs.warm import socket_path

    a, b = tmp_path / "a" / "python", tmp_path / "b" / "python"
    for link in (a, b):
        link.parent.mkdir()
        link.symlink_to(os.path.realpath(sys.executable))
    assert socket_path(str(a)) != socket_path(str(b))
    assert socket_path(str(a)) == socket_path(str(a))


def test_a_worker_module_runs_in_a_warm_child(tmp_path):
    """The profile and edited-stage workers run in a warm child when a server answers
    (MeasureJob.start): their main(args) as `python -m` would, output to the job's file."""
    from kx_core.base.paths import worker_env

    proc = warm.launch(wait_s=180)
    started = warm.status()
    stage = tmp_path / "nothing.ttgir"
    stage.write_text("module {\n}\n")
    out = tmp_path / "out.json"
    from kx_core.bench.requests import OverrideRequest

    file = str(ROOT / "kx_core" / "data" / "examples" / "vector_add.py")
    args = OverrideRequest(stage_file=str(stage)).args(file, str(out), str(tmp_path / "request.json"))
    child = warm.start_module(
        None,
        "kx_core.bench.override",
        args,
        env=worker_env(),
        cwd=str(tmp_path),
        output=str(tmp_path / "log.txt"),
        job_dir=str(tmp_path),
    )
    try:
        assert child is not None and child.pid != started["pid"]
        assert child.wait(120) == 0, (tmp_path / "log.txt").read_text()
        result = json.loads(out.read_text())
        assert result["diagnostics"][0]["message"].endswith("names no kernel")
        # only engine modules: a client cannot make the server import anything else
        refused = warm.start_module(
            None,
            "os",
            [],
            env=worker_env(),
            cwd=str(tmp_path),
            output=str(tmp_path / "x"),
            job_dir=str(tmp_path),
        )
        assert refused is None and warm.status() is not None
    finally:
        if proc is not None:  # a server of this test's own (the daemon test stops the module's)
            warm.stop()
            proc.wait(30)
