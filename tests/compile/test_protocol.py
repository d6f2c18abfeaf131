"""The worker's messages: one dataclass each, what the pipe carries is what the parent
reads back, and the protocol's documentation lists every one of them."""

from __future__ import annotations

import json
import os
import typing
from dataclasses import fields

from kx_core.compile.wire import protocol


def _example(cls):
    values = {}
    for f in fields(cls):
        kind = typing.get_type_hints(cls)[f.name]
        values[f.name] = {str: "k", float: 1.5, bool: True}.get(kind, [] if "list" in str(kind) else {"a": 1})
    return cls(**values)


def test_every_message_survives_the_pipe_and_is_documented():
    read, write = os.pipe()
    writer = protocol.MessageWriter(write)
    sent = [_example(cls) for cls in protocol.MESSAGES.values()]
    for m in sent:
        writer.send(m)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    received, rest = protocol.parse_lines(data)
    assert received == sent and rest == b""
    for t in protocol.MESSAGES:
        assert f"{{'type': '{t}'" in protocol.__doc__


def test_lines_of_another_kind_are_skipped_not_misread():
    lines = [
        {"type": "kernel", "key": "a"},  # a field missing
        {"type": "no-such-message"},
        ["not", "an", "object"],
        {"type": "timing", "name": "file_s", "seconds": 0.5, "extra": 1},  # an extra field: read
    ]
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines) + b'{"type": "do'
    messages, rest = protocol.parse_lines(data)
    assert messages == [protocol.Timing("file_s", 0.5)] and rest == b'{"type": "do'
