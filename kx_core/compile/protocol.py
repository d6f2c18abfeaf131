"""The worker's messages to its parent: one JSON object per line on a dedicated pipe.

The user's own stdout/stderr stay free for the user's prints. Messages are written as
they happen, so a worker that is killed or crashes still leaves every kernel it captured.

Message types:
  {"type": "target", "target": {...}, "triton_version": "3.6.0"}
  {"type": "progress", "message": "compiling add_kernel"}
  {"type": "kernel", "key": "<hash>/<config>", "kernel": {CompiledKernel}}
  {"type": "relaunch", "key": "<hash>/<config>"}      same compiled kernel launched again
  {"type": "diagnostic", "diagnostic": {Diagnostic}}
  {"type": "timing", "name": "file_s", "seconds": 1.2}     summed per name
  {"type": "done"}
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any


class MessageWriter:
    """Writes messages to a file descriptor, one line each, flushed at once."""

    def __init__(self, fd: int) -> None:
        self._file = os.fdopen(fd, "w", buffering=1, encoding="utf-8", closefd=False)
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, default=str)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()


class ListWriter:
    """Collects messages in memory (forked autotune children, tests)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        # Round-trip through JSON so the parent sees exactly what a pipe would carry.
        self.messages.append(json.loads(json.dumps(message, default=str)))


def parse_lines(buffer: bytes) -> tuple[list[dict[str, Any]], bytes]:
    """Split complete lines off a byte buffer: (messages, remaining partial line)."""
    *lines, rest = buffer.split(b"\n")
    messages = []
    for line in lines:
        if line.strip():
            try:
                messages.append(json.loads(line))
            except json.JSONDecodeError:
                # A torn line can only come from a worker killed mid-write; skip it.
                continue
    return messages, rest
