"""Every process the file starts ends with its job (issue 30, row 6), whatever session or
process group it puts itself in: the job's mark (KX_JOB_DIR in the environment every
descendant inherits) finds them after the worker's group is killed. A process that drops
the mark too (an empty environment, a program of another name: issue 52, row 12) is
found by its place in the worker's tree (base/process_tree.py: the worker reaps its
descendants' orphans)."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_testing import KERNELS

STARTS = {
    "start_new_session": (
        "import subprocess\n"
        "p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "open({pids!r}, 'a').write(f'{{p.pid}}\\n')\n"
    ),
    "setsid and a double fork": (
        "import os\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        open({pids!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        "        import time; time.sleep(300)\n"
        "    os._exit(0)\n"
        "import time; time.sleep(0.5)\n"
    ),
    "an empty environment and a new session": (
        "import subprocess\n"
        "p = subprocess.Popen(['sleep', '300'], env={{}}, start_new_session=True)\n"
        "open({pids!r}, 'a').write(f'{{p.pid}}\\n')\n"
    ),
    "a double fork into an empty environment and a new session": (
        "import os, subprocess\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    p = subprocess.Popen(['sleep', '300'], env={{}}, start_new_session=True)\n"
        "    open({pids!r}, 'a').write(f'{{p.pid}}\\n')\n"
        "    os._exit(0)\n"
        "import time; time.sleep(0.5)\n"
    ),
}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("cold", [True, False], ids=["cold", "warm-or-cold"])
@pytest.mark.parametrize("how", sorted(STARTS))
def test_a_process_in_its_own_session_ends_with_the_compile(tmp_path, how, cold):
    pids = tmp_path / "pids"
    path = tmp_path / "starts_a_daemon.py"
    path.write_text(STARTS[how].format(pids=str(pids)) + (KERNELS / "vector_add.py").read_text())
    result = compile_file(CompileRequest(str(path), target="cuda:90", cold=cold), use_cache=False)
    assert [k.status for k in result.kernels] == ["compiled"]
    started = [int(p) for p in pids.read_text().split()]
    assert started
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(p) for p in started):
        time.sleep(0.1)
    assert not [p for p in started if _alive(p)], "a process the file started outlived its compile"
    assert os.path.exists(path)


# a process out of every mark (an empty environment, its own session), then the file
# does not end by itself
ESCAPES = (
    "import subprocess\n"
    "p = subprocess.Popen(['sleep', '300'], env={{}}, start_new_session=True)\n"
    "open({pids!r}, 'a').write(f'{{p.pid}}\\n')\n"
)
CRASH = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
# idles rather than spins: a file that never ends need not hold a core for the timeout
# (the suite ran two of these beside the other worker's tests, 30 CPU seconds)
LOOP = "import time\nwhile True:\n    time.sleep(0.05)\n"


def _none_outlives(tmp_path, tail: str, kinds: tuple[str, ...], **fields) -> None:
    pids = tmp_path / "pids"
    path = tmp_path / "escapes.py"
    path.write_text(ESCAPES.format(pids=str(pids)) + tail)
    result = compile_file(CompileRequest(str(path), target="cuda:90", **fields), use_cache=False)
    assert any(d.kind in kinds for d in result.diagnostics), result.diagnostics
    started = [int(p) for p in pids.read_text().split()]
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(p) for p in started):
        time.sleep(0.1)
    assert not [p for p in started if _alive(p)], "a process the file started outlived its compile"


@pytest.mark.parametrize("cold", [True, False], ids=["cold", "warm-or-cold"])
def test_what_left_every_mark_ends_when_the_compile_times_out(tmp_path, cold):
    """Row 12 of issue 52: a worker stopped by the timeout has its tree ended while it
    lives (its orphans are its own: a subreaper)."""
    _none_outlives(tmp_path, LOOP, ("timeout",), cold=cold, timeout_s=15)


def test_what_left_every_mark_ends_when_a_warm_child_crashes(tmp_path, monkeypatch):
    """Row 12 of issue 52: a warm server's child that crashes hands its orphans to the
    server (a subreaper), which ends them. A server of the test's own, answering before
    the compile (the session's may not answer yet, and a cold worker's crash is no
    subreaper's: NOTES.md, not guarded)."""
    import tempfile

    from kx_core.compile.jobs import warm

    folder = tempfile.mkdtemp(prefix="kx-rt-")
    os.rmdir(folder)  # kx makes it itself
    monkeypatch.setenv("KX_RUNTIME_DIR", folder)
    proc = warm.launch(wait_s=180)
    try:
        assert warm.status() is not None, "the warm worker did not start"
        _none_outlives(tmp_path, CRASH, ("crash",), cold=False)
    finally:
        warm.stop()
        if proc is not None:
            proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
