"""Words for counts on screen and in messages: "1 kernel", "2 kernels"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`counted(1, "kernel")` -> "1 kernel"; `counted(3, "class", "classes")` -> "3 classes"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
