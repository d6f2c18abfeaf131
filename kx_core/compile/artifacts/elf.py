"""The ELF stage: a cubin as cuobjdump reads it (a derived stage, kx_core.compile.artifacts.derived).

`cuobjdump -elf -res-usage`: the resource usage per function (registers, stack, shared,
local and constant memory, as the driver will see them), the section table, the symbol
table and the `.nv.info` attributes (EIATTR_REGCOUNT, EIATTR_MAX_THREADS, barriers...).
The section dumps' raw words are folded into one line each: they are the bytes of the
code and constants, unreadable as hex, and make a 1 MB text of a large kernel.
"""

from __future__ import annotations

import re

from kx_core.base.tools import ToolFailed, ToolMissing, tool_output

HEADER = (
    "// the cubin's ELF as cuobjdump -elf -res-usage reads it (kx); raw section words folded\n"
    "// SHARED is the static shared memory; Triton's dynamic shared memory (in the Kernels\n"
    "// table's total) is set at launch\n"
)
# Example: "0xff017b82 0x00000a00 0x00000800 0x000e2200"
_WORDS_RE = re.compile(r"^(?:0x[0-9a-f]{8}\s*)+$")
# Example: " Function k:" then "  REG:10 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:568 TEXTURE:0 ..."
_FUNCTION_RE = re.compile(r"^\s*Function (\S+?):\s*$")
_USAGE_RE = re.compile(r"\b(REG|STACK|SHARED|LOCAL):(\d+)")
# Example: ".text.k" followed by "bar = 1\treg = 0\tlmem=0\tsmem=0"
_TEXT_HEADER_RE = re.compile(r"^bar = (\d+)\b")


class ElfUnavailable(RuntimeError):
    """No cuobjdump, or it failed on this cubin."""


def elf_view(cubin: bytes) -> str:
    """The ELF stage's text of a cubin. Raises ElfUnavailable."""
    try:
        out = tool_output(
            "cuobjdump", "it reads the cubin's ELF", ["-elf", "-res-usage"], 60, cubin, ".cubin"
        )
    except (ToolMissing, ToolFailed) as e:
        raise ElfUnavailable(str(e)) from e
    # cuobjdump prints the resource usage last: first is where a reader looks for it
    at = out.find("\nResource usage:")
    if at >= 0:
        out = out[at + 1 :].rstrip("\n") + "\n\n" + out[:at]
    return HEADER + _fold_words(out)


def _fold_words(text: str) -> str:
    lines, run = [], 0
    for line in text.splitlines():
        if _WORDS_RE.match(line.strip()):
            run += len(line.split())
            continue
        if run:
            lines.append(f"    ({run} words of section data)")
            run = 0
        lines.append(line)
    if run:
        lines.append(f"    ({run} words of section data)")
    return "\n".join(lines) + "\n"


def resource_usage(text: str) -> dict[str, dict[str, int]]:
    """Per function, what the ELF stage's resource block and `.text.<fn>` header say:
    {'k': {'REG': 10, 'STACK': 0, 'SHARED': 0, 'LOCAL': 0, 'BAR': 1}}."""
    out: dict[str, dict[str, int]] = {}
    bars: dict[str, int] = {}
    current = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if m := _FUNCTION_RE.match(line):
            current = m.group(1)
            out[current] = {}
        elif current and (usage := _USAGE_RE.findall(line)):
            out[current].update({k: int(v) for k, v in usage})
            current = None
        elif line.startswith(".text.") and i + 1 < len(lines):
            if m := _TEXT_HEADER_RE.match(lines[i + 1]):
                bars[line[6:]] = int(m.group(1))
    for name, usage in out.items():  # the resource block comes after the sections
        usage["BAR"] = bars.get(name, 0)
    return out
