"""SASS from a cubin (a derived stage: kx_core.compile.artifacts.derived makes it when asked).

Disassembling costs about half a second of nvdisasm start-up per kernel, more than
compiling a small kernel, so capture keeps the cubin and SASS is made when something
asks for it (the SASS tab, `--json`, `--out`, `kx stages --stage sass`), several kernels
at once, and cached on disk by the cubin's hash.

kx's SASS is `nvdisasm -c -gi`: the instructions with branch labels and `//## File
"...", line N` comments (inlined call sites included), which link SASS to source.
"""

from __future__ import annotations

import hashlib
import os
import threading

from kx_core.base.paths import cache_dir
from kx_core.base.tools import ToolFailed, ToolMissing, tool_output

_HEADER = "// SASS from nvdisasm -c -gi (kx); '//## File' lines give source locations\n"


class SassUnavailable(RuntimeError):
    """No nvdisasm, or it failed on this cubin."""


def disassemble(cubin: bytes) -> str:
    """SASS text of a cubin (cached on disk by content). Raises SassUnavailable."""
    digest = hashlib.sha256(cubin).hexdigest()
    cached = cache_dir() / "sass" / f"{digest}.sass"
    if (text := _checked(cached)) is not None:
        return text
    try:
        out = tool_output("nvdisasm", "it turns the cubin into SASS", ["-c", "-gi"], 120, cubin, ".cubin")
    except (ToolMissing, ToolFailed) as e:
        raise SassUnavailable(str(e)) from e
    text = _HEADER + out
    # a name of this process's and this thread's own: two kernels with one cubin (two
    # identical compiles) are disassembled on two threads of one pool at once
    tmp = cached.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(f"{_SUM}{_text_sum(text)}\n{text}", encoding="utf-8")
        os.replace(tmp, cached)
    except OSError:  # a full disk or a read-only cache: the SASS is shown, just not kept
        tmp.unlink(missing_ok=True)
    return text


# A cached disassembly's first line: the sha256 of the rest, so an edited or truncated
# file is disassembled again, never shown. Example: "// kx-sha256 3f2a...\n"
_SUM = "// kx-sha256 "


def _text_sum(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _checked(path) -> str | None:
    """The cached text when its checksum line matches the rest; else None."""
    try:
        first, _, text = path.read_text(encoding="utf-8").partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if first.startswith(_SUM) and first[len(_SUM) :] == _text_sum(text):
        return text
    return None
