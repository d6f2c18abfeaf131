"""Files that came from outside (a record of someone's run, a trace, a bundle), read as data
within limits, or refused with a message that names the file and the limit.

    files = RecordFiles(root)              # one record: a folder, or one file
    files.subfolders(folder), files.names(folder)    # entries that stay inside the record
    data = files.read_bytes(path)          # a regular file inside the record, whole
    with open_regular(path) as f: ...      # a file read in pieces (a trace), never a FIFO
    doc = loads_json(data, path)           # JSON no deeper than LIMITS.json_depth
    why = inflation_problem(compressed, inflated)   # a gzip stream past its limits, or None

Why each rule: a FIFO, socket or device (a cache's NAME.ptx linked to /dev/zero) blocks
or never ends; a link out of the record shows and exports a file the sender chose
(~/secret.txt); a file, a record, an inflated stream, a line and a JSON document each have
a limit, so that a small file cannot take the machine's memory, time or stack. Limits are
one frozen `Limits` (LIMITS), read when a check runs, so a test can lower them.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, BinaryIO

from kx_core.base.textfile import describe_mode


@dataclass(frozen=True)
class Limits:
    """What kx reads of one outside file or record, in bytes unless said."""

    file_bytes: int = 512 << 20  # one file read whole into memory
    record_bytes: int = 4 << 30  # every file of one record read whole, together
    line_bytes: int = 1 << 30  # one line of a file read line by line (a trace)
    stream_bytes: int = 64 << 30  # a file read in pieces, inflated where it is gzipped
    # a gzip stream inflating past this many times its compressed size, once past
    # inflation_floor, is a bomb: real traces inflate 5 to 30 times
    inflation_ratio: int = 200
    inflation_floor: int = 256 << 20
    json_depth: int = 400  # arrays and objects inside each other (Python's stack: some 1,000)
    folder_entries: int = 1_000_000  # names one folder of a record may hold


LIMITS = Limits()


class RefusedFile(ValueError):
    """An outside file kx does not read: not a regular file, a link out of its record, or
    past a limit. The message names the file and the reason or limit."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def size_words(n: int) -> str:
    """A byte count as a person reads it: '512 MiB', '1.5 GiB', '300 bytes'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def open_regular(path: str, follow: bool = True) -> BinaryIO:
    """The file at `path` open for reading, if it is a regular file; RefusedFile says why
    not. Opened without blocking (a FIFO has no writer to wait for) and checked on the
    open descriptor (fstat), so what is read is what was checked. `follow=False`: a
    symbolic link at the last component is refused (O_NOFOLLOW)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        # a socket cannot be opened at all (ENXIO): name what it is, not the errno
        try:
            kind = describe_mode(os.lstat(path).st_mode)
        except OSError:
            kind = None
        if kind and kind != "a regular file":
            raise RefusedFile(path, f"{kind}, not a regular file: not read") from e
        raise RefusedFile(path, f"cannot be read ({e.strerror or e})") from e
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise RefusedFile(path, f"{describe_mode(mode)}, not a regular file: not read")
    # a regular file ignores O_NONBLOCK; the descriptor is an ordinary one from here
    return os.fdopen(fd, "rb")


def read_regular(path: str, max_bytes: int | None = None, follow: bool = True) -> bytes:
    """A regular file's bytes, whole: RefusedFile for another kind of file or one past
    `max_bytes` (LIMITS.file_bytes), said before reading it."""
    limit = LIMITS.file_bytes if max_bytes is None else max_bytes
    with open_regular(path, follow) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise RefusedFile(path, f"{size_words(size)}, over the {size_words(limit)} kx reads of one file")
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while read
        raise RefusedFile(path, f"over the {size_words(limit)} kx reads of one file")
    return data


def read_head(path: str, n: int) -> bytes:
    """The first `n` bytes of a regular file (what tells a record's kind); b'' for a file
    that is not regular or cannot be read: a kind test never blocks and never raises."""
    try:
        with open_regular(path) as f:
            return f.read(n)
    except RefusedFile:
        return b""


# ------------------------------------------------------------------ JSON

_BRACKETS = b"[]{}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def json_depth(data: bytes | str) -> int:
    """How deep arrays and objects nest in JSON text (brackets inside strings do not
    count). Each step is a C-speed bytes method: escaped backslashes and quotes removed,
    the pieces between quotes dropped (the strings), what is left reduced to brackets."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    text = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(text.split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    return max(accumulate(_STEP[c] for c in brackets), default=0)


def check_json_depth(data: bytes | str, path: str) -> None:
    """RefusedFile when JSON text nests deeper than LIMITS.json_depth (before a decoder
    recurses into it). Text with fewer brackets than the limit cannot: not scanned."""
    limit = LIMITS.json_depth
    opening = (b"[", b"{") if isinstance(data, bytes) else ("[", "{")
    if data.count(opening[0]) + data.count(opening[1]) <= limit:
        return
    depth = json_depth(data)
    if depth > limit:
        raise RefusedFile(path, f"JSON nested {depth:,} deep, past the {limit} levels kx reads")


def loads_json(data: bytes | str, path: str) -> Any:
    """json.loads, refused (RefusedFile) past LIMITS.json_depth; a JSON error is the
    decoder's ValueError as before."""
    check_json_depth(data, path)
    try:
        return json.loads(data)
    except RecursionError as e:  # deeper than the interpreter's stack allows, whatever the scan said
        raise RefusedFile(path, "JSON nested deeper than Python's decoder reads") from e


# ------------------------------------------------------------------ streams


def inflation_problem(compressed: int, inflated: int) -> str | None:
    """Why a file read in pieces must stop (its inflated size past LIMITS.stream_bytes, or
    a gzip bomb: past inflation_ratio times its compressed bytes), or None."""
    if inflated > LIMITS.stream_bytes:
        return f"past the {size_words(LIMITS.stream_bytes)} kx reads of one file: not read further"
    if inflated > LIMITS.inflation_floor and inflated > LIMITS.inflation_ratio * max(compressed, 1):
        return (
            f"inflates to {size_words(inflated)} from {size_words(compressed)}, more than the "
            f"{LIMITS.inflation_ratio} times its compressed size kx reads (a gzip bomb?): not read further"
        )
    return None


def line_problem(length: int) -> str | None:
    """Why a line read so far must stop (past LIMITS.line_bytes), or None."""
    if length > LIMITS.line_bytes:
        return f"a line longer than the {size_words(LIMITS.line_bytes)} kx reads: not read further"
    return None


# ------------------------------------------------------------------ one record


class RecordFiles:
    """The files of one record (a folder, or a single file), read under one budget:
    regular files inside the record only, each within LIMITS.file_bytes, all together
    within LIMITS.record_bytes. A link is followed only where it stays inside the record."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.read_total = 0  # bytes read whole so far, of LIMITS.record_bytes

    def inside(self, path: str) -> str:
        """`path` resolved (links followed), or RefusedFile where it leaves the record."""
        real = os.path.realpath(path)
        if real != self.root and not real.startswith(self.root.rstrip(os.sep) + os.sep):
            raise RefusedFile(path, f"a link to {real}, outside the record ({self.root}): not followed")
        return real

    def _entries(self, folder: str) -> Iterator[os.DirEntry]:
        with os.scandir(self.inside(folder)) as it:
            for count, entry in enumerate(it, start=1):
                if count > LIMITS.folder_entries:
                    raise RefusedFile(folder, f"more than {LIMITS.folder_entries:,} entries: not listed")
                yield entry

    def names(self, folder: str) -> list[str]:
        """The names in a folder of the record, sorted ([] where it cannot be listed);
        RefusedFile past LIMITS.folder_entries or for a folder outside the record."""
        try:
            return sorted(e.name for e in self._entries(folder))
        except OSError:
            return []

    def is_inside(self, path: str) -> bool:
        try:
            self.inside(path)
        except RefusedFile:
            return False
        return True

    def subfolders(self, folder: str) -> list[str]:
        """The folders in `folder` (full paths, sorted) that stay inside the record."""
        out = []
        for name in self.names(folder):
            path = os.path.join(folder, name)
            if os.path.isdir(path) and self.is_inside(path):
                out.append(path)
        return out

    def is_file(self, path: str) -> bool:
        """A regular file inside the record (a link to one inside it counts)."""
        return os.path.isfile(path) and self.is_inside(path)

    def read_bytes(self, path: str, max_bytes: int | None = None) -> bytes:
        """A file of the record, whole (see the class); RefusedFile says why not."""
        real = self.inside(path)
        left = LIMITS.record_bytes - self.read_total
        try:
            size = os.stat(real).st_size
        except OSError as e:
            raise RefusedFile(path, f"cannot be read ({e.strerror or e})") from e
        if size > left:
            raise RefusedFile(
                path,
                f"the record's files together pass the {size_words(LIMITS.record_bytes)} kx reads of one record",
            )
        try:
            # the resolved path, not followed again: a link swapped in after the check is refused
            data = read_regular(real, max_bytes, follow=False)
        except RefusedFile as e:
            raise RefusedFile(path, e.why) from e
        self.read_total += len(data)
        return data

    def read_text(self, path: str, max_bytes: int | None = None) -> str:
        """A file of the record as UTF-8 text (UnicodeDecodeError where it is not)."""
        return self.read_bytes(path, max_bytes).decode("utf-8")

    def head(self, path: str, n: int) -> bytes:
        """The first `n` bytes of a file of the record; b'' where it is not one."""
        return read_head(path, n) if self.is_inside(path) else b""


# ------------------------------------------------------------------ words a record holds

# A package version as a record names it: a release, a pre-release, a local build.
# Example: "3.6.0", "3.5.0rc1", "3.4.0+git1a2b3c4d", "2.11.0+cu130"
_VERSION_WORD_RE = re.compile(
    r"^\d{1,4}(?:\.\d{1,6}){1,3}(?:(?:a|b|rc|dev|post)\d{0,8})?(?:\+[A-Za-z0-9.]{1,64})?$"
)


def version_word(value: Any) -> str | None:
    """A record's version field where it is a version (see the pattern), else None: a
    version a command or a path is made of is never the sender's free text."""
    return value if isinstance(value, str) and _VERSION_WORD_RE.match(value) else None


def as_data(value: Any, limit: int = 80) -> str:
    """A record's string shown as data: as it is where it is one short printable line,
    else quoted (repr: a newline or an escape code shows as its escape), cut at `limit`."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit and text.isprintable():
        return text
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 1] + "…"
