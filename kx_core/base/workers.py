"""The one way kx starts a worker process (compile, bench, check, pass playground,
layout and e-graph services): `start` launches an engine module through
launch/kx_run.py with kx's engine on the interpreter's path, in a process group of its
own, output to a file; `stop` kills the group; `read_tail` reads the output bounded;
`run` is the blocking form.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kx_core.base.paths import worker_env
from kx_core.base.process_tree import end_tree

LAUNCHER = str(Path(__file__).resolve().parent / "launch" / "kx_run.py")
# The most of a worker's output kept, in bytes (the tail): a file that prints 512 MiB
# must not cost kx 512 MiB.
OUTPUT_LIMIT = 64_000


def default_memory_limit_mb() -> int:
    """Three quarters of the machine's memory, in MiB ($KX_MEMORY_LIMIT_MB overrides)."""
    if env := os.environ.get("KX_MEMORY_LIMIT_MB"):
        return int(env)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0
    return int(total * 3 / 4) >> 20


def command(module: str, args: list[str], python: str | None = None) -> list[str]:
    return [python or sys.executable, LAUNCHER, module, *args]


def start(
    module: str,
    args: list[str],
    *,
    output: str,
    python: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    pass_fds: tuple[int, ...] = (),
    job_dir: str | None = None,
    memory_limit_mb: int | None = None,
) -> subprocess.Popen:
    """Start `python -m module args` the safe way (see the module docstring); stdout and
    stderr go to the file `output`."""
    env = worker_env(env)
    if job_dir:
        env["KX_JOB_DIR"] = job_dir
    if memory_limit_mb:
        env["KX_MEMORY_LIMIT_MB"] = str(memory_limit_mb)
    else:
        env.pop("KX_MEMORY_LIMIT_MB", None)
    with open(output, "wb") as out:
        proc = subprocess.Popen(
            command(module, args, python),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            pass_fds=pass_fds,
            env=env,
            cwd=cwd,
            start_new_session=True,  # its own group: stop() kills it and all it started
        )
    proc.kx_job_dir = job_dir  # stop() also ends what left the group (kill_job)
    return proc


def job_name(job_dir: str) -> str:
    """The process name a warm worker's job child takes (/proc/PID/comm, 15 characters
    at most): fork() passes it on and exec() replaces it, where the environment mark is
    the other way round, so the two together mark every descendant. Example:
    job_name("/tmp/kx-job-1a2b") -> "kxjob-5f1c0e9a2"."""
    import hashlib

    return "kxjob-" + hashlib.sha1(job_dir.encode()).hexdigest()[:9]


def name_this_process(name: str) -> None:
    """prctl(PR_SET_NAME): what /proc/self/comm says (Linux; elsewhere nothing)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)  # 15: PR_SET_NAME
    except (OSError, AttributeError):
        pass


def kill_job(job_dir: str, rounds: int = 3) -> int:
    """Kill every process carrying the job's mark however it left the worker's process
    group (`setsid`, `start_new_session=True`, a double fork): KX_JOB_DIR=job_dir in its
    environment, which everything the worker execs inherits, or the job's process name
    (job_name), which everything a warm worker's child forks inherits (its environment
    block is the server's, whatever the child set later). Returns how many were killed.
    Repeated: a process may fork while the others die."""
    mark = f"KX_JOB_DIR={job_dir}".encode() + b"\0"
    name = job_name(job_dir)
    killed = 0
    for _ in range(rounds):
        found = 0
        for pid in _pids():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    marked = mark in f.read() + b"\0"
                if not marked:
                    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
                        marked = f.read().strip() == name
            except OSError:
                continue
            if marked and pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                    found += 1
                except OSError:
                    pass
        killed += found
        if not found:
            break
    return killed


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:  # no /proc (not Linux): the process group is all kx can end
        return []


# The signal that makes a worker's faulthandler print its stack before a timeout kills
# it. Not SIGUSR1: LLVM takes SIGUSR1 for its own "info" handler the first time Triton
# compiles in the process (seen with strace: faulthandler's handler replaced), after
# which a file stuck past its first compile timed out with no line. A real-time signal
# is one LLVM and Python leave alone.
DUMP_SIGNAL = signal.SIGRTMIN + 4 if hasattr(signal, "SIGRTMIN") else getattr(signal, "SIGUSR1", None)


def stop(proc: subprocess.Popen, dump_first: bool = False, grace_s: float = 0.5) -> None:
    """Kill the worker's whole process group (after DUMP_SIGNAL, which makes
    faulthandler print its stack, when `dump_first`); also what it left behind after a
    normal exit."""
    try:
        if dump_first and proc.poll() is None and DUMP_SIGNAL is not None:
            os.kill(proc.pid, DUMP_SIGNAL)
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        if proc.poll() is None:  # while it lives its tree holds all it started (process_tree)
            end_tree(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    if getattr(proc, "kx_job_dir", None):
        kill_job(proc.kx_job_dir)


def read_tail(path: str, limit: int = OUTPUT_LIMIT) -> str:
    """The last `limit` bytes of a file, as text."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            data = f.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class WorkerRun:
    """A finished worker: its exit status (negative: the signal), whether it ran out of
    time, the tail of its output, and how long it took."""

    returncode: int
    timed_out: bool
    output: str
    seconds: float


def run(
    module: str, args: list[str], timeout: float, *, env: dict[str, str] | None = None, cwd: str | None = None
) -> WorkerRun:
    """Start a worker and wait for it (killed after `timeout` seconds)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kx-run-") as tmp:
        output = os.path.join(tmp, "output.txt")
        proc = start(module, args, output=output, env=env, cwd=cwd or tmp)
        try:
            proc.wait(timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        stop(proc)
        return WorkerRun(proc.returncode, timed_out, read_tail(output), time.perf_counter() - started)


@dataclass(frozen=True)
class JsonRun:
    """A worker that writes its answer as JSON to `--out FILE`: the answer, or why none."""

    value: Any  # the decoded JSON, None when the worker wrote none
    timed_out: bool = False
    how: str = ""  # without an answer: "signal 6", "exit 1"
    tail: str = ""  # its last lines of output


def run_json(module: str, args: list[str], timeout: float, *, env: dict[str, str] | None = None) -> JsonRun:
    """`python -m module ARGS --out FILE` in a fresh folder (paths in ARGS must be
    absolute); the JSON it wrote. The pass playground, the LLVM steps and the CPU bench
    run their workers this way."""
    import json

    with tempfile.TemporaryDirectory(prefix="kx-json-") as tmp:
        out = os.path.join(tmp, "out.json")
        done = run(module, [*args, "--out", out], timeout, env=env, cwd=tmp)
        if done.timed_out:
            return JsonRun(None, timed_out=True)
        if not os.path.exists(out):
            how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
            return JsonRun(None, how=how, tail="\n".join(done.output.strip().splitlines()[-6:]))
        with open(out, encoding="utf-8") as f:
            return JsonRun(json.load(f))


def write_and_exit(out: str, result) -> None:
    """A worker's last act: its result (a Jsonable) to `out` whole or not at all (a
    temporary file, then os.replace), and exit at once (os._exit: no atexit handlers
    of the user's file, no CUDA teardown to hang on)."""
    import json

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
    os.replace(tmp, out)
    sys.stdout.flush()
    os._exit(0)
