"""`--json` always answers in JSON (issue 53, item 4).

A verb given `--json` prints its own JSON on success; but a refusal at the door (a binary
file, a folder, a missing file, a bad option: argparse's exit 2) or an internal error was
one plain `kx: ...` line on stderr and nothing on stdout, so a script reading stdout got
no JSON to parse. `answering_in_json` wraps a run of the command line: when the verb
wrote nothing to stdout, it prints one object, the error envelope of
`kx_core/data/schemas/kx-error.schema.json`:

    {"kx_error": {"exit_status": 2, "messages": ["bin.py is a binary file ..."]}}

What went to stderr still goes there (people read it); the messages are its `kx: ` lines.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

SCHEMA = "kx-error.schema.json"  # in kx_core/data/schemas


def wants_json(argv: list[str]) -> bool:
    """`--json` (or `--json=...`) among the arguments, before a `--` that ends options."""
    for a in argv:
        if a == "--":
            return False
        if a == "--json" or a.startswith("--json="):
            return True
    return False


class _Counting(io.TextIOBase):
    """A stream that passes writes on and says whether any text went through."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.wrote = False

    def write(self, text: str) -> int:
        if text:
            self.wrote = True
        return self.inner.write(text)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()


class _Tee(_Counting):
    """stderr as it was, its text kept too (the `kx: ` lines become the messages)."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.text: list[str] = []

    def write(self, text: str) -> int:
        self.text.append(text)
        return super().write(text)


def messages(stderr_text: str) -> list[str]:
    """The `kx: ` lines of what went to stderr, without the prefix; else argparse's
    error line; else the last lines.
    Example lines: "kx: /tmp/x is a directory, not a kernel file",
    "kx: error: argument command: invalid choice: 'model' (choose from ...)" """
    lines = [line.strip() for line in stderr_text.splitlines() if line.strip()]
    ours = [line[len("kx: ") :] for line in lines if line.startswith("kx: ")]
    usage = [line.split(": error: ", 1)[1] for line in lines if ": error: " in line]
    return ours or usage or lines[-5:] or ["failed, saying nothing (exit status above)"]


def envelope(status: int, stderr_text: str) -> dict:
    return {"kx_error": {"exit_status": status, "messages": messages(stderr_text)}}


@contextmanager
def _streams() -> Iterator[tuple[_Counting, _Tee]]:
    out, err = _Counting(sys.stdout), _Tee(sys.stderr)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = saved


def answering_in_json(run: Callable[[], int]) -> int:
    """`run()`'s exit status; where it failed and printed nothing on stdout, the error
    envelope is printed there (argparse's SystemExit included)."""
    with _streams() as (out, err):
        try:
            status = run()
        except SystemExit as e:  # argparse's refusal of an option: exit 2, said on stderr
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        wrote = out.wrote
    if status != 0 and not wrote:
        json.dump(envelope(status, "".join(err.text)), sys.stdout, indent=1)
        sys.stdout.write("\n")
    return status
