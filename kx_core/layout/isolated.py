"""Triton's layout code in a process of its own. `to_linear_layout` and Gluon compiles
abort the whole process (SIGABRT) on some inputs (a rank that does not match the shape,
`versionMajor = 99`, 65536x65536); run in the app or the CLI that would take them down.
A service child, started on first use and again after it dies, runs these calls; a
crash is a LayoutError that says so, and the caller goes on.

    python kx_run.py kx_core.layout.isolated --fd N     (the child: workers.start runs it)
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import threading
from multiprocessing.connection import Connection
from typing import Any

from kx_core.base import workers

# What the child may be asked to run: name -> "module:function".
CALLS = {
    "linear_bases": "kx_core.layout.linear:linear_bases_here",
    "shared_bases": "kx_core.layout.shared:shared_bases_here",
    "triton_says_trivial": "kx_core.layout.gluon_oracle:triton_says_trivial_here",
}


class ServiceDied(RuntimeError):
    """The child ended while it ran a call (Triton aborted)."""


class _Service:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc = None
        self.conn: Connection | None = None
        self.tmp = tempfile.mkdtemp(prefix="kx-layout-")

    def _start(self) -> None:
        parent, child = socket.socketpair()
        try:
            self.proc = workers.start(
                "kx_core.layout.isolated",
                ["--fd", str(child.fileno())],
                output=os.path.join(self.tmp, "output.txt"),
                cwd=self.tmp,
                pass_fds=(child.fileno(),),
                memory_limit_mb=workers.default_memory_limit_mb(),
            )
        finally:
            child.close()
        self.conn = Connection(parent.detach())

    def call(self, name: str, *args: Any) -> Any:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            try:
                self.conn.send((name, args))
                ok, value = self.conn.recv()
            except (EOFError, OSError) as e:
                code = self.proc.wait()
                self.proc = None
                how = f"signal {-code}" if code < 0 else f"exit status {code}"
                tail = [
                    ln
                    for ln in workers.read_tail(os.path.join(self.tmp, "output.txt"), 2000).splitlines()
                    if ln.strip()
                ]
                raise ServiceDied(
                    f"Triton's layout code crashed ({how}){': ' + tail[-1] if tail else ''}"
                ) from e
        if not ok:
            raise value
        return value


_SERVICE: _Service | None = None


def call(name: str, *args: Any) -> Any:
    """Run CALLS[name](*args) in the service child; its exceptions are raised here."""
    global _SERVICE
    if _SERVICE is None:
        _SERVICE = _Service()
    return _SERVICE.call(name, *args)


def _resolve(name: str):
    import importlib

    module, fn = CALLS[name].split(":")
    return getattr(importlib.import_module(module), fn)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-layout-service")
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
