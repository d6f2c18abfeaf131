"""Reading a kernel file for display and compile, with a clear reason when it can't be.

Directories, missing files, binary files, text that is not UTF-8 and files too large to
be a kernel file are refused with a message that says which and where.
"""

from __future__ import annotations

import errno
import os

from kx_core.base.textfile import read_bytes

# A kernel file is a few hundred lines; 2 MB is far past any real one and still opens
# instantly. Larger files are refused rather than frozen on.
MAX_KERNEL_FILE_BYTES = 2 * 1024 * 1024


class KernelFileError(ValueError):
    """The file cannot be opened as a kernel file; the message says why."""


def read_kernel_bytes(path: str, max_bytes: int = MAX_KERNEL_FILE_BYTES) -> bytes:
    """The bytes of a kernel file, for the app and the command line alike: a regular
    file of at most `max_bytes`. Raises KernelFileError with a readable reason."""
    if os.path.isdir(path):
        raise KernelFileError(f"{path} is a directory, not a kernel file")
    if not os.path.lexists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    try:
        return read_bytes(path, KernelFileError, max_bytes)
    except KernelFileError as e:
        raise KernelFileError(str(e).replace("inputs over", "kernel files over")) from None


def read_kernel_file(path: str, max_bytes: int = MAX_KERNEL_FILE_BYTES) -> str:
    """The file's text. Raises KernelFileError with a readable reason."""
    try:
        data = read_kernel_bytes(path, max_bytes)
    except FileNotFoundError as e:
        raise KernelFileError(f"cannot open {path}: {e.strerror}") from e
    try:
        return decode_source(data, path)
    except SourceDecodeError as e:
        raise KernelFileError(str(e)) from e


class SourceDecodeError(ValueError):
    """Python source that does not decode; `line` is where (1-based)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def decode_source(data: bytes, path: str = "<file>") -> str:
    """A Python file's text, decoded as Python decodes it: a UTF-8 byte-order mark is
    dropped, a PEP 263 coding cookie is honoured, UTF-8 otherwise. Raises
    SourceDecodeError with the line of the first byte that does not decode."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        if "unknown encoding" in str(e):
            raise SourceDecodeError(f"{os.path.basename(path)}: {e}", 1) from e
        encoding = "utf-8"  # no cookie and a first line that is not UTF-8: located below
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceDecodeError(
            f"{os.path.basename(path)} is not {encoding.upper().replace('UTF-8-SIG', 'UTF-8')}: byte 0x{data[e.start]:02x} on line {line}"
            " (save it as UTF-8, or declare its encoding: # -*- coding: latin-1 -*-)",
            line,
        ) from e
