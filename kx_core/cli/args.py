"""Argument types of the `kx` command line: each refuses what the engine cannot take, so a
bad value is argparse's one-line message and exit status 2, never a traceback.

Exit statuses, shared by every verb: 0 done (for a compile: every launched kernel
compiled); 1 the input's own failure (a compile, timeout, crash, out-of-memory or
environment diagnostic; a layout or saturation kx could not compute); 2 a bad command
line or an unreadable input file; 3 a fault inside kx (its message asks for a report);
4 a compile whose capture is incomplete (launches kx could not capture, or a file that
launched no kernel though it defines or imports kernels); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import math

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


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


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: a positive, finite number of seconds")
    return value


def shape(text: str) -> list[int]:
    """'64x64' -> [64, 64]: one to four positive powers of two."""
    try:
        dims = [int(x) for x in text.lower().replace(",", "x").split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected sizes like 64x64") from None
    if not 1 <= len(dims) <= 4 or any(n <= 0 or n & (n - 1) for n in dims):
        raise argparse.ArgumentTypeError(f"{text!r}: one to four positive powers of two, like 64x64")
    return dims
