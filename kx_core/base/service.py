"""Engine calls in a child process: code that can abort the process (Triton's C++ on a
bad layout) or run without bound (an egglog schedule that never saturates) runs in a
service child, started on first use and again after it dies. A crash is ServiceDied, an
over-long call ServiceTimeout (the child is killed); the caller goes on.

    python kx_run.py kx_core.base.service --fd N     (the child: workers.start runs it)
"""

from __future__ import annotations

import argparse
import importlib
import os
import socket
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from kx_core.base import workers

# The caller hands the function itself; the child is sent its module and name and
# imports it. Only kx's own module-level functions: this layer names no module above it.
_OWN = "kx_core."


class ServiceDied(RuntimeError):
    """The child ended while it ran a call."""


class ServiceTimeout(RuntimeError):
    """A call ran past its time; the child was killed."""


class Service:
    """One child process that runs kx's functions, one call at a time."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()
        self.proc = None
        self.conn: Connection | None = None
        self.tmp = tempfile.mkdtemp(prefix=f"kx-{name}-")

    def _start(self) -> None:
        parent, child = socket.socketpair()
        try:
            self.proc = workers.start(
                "kx_core.base.service",
                ["--fd", str(child.fileno())],
                output=os.path.join(self.tmp, "output.txt"),
                cwd=self.tmp,
                pass_fds=(child.fileno(),),
                memory_limit_mb=workers.default_memory_limit_mb(),
            )
        finally:
            child.close()
        self.conn = Connection(parent.detach())

    def _dead(self, how: str) -> str:
        tail = [
            ln
            for ln in workers.read_tail(os.path.join(self.tmp, "output.txt"), 2000).splitlines()
            if ln.strip()
        ]
        self.proc = None
        return how + (f": {tail[-1]}" if tail else "")

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        name = _name_of(fn)
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            try:
                self.conn.send((name, args))
                if timeout is not None and not self.conn.poll(timeout):
                    workers.stop(self.proc)
                    self._dead("")
                    raise ServiceTimeout(f"ran past {timeout:g} s and was stopped")
                ok, value = self.conn.recv()
            except (EOFError, OSError) as e:
                code = self.proc.wait()
                how = f"signal {-code}" if code < 0 else f"exit status {code}"
                raise ServiceDied(self._dead(f"crashed ({how})")) from e
        if not ok:
            raise value
        return value


_SERVICES: dict[str, Service] = {}
_CREATE = threading.Lock()


def call(service: str, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
    """Run fn(*args) in the child `service` ("layout", "egraph"); its exceptions are
    raised here. `fn` is a module-level function of kx_core."""
    with _CREATE:  # two threads' first calls share one child
        if service not in _SERVICES:
            _SERVICES[service] = Service(service)
    return _SERVICES[service].call(fn, *args, timeout=timeout)


def _name_of(fn: Callable[..., Any]) -> str:
    """'kx_core.layout.linear:linear_bases_here' for that function."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if not fn.__module__.startswith(_OWN) or "." in fn.__qualname__ or "<" in name:
        raise ValueError(f"a service runs kx_core's module-level functions, not {name}")
    return name


def _resolve(name: str):
    module, fn = name.split(":")
    if not module.startswith(_OWN):
        raise ValueError(f"not one of kx's functions: {name}")
    return getattr(importlib.import_module(module), fn)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-service")
    ap.add_argument("--fd", type=int, required=True)
    args = ap.parse_args(argv)
    conn = Connection(args.fd)
    while True:
        try:
            name, call_args = conn.recv()
        except EOFError:
            return 0
        try:
            conn.send((True, _resolve(name)(*call_args)))
        except Exception as e:  # noqa: BLE001 - every failure goes back to the caller
            try:
                conn.send((False, e))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                conn.send((False, RuntimeError(f"{type(e).__name__}: {e}")))


if __name__ == "__main__":
    raise SystemExit(main())
