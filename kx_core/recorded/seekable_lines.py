"""Lines of a plain or gzipped file, read once in order and again by offset, in bounded memory.

A trace of hundreds of MB is gzipped as one stream (`gzip trace.ndjson`) or as one gzip
member per record (tritonparse's `compression="gzip"`). Neither can be seeked into, so
the first pass keeps checkpoints: every CHECKPOINT_BYTES of uncompressed text, a copy of
the inflater's state (zlib's `Decompress.copy()`: its 32 KiB window and bit position,
some 40 KiB) and the compressed offset it resumes at. Reading a line again later starts
from the nearest checkpoint before it: at most CHECKPOINT_BYTES to inflate, not the
whole file. A 1 GB trace keeps about 130 checkpoints (some 5 MB).

    source = SeekableLines(path)
    for number, offset, line in source.lines(): ...   # line: bytes, without its newline
    source.read(offset, len(line))                    # the same bytes, later, any thread
    source.problem                                     # why the pass stopped early, or None

Only a regular file is read (kx_core.base.outside_files: a FIFO is refused, not waited
on), and the first pass stops, saying why (`problem`, `refused`), at a line longer than
LIMITS.line_bytes or a stream inflating past LIMITS.stream_bytes or past its bomb ratio.
"""

from __future__ import annotations

import bisect
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from kx_core.base.outside_files import inflation_problem, line_problem, open_regular

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK_BYTES = 1 << 20  # bytes of a plain file read at a time
# compressed bytes read at a time: small, because a checkpoint's inflater copy keeps the
# input it had not consumed yet (up to one chunk) alive as long as the checkpoint
GZIP_CHUNK_BYTES = 64 << 10
BLOCK_BYTES = 1 << 20  # uncompressed bytes one inflate call gives at most
CHECKPOINT_BYTES = 8 << 20  # uncompressed bytes between two checkpoints
_GZIP_WBITS = 31  # zlib's spelling of "a gzip header and trailer"


@dataclass(frozen=True)
class Checkpoint:
    """Where inflating can resume: the compressed offset of the next chunk to feed, the
    uncompressed offset its output starts at, and the inflater as it was there."""

    compressed_offset: int
    offset: int
    inflater: object  # zlib.Decompress (copied again before each use: copies are single-use)


class SeekableLines:
    """One file's lines by uncompressed byte offset (see the module's docstring)."""

    def __init__(self, path: str) -> None:
        self.path = path
        with open_regular(path) as f:  # RefusedFile: a FIFO, a device, a socket
            head = f.read(4)
        self.gzipped = head.startswith(GZIP_MAGIC)
        self.zstd = head.startswith(ZSTD_MAGIC)
        self.checkpoints: list[Checkpoint] = []
        self._starts: list[int] = []  # the checkpoints' offsets, for bisect
        # why the first pass stopped before the file's end ('' when it did not), and the
        # compressed byte it stopped at
        self.problem: str | None = None
        self.problem_at: int | None = None
        self.refused = False  # the pass stopped at one of kx's limits (outside_files), not damage
        self.compressed_read = 0  # compressed bytes the first pass has read (its progress)
        self.inflated_read = 0  # uncompressed bytes it has made of them

    # ------------------------------------------------------------ inflating

    def _blocks(self, start: Checkpoint | None, record: bool) -> Iterator[bytes]:
        """Uncompressed blocks from `start` (None: the file's beginning); with `record`,
        checkpoints are kept as it goes and a damaged stream sets `problem`."""
        if not self.gzipped:
            with open_regular(self.path) as f:
                f.seek(start.offset if start else 0)
                while block := f.read(CHUNK_BYTES):
                    if record:
                        self.compressed_read = self.inflated_read = f.tell()
                        if problem := inflation_problem(f.tell(), f.tell()):
                            self._stop(problem, f.tell(), refused=True)
                            return
                    yield block
            return
        inflater = start.inflater.copy() if start else zlib.decompressobj(_GZIP_WBITS)
        position = start.compressed_offset if start else 0  # the compressed offset of data[0]
        out = start.offset if start else 0
        last_mark = -CHECKPOINT_BYTES
        fed_any = False
        full = False  # the last call filled its output: zlib may hold more without new input
        data = b""
        with open_regular(self.path) as f:
            f.seek(position)
            while True:
                if not data and not full:
                    data = f.read(GZIP_CHUNK_BYTES)
                    if not data:
                        break
                if record and out - last_mark >= CHECKPOINT_BYTES:
                    # output is bounded per call (BLOCK_BYTES), so a checkpoint falls every
                    # CHECKPOINT_BYTES however well the data compresses
                    self._keep(Checkpoint(position, out, inflater.copy()))
                    last_mark = out
                if inflater.eof:  # the next gzip member (tritonparse writes one per record)
                    inflater = zlib.decompressobj(_GZIP_WBITS)
                try:
                    block = inflater.decompress(data, BLOCK_BYTES)
                except zlib.error as e:
                    if record:
                        self._stop(f"the gzip data is damaged ({e})", position)
                    return
                rest = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
                position += len(data) - len(rest)
                data = rest
                full = len(block) == BLOCK_BYTES
                fed_any = True
                out += len(block)
                if record:
                    self.compressed_read, self.inflated_read = position, out
                    # checked per block (at most BLOCK_BYTES), so a bomb stops within a block
                    if problem := inflation_problem(position, out):
                        self._stop(problem, position, refused=True)
                        return
                if block:
                    yield block
        if record and fed_any and not inflater.eof:
            self._stop("the gzip stream ends early (a truncated file)", position)

    def _keep(self, checkpoint: Checkpoint) -> None:
        self.checkpoints.append(checkpoint)
        self._starts.append(checkpoint.offset)

    def _stop(self, problem: str, at: int, refused: bool = False) -> None:
        self.problem, self.problem_at, self.refused = problem, at, refused

    # ------------------------------------------------------------ lines

    def lines(self) -> Iterator[tuple[int, int, bytes]]:
        """(1-based line number, uncompressed offset, the line's bytes without '\\n') of
        every line, in order; the last line is yielded even without a newline."""
        if self.zstd:
            self._stop("zstd-compressed: kx reads plain and gzipped traces (unpack it with `zstd -d`)", 0)
            return
        pending = bytearray()
        pending_offset = 0
        number = 0
        for block in self._blocks(None, record=True):
            pending += block
            start = 0
            while (end := pending.find(b"\n", start)) >= 0:
                number += 1
                yield number, pending_offset + start, bytes(pending[start:end])
                start = end + 1
            del pending[:start]
            pending_offset += start
            if problem := line_problem(len(pending)):
                self._stop(f"line {number + 1}: {problem}", self.compressed_read, refused=True)
                return
        if pending:
            yield number + 1, pending_offset, bytes(pending)

    def read(self, offset: int, length: int) -> bytes:
        """`length` uncompressed bytes from `offset` (a line the first pass yielded)."""
        if not self.gzipped:
            with open_regular(self.path) as f:
                f.seek(offset)
                return f.read(length)
        i = bisect.bisect_right(self._starts, offset) - 1
        start = self.checkpoints[i] if i >= 0 else None
        at = start.offset if start else 0
        out = bytearray()
        for block in self._blocks(start, record=False):
            lo = max(offset - at, 0)
            at += len(block)
            if at <= offset:
                continue
            out += block[lo : lo + length - len(out)]
            if len(out) >= length:
                break
        return bytes(out)
