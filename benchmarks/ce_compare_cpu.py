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

    PYTHONPATH=. python benchmarks/ce_compare_cpu.py FILE.cpp cpu:avx512    # one JSON line

Both sides get the same options: kx's for the file (its build.toml kernel's cxx-flags,
else the tier's; torch's include folders when it, or a header of its, includes torch).
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


def ce_figures(path: str, flags: list[str]) -> dict:
    """CE's default filters on g++'s assembly of `path` (compiled as CE compiles it)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "output.s")
        cmd = ["g++", "-g", "-o", out, "-masm=intel", "-S", *flags, path]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(path))
        if proc.returncode:
            return {"error": proc.stderr[-500:]}
        asm = open(out, encoding="utf-8").read()
    functions = {m.group(1) for line in asm.split("\n") if (m := FUNCTION_RE.match(line))}
    kept, shown = ce_filtered(asm, path)
    names = subprocess.run(["c++filt"], input="\n".join(sorted(shown)), capture_output=True, text=True).stdout
    return {
        "functions": len(functions),
        "shown": len(shown),
        "shown_names": names.split("\n")[: len(shown)],
        "lines_shown": len(kept),
        "remarks": 0,  # CE's assembly view shows none (its optimisation output is a pane apart)
    }


def kx_figures(path: str, spec: str) -> tuple[dict, list[str]]:
    """kx's default view of `path`, and the options its compile used (CE gets the same)."""
    from kx_core.cpu.build_toml import build_flags
    from kx_core.cpu.compile import _includes_torch, compile_cpp, torch_include_flags
    from kx_core.cpu.targets import COMMON_FLAGS, TIER_FLAGS
    from kx_core.ir.display_filters import DisplayFilters, filter_stage, hidden_by_library_filter

    build = build_flags(path)
    flags = [*COMMON_FLAGS, *(build.cxx_flags if build else TIER_FLAGS[spec.split(":", 1)[1]])]
    flags += [f"-I{d}" for d in (build.include_dirs if build else ())]
    if _includes_torch(path, open(path, encoding="utf-8").read(), build.include_dirs if build else ()):
        flags += torch_include_flags()
    r = compile_cpp(path, spec, timeout_s=900)
    shown = [k for k in r.kernels if not hidden_by_library_filter(k, DisplayFilters())]
    remarks = [t for k in shown for t in k.stages.get("vectorization", "").splitlines()]

    def lines(k) -> int:
        text = filter_stage(k.stages["asm"], "gas", DisplayFilters(), k.demangled).text
        return sum(1 for t in text.splitlines() if t.strip())

    return {
        "fatal": [d.message[:200] for d in r.diagnostics if d.fatal],
        "functions": len(r.kernels),
        "shown": len(shown),
        "shown_names": [k.name for k in shown],
        "lines_shown": sum(lines(k) for k in shown),
        "remarks": len(remarks),
        "vectorized": sum(": vectorized" in t for t in remarks),
        "inlined": sum(" inlined at " in t or "inlined here" in t for t in remarks),
    }, flags


def main(argv: list[str]) -> int:
    """`ce_compare_cpu.py FILE [cpu:TIER]`: one JSON line, kx's figures and CE's rules'."""
    path = os.path.abspath(argv[0])
    spec = argv[1] if len(argv) > 1 else "cpu:avx2"
    kx, flags = kx_figures(path, spec)
    ce = ce_figures(path, flags)
    both = set(kx["shown_names"]) & set(ce.get("shown_names", ()))
    print(json.dumps({"file": path, "flags": flags, "kx": kx, "ce_rules": ce, "shown_by_both": len(both)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
