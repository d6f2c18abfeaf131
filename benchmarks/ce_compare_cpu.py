"""kx vs Compiler Explorer's default filters on C++ CPU kernels (issue 33, NOTES.md).

Compiler Explorer's site is not reachable from kx's machines, so its side is its filter
rules applied here: g++ run as CE runs it for an assembly view (`-g -o OUT.s -masm=intel
-S` plus the user's options), then the UI's default filters (binary off; unused labels,
library functions, directives and comment-only lines filtered; demangle on) as CE's
`lib/parsers/asm-parser.ts` describes them, written anew here (not CE's code):

- library functions: inside a function (from one `.cfi_endproc`/`.text`/`.section`/
  `.data` line to the next), lines are dropped while no `.loc` of the main file has been
  seen and the last `.loc` is another file's, with the label just before them. Only the
  file compiled is the main file: a header beside it is library code to CE.
- comment-only lines (`# ...`), directives (a `.` line, but data after a used label),
  unused labels (a label no instruction, `.globl` or used data names), demangled names.

    python benchmarks/ce_compare_cpu.py FILE.cpp -- -O3 -mavx2 ...    # one JSON line
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

# Examples: '\t.file 1 "rmsnorm_avx2.cpp"', '\t.file 0 "/tmp/x" "k.cpp"'
FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"(?:\s+"([^"]+)")?')
# Example: "\t.loc 1 12 5 is_stmt 0"
LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")
# Examples: "\t.cfi_endproc", "\t.text", "\t.section\t.rodata"
END_BLOCK_RE = re.compile(r"\.(cfi_endproc|data|text|section)")
# Example: "_ZN6kx_cpu4avx27rmsnormEPKfS2_Pfllf:", ".L3:"
LABEL_RE = re.compile(r"^([.A-Z_a-z][\w$.]*):")
# Example: "\t.type\t_Z3addPfS_l, @function"
FUNCTION_RE = re.compile(r"^\s*\.type\s+([\w.$]+),\s*[#%@]function")
# Example: "\t.globl\t_Z3addPfS_l"
GLOBAL_RE = re.compile(r"^\s*\.(?:globa?l|weak)\s+([.A-Z_a-z][\w$.]*)")
# Examples: "\t.long\t1065353216", "\t.string\t\"fp32 only\""
DATA_RE = re.compile(r"^\s*\.(string|asciz|ascii|[1248]?byte|short|x?word|long|quad|value|zero)\b")
COMMENT_ONLY_RE = re.compile(r"^\s*(#|//|@).*$")
IDENT_RE = re.compile(r"[.A-Z_a-z][\w$.]*")


def _is_instruction(line: str) -> bool:
    text = LABEL_RE.sub("", line).split("#", 1)[0]
    return bool(re.match(r"^\s*[A-Za-z]", text))


def used_labels(lines: list[str]) -> set[str]:
    used: set[str] = set()
    weak: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines:
        if m := LABEL_RE.match(line):
            current = [m.group(1)]
            continue
        if m := GLOBAL_RE.match(line):
            used.add(m.group(1))
        if _is_instruction(line):
            used.update(IDENT_RE.findall(line.split("#", 1)[0].split(None, 1)[-1]))
        elif DATA_RE.match(line):
            for label in current:
                weak.setdefault(label, []).extend(IDENT_RE.findall(line.split(None, 1)[-1]))
    for _ in range(10):  # data naming data: follow the chains
        more = {w for label in list(used) for w in weak.get(label, ()) if w not in used}
        if not more:
            break
        used |= more
    return used


def ce_filtered(asm: str, main: str) -> tuple[list[str], set[str]]:
    """The lines CE's default filters keep, and the functions whose label is kept."""
    lines = asm.split("\n")
    files = {}
    for line in lines:
        if m := FILE_RE.match(line):
            files[m.group(1)] = m.group(3) or m.group(2)
    functions = {m.group(1) for line in lines if (m := FUNCTION_RE.match(line))}
    used = used_labels(lines)
    kept: list[str] = []
    source_file, own_seen, may_pop = None, False, True
    prev_label = ""
    for line in lines:
        if not line.strip():
            continue
        if m := LOC_RE.match(line):
            source_file = files.get(m.group(1))
            if source_file and os.path.basename(source_file) == os.path.basename(main):
                own_seen = True
        if END_BLOCK_RE.search(line):
            source_file, own_seen, prev_label = None, False, ""
        library = source_file is not None and os.path.basename(source_file) != os.path.basename(main)
        if library and not own_seen:
            if may_pop and kept and LABEL_RE.match(kept[-1]):
                kept.pop()
            may_pop = False
            continue
        may_pop = True
        if COMMENT_ONLY_RE.match(line):
            continue
        if m := LABEL_RE.match(line):
            if m.group(1) not in used:
                continue
            prev_label = m.group(1)
            kept.append(line)
            continue
        if line.lstrip().startswith(".") and not (DATA_RE.match(line) and prev_label):
            continue
        kept.append(line)
    shown = {m.group(1) for line in kept if (m := LABEL_RE.match(line)) and m.group(1) in functions}
    return kept, shown


def main(argv: list[str]) -> int:
    path, flags = argv[0], argv[argv.index("--") + 1 :] if "--" in argv else []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "output.s")
        cmd = ["g++", "-g", "-o", out, "-masm=intel", "-S", *flags, path]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(path))
        if proc.returncode:
            print(json.dumps({"file": path, "error": proc.stderr[-500:]}))
            return 1
        asm = open(out, encoding="utf-8").read()
    lines = asm.split("\n")
    functions = {m.group(1) for line in lines if (m := FUNCTION_RE.match(line))}
    kept, shown = ce_filtered(asm, path)
    names = subprocess.run(["c++filt"], input="\n".join(sorted(shown)), capture_output=True, text=True).stdout
    print(
        json.dumps(
            {
                "file": path,
                "functions": len(functions),
                "shown": len(shown),
                "shown_names": names.split("\n")[: len(shown)],
                "lines_shown": len(kept),
                "remarks": 0,  # CE's assembly view shows none (its optimisation pane is apart)
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
