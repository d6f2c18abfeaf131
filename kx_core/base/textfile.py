"""Reading a text input kx was given (an .mlir file, TTGIR, an .egg program), or saying
in one line why it cannot: missing, a folder, no permission, binary, not UTF-8."""

from __future__ import annotations


class InputFileError(ValueError):
    """A text input that cannot be read; the message names the file and the reason."""


def read_text(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputFileError(f"cannot read {path}: {e.strerror or e}") from e
    if b"\x00" in data[:8192]:
        raise InputFileError(f"{path} is a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputFileError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} on line {line})") from e
