"""Argument types of the `kx` command line: each refuses what the engine cannot take, so a
bad value is argparse's one-line message and exit status 2, never a traceback.

Exit statuses, shared by every verb: 0 done (for a compile: every launched kernel
compiled); 1 the input's own failure (a compile, timeout, crash, out-of-memory or
environment diagnostic; a layout or saturation kx could not compute); 2 a bad command
line or an unreadable input file; 3 a fault inside kx (its message asks for a report);
4 a compile whose capture is incomplete (launches kx could not capture, a file that
stopped midway, or a file that launched no kernel though it defines or imports kernels);
5 a compile complete as far as kx knows whose file launched kernels after a read of data
kx answered with a placeholder (the guess may have steered those launches); 130
interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import math

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_AFTER_PLACEHOLDER = 5


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def positive_int(text: str) -> int:
    n = _int(text)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"{n} must be positive")
    return n


def power_of_two(text: str) -> int:
    n = positive_int(text)
    if n & (n - 1):
        raise argparse.ArgumentTypeError(f"{n} must be a power of two")
    return n


def element_bits(text: str) -> int:
    n = _int(text)
    if n not in (8, 16, 32, 64):
        raise argparse.ArgumentTypeError(f"{n}: element sizes are 8, 16, 32 or 64 bits")
    return n


def _positive_finite(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a {what}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: a positive, finite {what}")
    return value


def seconds(text: str) -> float:
    return _positive_finite(text, "number of seconds")


def int_in(lo: int, hi: int | None = None):
    """An integer from `lo` to `hi` (no upper bound: None); the message names the range."""
    span = f"from {lo} to {hi}" if hi is not None else f"{lo} or more"

    def parse(text: str) -> int:
        n = _int(text)
        if n < lo or (hi is not None and n > hi):
            raise argparse.ArgumentTypeError(f"{n} is out of range: {span}")
        return n

    parse.__name__ = f"integer {span}"
    return parse


def power_of_two_upto(hi: int):
    """A power of two from 1 to `hi` (num_warps: a block holds at most 1024 threads)."""

    def parse(text: str) -> int:
        n = power_of_two(text)
        if n > hi:
            raise argparse.ArgumentTypeError(f"{n} is out of range: a power of two from 1 to {hi}")
        return n

    parse.__name__ = f"power of two up to {hi}"
    return parse


def positive_number(text: str) -> float:
    """A positive, finite number (a FLOP or byte count, a time budget)."""
    return _positive_finite(text, "number")


# A worker under this many MiB cannot start Python, torch and Triton: it would read as a
# crash of the user's file, so the parser refuses it (0 means no limit).
MIN_MEMORY_LIMIT_MIB = 512


def memory_limit(text: str) -> int:
    n = _int(text)
    if n != 0 and n < MIN_MEMORY_LIMIT_MIB:
        raise argparse.ArgumentTypeError(
            f"{n} MiB is too little to start the worker: 0 (no limit) or {MIN_MEMORY_LIMIT_MIB} or more"
        )
    return n


def gemm_shape(text: str) -> tuple[int, int, int]:
    """'4096x4096x4096' or '4096 4096 4096' -> (M, N, K), each positive (the Autotune
    pane reads its shape with the same parser)."""
    from kx_core.model.gemm import parse_gemm_shape  # when used: every verb parses its args

    try:
        return parse_gemm_shape(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def shape(text: str) -> list[int]:
    """'64x64' -> [64, 64]: one to four positive powers of two."""
    try:
        dims = [int(x) for x in text.lower().replace(",", "x").split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes like 64x64") from None
    if not 1 <= len(dims) <= 4 or any(n <= 0 or n & (n - 1) for n in dims):
        raise argparse.ArgumentTypeError(f"{text!r}: one to four positive powers of two, like 64x64")
    return dims
