"""A worker's ties to the kx process that started it (the worker side of workers.py).

- It dies with its parent: the kernel sends SIGTERM when the parent dies (Linux
  PR_SET_PDEATHSIG) and a watchdog thread notices the parent's pid change; either way the
  worker removes its job folder (KX_JOB_DIR) and kills its whole process group: the
  forked autotune children and every process the user's file started.
- It may run at a lower CPU priority (KX_WORKER_NICE, an absolute niceness: the app sets
  it so that a worker importing torch and Triton on a two-core machine does not take the
  CPU from the window's thread; with a core to spare it changes nothing).
- Its address space is limited (KX_MEMORY_LIMIT_MB): running out is a MemoryError in
  the user's file, which the capture reports as `out-of-memory` at its line, rather
  than a machine thrashing until the timeout.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


def _die(*_args: object) -> None:
    from kx_core.base.process_tree import end_own_tree

    end_own_tree()  # the whole tree, whatever left the group and dropped the marks
    job = os.environ.get("KX_JOB_DIR")
    if job:
        shutil.rmtree(job, ignore_errors=True)
        from kx_core.base.workers import kill_job

        kill_job(job)  # what left the process group (setsid, a new session) goes too
    try:
        os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(1)


def _watch(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            _die()


def watch(pid: int) -> None:
    """Die (job folder removed, process group killed) when process `pid` ends: a warm
    worker's child watches the kx that asked for it, not its parent, the server."""

    def loop() -> None:
        while True:
            time.sleep(0.5)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                _die()
            except PermissionError:
                pass

    threading.Thread(target=loop, name="kx-lifeline", daemon=True).start()


def lower_priority(nice: int) -> None:
    """Run at niceness `nice` at least (absolute, so a warm server's children, which
    inherit both the variable and the niceness, stay where they are)."""
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        if nice > now:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except (OSError, AttributeError):  # not where the platform has no priorities
        pass


def hold() -> None:
    """Tie this process to its parent and apply the memory limit (see the docstring);
    KX_NO_LIFELINE (a detached `kx daemon`) keeps only the memory limit."""
    limit = os.environ.get("KX_MEMORY_LIMIT_MB")
    if limit:
        set_memory_limit(int(limit))
    if nice := os.environ.get("KX_WORKER_NICE"):
        lower_priority(int(nice))
    if os.environ.pop("KX_NO_LIFELINE", None):
        return
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass
    signal.signal(signal.SIGTERM, _die)
    if os.getppid() != parent:  # the parent died before the request took
        _die()
    threading.Thread(target=_watch, args=(parent,), name="kx-lifeline", daemon=True).start()


def set_memory_limit(megabytes: int) -> None:
    import resource

    size = megabytes * (1 << 20)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    except (ValueError, OSError):
        pass
