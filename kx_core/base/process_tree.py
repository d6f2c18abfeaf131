"""A worker's process tree, which nothing it starts can leave (issue 52, item 4).

The marks workers.kill_job looks for (KX_JOB_DIR in the environment, the job's process
name) are the process's own to drop: a child started with an empty environment exec's
a program of another name, and after `setsid` it is in no group of the worker's either.
Its parent is what it cannot choose. A worker is made a child subreaper
(prctl PR_SET_CHILD_SUBREAPER, Linux 3.4+, no privilege needed): whatever its
descendants orphan (a double fork, a daemon's parent exiting) is re-parented to the
worker instead of init, so while the worker lives every process the file started is in
its tree, found by walking /proc's parent links. `end_tree` freezes that tree with
SIGSTOP until it stops growing (a stopped process forks no more), then kills it.

Not used where there is no /proc or no prctl (other systems): the process group and the
marks are all kx has there. A cgroup would also hold what outlives a crashed worker, but
an unprivileged user cannot make one on most machines.
"""

from __future__ import annotations

import os
import signal

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans; False where the system
    has no such thing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """Every process's parent, read from /proc/PID/stat (empty without /proc).
    A stat line: "1234 (python3) S 1200 1234 ..." (the name may hold spaces and
    parentheses, so the fields are read after its last ')')."""
    parents = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            parents[int(name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue  # it ended meanwhile
    return parents


def children_of(pid: int) -> set[int]:
    """The processes whose parent is `pid`, now."""
    return {child for child, parent in _parents().items() if parent == pid}


def descendants(root: int) -> set[int]:
    """Every process below `root` in the parent links, now."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def end_tree(root: int, rounds: int = 50) -> int:
    """Kill every descendant of `root` (not `root` itself); returns how many. Each round
    stops what it finds, until a round finds nothing new, then kills them all: a process
    that forks while the others die is stopped before it can fork again, and what a
    killed process orphans is re-parented to `root` (a subreaper), where the next round
    finds it."""
    killed: set[int] = set()
    for _ in range(rounds):
        stopped: set[int] = set()
        while new := descendants(root) - stopped - killed:
            for pid in new:
                _signal(pid, signal.SIGSTOP)
            stopped |= new
        if not stopped:
            break
        for pid in stopped:
            _signal(pid, signal.SIGKILL)
        killed |= stopped
    return len(killed)


def end_own_tree() -> int:
    """Kill every descendant of this process and reap what were its children (a worker's
    last act before it exits: once it is gone, its orphans would go to init)."""
    count = end_tree(os.getpid())
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    return count


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:  # it ended meanwhile, or is not ours to signal
        pass
