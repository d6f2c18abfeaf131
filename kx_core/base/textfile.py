"""Reading a text input kx was given (an .mlir file, TTGIR, an .egg program), or saying
in one line why it cannot: missing, a folder, no permission, binary, not UTF-8."""

from __future__ import annotations

import os
import stat

# The most any text input may hold: a FIFO or /dev/zero given as a file is refused
# before it is read, and a huge file is refused rather than read into memory.
MAX_INPUT_BYTES = 64 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def describe_mode(mode: int) -> str:
    """What a file of this st_mode is, in words: 'a FIFO (named pipe)', 'a regular file'."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((words for test, words in _KINDS if test(mode)), "a special file")


class InputFileError(ValueError):
    """A text input that cannot be read; the message names the file and the reason."""


def read_bytes(
    path: str, error: type[ValueError] = InputFileError, max_bytes: int = MAX_INPUT_BYTES
) -> bytes:
    """The bytes of a regular file that should hold text; `error` says why not
    (unreadable, not a regular file, over `max_bytes`, or binary: a NUL byte in its
    first 8 KiB). A FIFO is opened without blocking, so nothing waits for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}") from e
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"{path} is {describe_mode(mode)}, not a file kx can read")
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise error(
                f"{os.path.basename(path)} is {size / 1e6:.1f} MB; inputs over "
                f"{max_bytes / 1e6:.0f} MB are not read"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}") from e
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew while read
        raise error(f"{os.path.basename(path)} is over {max_bytes / 1e6:.0f} MB: not read")
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
