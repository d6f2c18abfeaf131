"""The warm server as a trusted local service (issue 30, row 1 and row 7): its folder is
kx's own (made 0700, checked on every use), its peer is this user, every read has a
deadline, a client hanging up costs it nothing, and a server that goes away mid-job is
not the user's crash. Each runs in a runtime folder of its own (KX_RUNTIME_DIR)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs import warm
from kx_testing import KERNELS

NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="another user is played by root dropping to nobody")


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """A runtime folder of the test's own (short: socket paths are ~100 bytes at most)."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="kx-rt-")
    os.rmdir(folder)  # kx makes it itself
    monkeypatch.setenv("KX_RUNTIME_DIR", folder)
    yield folder
    subprocess.run(["rm", "-rf", folder], check=False)


@pytest.fixture
def server(runtime):
    proc = warm.launch(wait_s=180)
    assert warm.status() is not None, "the warm worker did not start"
    yield proc
    warm.stop()
    if proc is not None:
        proc.wait(30)


def _vector_add(tmp_path, sleep_s: float = 0.0):
    path = tmp_path / "vector_add.py"
    text = (KERNELS / "vector_add.py").read_text()
    if sleep_s:
        text = f"import time\ntime.sleep({sleep_s})\n" + text
    path.write_text(text)
    return str(path)


def test_the_runtime_folder_is_made_private(runtime):
    assert warm.socket_dir() == runtime
    assert os.stat(runtime).st_mode & 0o777 == 0o700


@pytest.mark.parametrize("how", ["open to others", "a symlink", "a file"])
def test_a_folder_that_is_not_the_users_alone_is_refused_and_the_compile_runs_cold(runtime, tmp_path, how):
    if how == "open to others":
        os.mkdir(runtime)
        os.chmod(runtime, 0o777)
    elif how == "a symlink":
        os.symlink(tmp_path, runtime)
    else:
        open(runtime, "w").close()
    assert warm.launch(wait_s=0) is None and "no warm server started" in warm.last_refusal
    result = compile_file(CompileRequest(_vector_add(tmp_path), target="cuda:90"), use_cache=False)
    assert result.ok and [k.status for k in result.kernels] == ["compiled"]
    notes = [d.message for d in result.diagnostics if d.kind == "tool"]
    assert notes and "the warm server was not used" in notes[0] and "fresh worker" in notes[0]


@as_root
def test_a_folder_another_user_made_first_is_refused(runtime, tmp_path):
    os.mkdir(runtime, 0o700)
    os.chown(runtime, NOBODY, NOBODY)
    result = compile_file(CompileRequest(_vector_add(tmp_path), target="cuda:90"), use_cache=False)
    assert result.ok
    assert any("belongs to another user (uid 65534)" in d.message for d in result.diagnostics)


@as_root
def test_a_server_of_another_user_receives_nothing(runtime, tmp_path):
    """Row 1: a fake server in kx's folder, run by another user: the client sees its
    uid and sends it neither environment nor descriptors."""
    warm.socket_dir()
    path = warm.socket_path()
    got = tmp_path / "got"
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fake server: bound by root, listening as nobody
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            s.listen(4)
            os.write(ready_w, b"1")
            s.settimeout(30)
            while True:
                conn, _ = s.accept()
                conn.settimeout(2)
                try:
                    data = conn.recv(1 << 16)
                except OSError:
                    data = b""
                if data:
                    os.write(os.open(str(got), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666), data)
                conn.close()
        finally:
            os._exit(0)
    os.close(ready_w)
    try:
        os.read(ready_r, 1)
        result = compile_file(CompileRequest(_vector_add(tmp_path), target="cuda:90"), use_cache=False)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert result.ok and not got.exists()
    assert any("another user's (uid 65534)" in d.message for d in result.diagnostics)


def test_a_client_that_sends_nothing_does_not_block_the_server(server):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(warm.socket_path())
    try:
        started = time.monotonic()
        assert warm.status() is not None  # answered while the silent client waits
        assert time.monotonic() - started < warm.HEADER_DEADLINE_S
    finally:
        silent.close()


def test_a_client_that_hangs_up_before_the_pid_costs_the_server_nothing(server, tmp_path):
    out = os.open(tmp_path / "out.txt", os.O_WRONLY | os.O_CREAT)
    r, w = os.pipe()
    header = {"op": "module", "module": "kx_core.base.version", "args": [], "env": dict(os.environ)}
    header |= {"cwd": str(tmp_path), "job_dir": str(tmp_path / "job"), "client_pid": os.getpid()}
    for _ in range(5):  # before the fork, or while the server answers
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(warm.socket_path())
        socket.send_fds(s, [json.dumps(header).encode() + b"\n"], [out])
        s.close()
    os.close(out)
    os.close(r)
    os.close(w)
    time.sleep(1)
    info = warm.status()
    assert info is not None and info["pid"] == server.pid


def test_a_server_stopped_mid_job_is_not_the_files_crash(server, tmp_path):
    """Row 7: the server stops while the file runs: the compile is done again cold and
    says so; no crash is blamed on the file."""
    file = _vector_add(tmp_path, sleep_s=4)
    done = {}
    thread = threading.Thread(
        target=lambda: done.update(r=compile_file(CompileRequest(file, target="cuda:90"), use_cache=False))
    )
    thread.start()
    deadline = time.time() + 60
    while time.time() < deadline and warm.status()["running"] == 0:
        time.sleep(0.1)
    assert warm.stop()
    thread.join(300)
    result = done["r"]
    assert not [d for d in result.diagnostics if d.kind == "crash"]
    assert result.ok and [k.status for k in result.kernels] == ["compiled"]
    assert any("the warm server went away" in d.message for d in result.diagnostics)


def test_a_hung_up_client_ends_its_job_at_once(server, tmp_path):
    """The server ends a job whose client hung up (its connection closed), whatever the
    child's own watch of the client's pid."""
    file = tmp_path / "forever.py"
    file.write_text("while True:\n    pass\n")
    script = (
        "from kx_core.compile import CompileRequest, compile_file; "
        f"compile_file(CompileRequest({str(file)!r}, timeout_s=120), use_cache=False)"
    )
    p = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ))
    deadline = time.time() + 60
    while time.time() < deadline and warm.status()["running"] == 0:
        time.sleep(0.1)
    assert warm.status()["running"] == 1
    p.kill()
    p.wait()
    deadline = time.time() + 5
    while time.time() < deadline and warm.status()["running"]:
        time.sleep(0.1)
    assert warm.status()["running"] == 0
