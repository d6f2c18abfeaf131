"""Every process the file starts ends with its job (issue 30, row 6), whatever session or
process group it puts itself in: the job's mark (KX_JOB_DIR in the environment every
descendant inherits) finds them after the worker's group is killed."""

from __future__ import annotations

import os
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
