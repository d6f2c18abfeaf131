"""The worker process: `python -m kx_core.compile.jobs.worker --request FILE --fd N`.

FILE holds the request as the parent resolved it (model/resolved_request.py): its target,
the board the capture stands for and its Triton are read from it, never derived again.

One per compile job. It runs the user's file, so a hang, a crash or a segfault inside
Triton costs this process, never the app. Messages go to fd N (see protocol.py);
faulthandler writes a Python stack to stderr on a fatal signal, and on
workers.DUMP_SIGNAL (which the parent sends before killing a job that ran out of time), so the parent can say which
line of the user's file was running.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys

from kx_core.compile.wire.protocol import MessageWriter
from kx_core.model.resolved_request import ResolvedRequest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kx-worker")
    parser.add_argument("--request", required=True, help="JSON file with the ResolvedRequest")
    parser.add_argument("--fd", type=int, required=True, help="file descriptor for messages")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)

    with open(args.request, encoding="utf-8") as f:
        resolved = ResolvedRequest.from_json(json.load(f))
    run_job(resolved, args.fd, args.jobs)


def run_job(resolved: ResolvedRequest, fd: int, jobs: int) -> None:
    """One capture, its messages to `fd`; never returns (the process exits). Run by the
    cold worker above and by each child of the warm worker (warm.py)."""
    from kx_core.base import process_tree
    from kx_core.compile.capturing import capture_state

    # Whatever the file's processes orphan comes back to this process, not init, so the
    # tree ended below holds every process the file started (base/process_tree.py).
    process_tree.become_subreaper()
    # A copy of the output's descriptor: the capture points fd 2 at a file of its own
    # while Triton compiles (its pass dumps), and a stack dumped then (a file stuck in a
    # launch's grid function) would land there and be lost.
    dumps = capture_state.DUMPS = os.fdopen(os.dup(2), "w", buffering=1)
    faulthandler.enable(file=dumps, all_threads=True)
    from kx_core.base.workers import DUMP_SIGNAL

    if DUMP_SIGNAL is not None:
        faulthandler.register(DUMP_SIGNAL, file=dumps, all_threads=True)
    # Processes the user's file starts (exec'd) must not hold the message pipe open: the
    # parent reads until the worker exits, and a held pipe would look like a live worker.
    os.set_inheritable(fd, False)
    writer = MessageWriter(fd)

    from kx_core.compile.capturing.capture import capture

    capture(resolved, writer, max(1, jobs))
    sys.stdout.flush()
    sys.stderr.flush()
    # nothing the file started outlives its compile, whatever its environment or session
    process_tree.end_own_tree()
    # Skip interpreter teardown: torch and Triton objects can take seconds to destroy
    # and nothing after "done" matters.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
