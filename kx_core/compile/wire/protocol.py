"""The worker's messages to its parent: one JSON object per line on a dedicated pipe.

The user's own stdout/stderr stay free for the user's prints. Messages are written as
they happen, so a worker that is killed or crashes still leaves every kernel it captured.
Each message is one frozen dataclass below; on the pipe it is its fields and `"type"`.
The list of them (this docstring's end) is generated from the classes.

Message types:
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Message:
    TYPE: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        # shallow: a kernel's record is already JSON, and large
        return {"type": self.TYPE, **{f.name: getattr(self, f.name) for f in fields(self)}}


@dataclass(frozen=True)
class TargetReport(Message):
    """the target the worker compiles for, and its Triton"""

    TYPE: ClassVar[str] = "target"
    target: dict[str, Any]
    triton_version: str


@dataclass(frozen=True)
class Progress(Message):
    """what the worker is doing ('compiling add_kernel')"""

    TYPE: ClassVar[str] = "progress"
    message: str


@dataclass(frozen=True)
class KernelCaptured(Message):
    """one compiled (or failed, pruned, not-launched) kernel: its CompiledKernel record"""

    TYPE: ClassVar[str] = "kernel"
    key: str  # "<hash>/<config>"
    kernel: dict[str, Any]


@dataclass(frozen=True)
class StageEarly(Message):
    """the first kernel's first IR stage while Triton compiles the rest (status 'compiling';
    shown until a kernel has compiled, never part of a result)"""

    TYPE: ClassVar[str] = "stage-early"
    kernel: dict[str, Any]


@dataclass(frozen=True)
class Launched(Message):
    """the file launched a compiled kernel itself, with this grid"""

    TYPE: ClassVar[str] = "launch"
    key: str
    grid: list[Any]
    site: dict[str, Any] | None = None  # a LaunchSite's JSON: where the launch was called


@dataclass(frozen=True)
class Chosen(Message):
    """the autotune config the capture launched, and why"""

    TYPE: ClassVar[str] = "chosen"
    key: str
    note: str


@dataclass(frozen=True)
class Relaunched(Message):
    """the same compiled kernel launched again (`first`: its first launch, already counted)"""

    TYPE: ClassVar[str] = "relaunch"
    key: str
    first: bool = False
    site: dict[str, Any] | None = None  # a LaunchSite's JSON, where the capture knows it


@dataclass(frozen=True)
class DiagnosticReport(Message):
    """one Diagnostic"""

    TYPE: ClassVar[str] = "diagnostic"
    diagnostic: dict[str, Any]


@dataclass(frozen=True)
class Sources(Message):
    """the user's modules the run imported, the files it read, the environment variables
    it looked up, the folders it listed and whether it read the whole environment (the
    result cache checks them all)"""

    TYPE: ClassVar[str] = "sources"
    files: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    whole_env: bool = False


@dataclass(frozen=True)
class Definitions(Message):
    """the kernels a library module defines (library mode)"""

    TYPE: ClassVar[str] = "definitions"
    definitions: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Timing(Message):
    """seconds a phase took (summed per name by the parent)"""

    TYPE: ClassVar[str] = "timing"
    name: str
    seconds: float


@dataclass(frozen=True)
class Done(Message):
    """the worker finished (a worker without it was killed or crashed)"""

    TYPE: ClassVar[str] = "done"


MESSAGES: dict[str, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        TargetReport,
        Progress,
        KernelCaptured,
        StageEarly,
        Launched,
        Chosen,
        Relaunched,
        DiagnosticReport,
        Sources,
        Definitions,
        Timing,
        Done,
    )
}
__doc__ += "\n".join(
    f"  {{{', '.join([repr('type') + ': ' + repr(t)] + [repr(f.name) for f in fields(cls)])}}}  {cls.__doc__}"
    for t, cls in MESSAGES.items()
)


def decode(data: Any) -> Message | None:
    """The message a decoded JSON line holds; None for anything else (an unknown type or
    missing fields: a line of another version of kx, or torn)."""
    if not isinstance(data, dict):
        return None
    cls = MESSAGES.get(data.get("type"))
    if cls is None:
        return None
    names = {f.name for f in fields(cls)}
    try:
        return cls(**{k: v for k, v in data.items() if k in names})
    except TypeError:
        return None


class MessageWriter:
    """Writes messages to a file descriptor, one line each, flushed at once."""

    def __init__(self, fd: int) -> None:
        self._file = os.fdopen(fd, "w", buffering=1, encoding="utf-8", closefd=False)
        self._lock = threading.Lock()

    def send(self, message: Message) -> None:
        line = json.dumps(message.to_json(), default=str)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()


class ListWriter:
    """Collects messages in memory (forked autotune children, tests)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def send(self, message: Message) -> None:
        # Round-trip through JSON so the parent sees exactly what a pipe would carry.
        self.messages.append(decode(json.loads(json.dumps(message.to_json(), default=str))))


def parse_lines(buffer: bytes) -> tuple[list[Message], bytes]:
    """Split complete lines off a byte buffer: (messages, remaining partial line)."""
    *lines, rest = buffer.split(b"\n")
    messages = []
    for line in lines:
        if line.strip():
            try:
                message = decode(json.loads(line))
            except json.JSONDecodeError:
                # A torn line can only come from a worker killed mid-write; skip it.
                continue
            if message is not None:
                messages.append(message)
    return messages, rest
