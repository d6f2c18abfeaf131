"""The app's one runner of background work (in the spirit of napari's `create_worker`):
`jobs.submit(key, compute, apply)` runs `compute()` on a worker thread and `apply(value)`
on the window's thread; a newer job of the same key supersedes an older one, whose value
is then dropped (a click on another TTGIR line while the first layout is computed shows
the second, never the first after it).

    job = self.jobs.submit("layout", lambda: ownership(linear_bases(a, s)), self._show)
    job.done, job.ok          # after apply: ok is apply's answer (False: a message shown)

`compute` must not touch widgets; what it needs from them is read before `submit`. An
exception in `compute` goes to `on_error` (on the window's thread) or, without one, is
the job's `error` with `ok` False.
"""

from __future__ import annotations

import itertools
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

_WORKERS = 2  # the window's work is a few panes' computations, each at most one at a time
_queue: queue.Queue | None = None


def _pool() -> queue.Queue:
    """The jobs' threads: daemons, so that closing the app never waits on a computation
    nobody will see (a ThreadPoolExecutor's threads are joined at exit)."""
    global _queue
    if _queue is None:
        _queue = queue.Queue()
        for i in range(_WORKERS):
            threading.Thread(target=_work, args=(_queue,), name=f"kx-job-{i}", daemon=True).start()
    return _queue


def _work(q: queue.Queue) -> None:
    while True:
        q.get()()


class Job:
    """One submitted computation; `ok` is apply's answer once `done`."""

    def __init__(self, key: str, number: int) -> None:
        self.key = key
        self.number = number
        self.done = False
        self.ok: bool | None = None
        self.value: Any = None
        self.error: BaseException | None = None
        self.superseded = False

    def __bool__(self) -> bool:  # `assert pane.show_layout(...)` reads as before, once done
        return bool(self.ok)

    @classmethod
    def finished_now(cls, key: str, ok: bool) -> Job:
        """A job decided before any work (bad input answered at once)."""
        job = cls(key, -1)
        job.done, job.ok = True, ok
        return job


class _Relay(QObject):
    """Brings every job's result to the window's thread. It lives as long as the app: a
    worker thread emitting a signal of a pane's own Jobs raced the pane's deletion (the
    C++ object gone between the check and the emit crashed the process, not a
    RuntimeError), so workers emit here, and the result goes to its Jobs only if that
    one is still alive when it arrives."""

    computed = Signal(object, object, object, object)  # weakref to the Jobs, job, value, error

    def __init__(self) -> None:
        super().__init__()
        self.computed.connect(self._deliver)

    def _deliver(self, ref: weakref.ref, job: Job, value: Any, error: BaseException | None) -> None:
        jobs = ref()
        if jobs is not None and shiboken6.isValid(jobs):
            jobs._finish(job, value, error)


_relay: _Relay | None = None


def _the_relay() -> _Relay:
    """The one relay, made by the first Jobs (on the window's thread, where it delivers)."""
    global _relay
    if _relay is None or not shiboken6.isValid(_relay):
        _relay = _Relay()
    return _relay


class Jobs(QObject):
    """A pane's background jobs; results come back through the relay's queued signal."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._latest: dict[str, int] = {}
        self._apply: dict[int, tuple[Callable[[Any], bool | None], Callable | None]] = {}
        self._numbers = itertools.count()
        self._relay = _the_relay()
        self._ref = weakref.ref(self)

    def submit(
        self,
        key: str,
        compute: Callable[[], Any],
        apply: Callable[[Any], bool | None],
        on_error: Callable[[BaseException], bool | None] | None = None,
    ) -> Job:
        job = Job(key, next(self._numbers))
        self._latest[key] = job.number
        self._apply[job.number] = (apply, on_error)
        relay, ref = self._relay, self._ref  # (not self: the pane may be gone when it ends)

        def run() -> None:
            try:
                value, error = compute(), None
            except Exception as e:  # noqa: BLE001 - every failure goes back to the window's thread
                value, error = None, e
            relay.computed.emit(ref, job, value, error)

        _pool().put(run)
        return job

    def drop(self, key: str) -> None:
        """What is in flight for `key` is not shown when it arrives (it is superseded, as
        by a newer job): what it was for is gone from the screen."""
        self._latest[key] = next(self._numbers)

    def busy(self, key: str | None = None) -> bool:
        keys = [key] if key else list(self._latest)
        return any(self._latest.get(k) in self._apply for k in keys)

    def _finish(self, job: Job, value: Any, error: BaseException | None) -> None:
        apply, on_error = self._apply.pop(job.number)
        job.value, job.error = value, error
        if self._latest.get(job.key) != job.number:
            job.superseded, job.ok = True, False
        elif error is not None:
            job.ok = bool(on_error(error)) if on_error else False
        else:
            answer = apply(value)
            job.ok = True if answer is None else bool(answer)
        job.done = True
