"""Reading a text input kx was given (an .mlir file, TTGIR, an .egg program), or saying
in one line why it cannot: missing, a folder, no permission, binary, not UTF-8."""

from __future__ import annotations

import os


class InputFileError(ValueError):
    """A text input that cannot be read; the message names the file and the reason."""


def read_bytes(path: str, error: type[ValueError] = InputFileError) -> bytes:
    """The bytes of a file that should hold text; `error` says why not (unreadable, or
    binary: a NUL byte in its first 8 KiB)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}") from e
    if b"\x00" in data[:8192]:
        raise error(f"{os.path.basename(path)} is a binary file (it contains NUL bytes), not text")
    return data


def read_text(path: str) -> str:
    """The file's text, UTF-8 (a byte-order mark dropped); InputFileError says why not."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputFileError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} on line {line})") from e


def text_or_empty(path: str) -> str:
    """The file's text, or "" when it cannot be read (a display that shows lines when it
    has them: the hot lines of a file since moved)."""
    try:
        return read_text(path)
    except InputFileError:
        return ""
