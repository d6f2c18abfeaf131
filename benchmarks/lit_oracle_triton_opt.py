"""A stand-in `triton-opt` for the lit oracle (benchmarks/lit_agreement.py): runs the
passes named on its command line through the triton wheel's Python bindings and prints
the module as triton-opt does, so that a real shell and LLVM's FileCheck can run Triton's
RUN lines unchanged. Exit 125 with `ORACLE-UNSUPPORTED:` on stderr when the wheel cannot
run the line (a tool option or a pass it does not have).

    triton-opt FILE [-split-input-file] [-pass[=options]]...
"""

from __future__ import annotations

import os
import re
import sys

UNSUPPORTED_EXIT = 125


def unsupported(why: str) -> int:
    """Say the wheel cannot run this line: on stderr and in $ORACLE_UNSUPPORTED_FILE."""
    print(f"ORACLE-UNSUPPORTED: {why}", file=sys.stderr)
    if os.environ.get("ORACLE_UNSUPPORTED_FILE"):
        with open(os.environ["ORACLE_UNSUPPORTED_FILE"], "w", encoding="utf-8") as f:
            f.write(why)
    return UNSUPPORTED_EXIT


def main(argv: list[str]) -> int:
    from kx_core.lab.playground import run_in_process

    source, flags, split, verify = None, [], False, None
    argv = list(argv)
    discard = False
    if "-o" in argv and argv[argv.index("-o") + 1 : argv.index("-o") + 2] in (["-"], ["/dev/null"]):
        discard = argv[argv.index("-o") + 1] == "/dev/null"
        del argv[argv.index("-o") : argv.index("-o") + 2]  # -o - is stdout
    for arg in argv:
        name = arg.lstrip("-").split("=", 1)[0]
        if not arg.startswith("-") or arg == "-":
            source = arg
        elif name == "split-input-file":
            split = True
        elif name in ("mlir-disable-threading", "verify-each"):
            continue  # the same output
        elif name == "pass-pipeline":
            from kx_core.lab.playground import Unsupported, expand_pass_pipeline

            try:
                flags += expand_pass_pipeline(arg.split("=", 1)[1])
            except Unsupported as e:
                return unsupported(str(e))
        elif name == "verify-diagnostics":
            verify = "only-expected" if arg.endswith("=only-expected") else "all"
        elif name.startswith("mlir-") or name in ("o", "debug-only"):
            return unsupported(f"triton-opt option {arg}")
        else:
            flags.append(arg)
    text = sys.stdin.read() if source in (None, "-") else open(source, encoding="utf-8").read()
    if verify:
        return verified_run(text, flags, split, verify == "only-expected", discard)
    result = run_in_process(text, flags, split)
    if result.unsupported:
        return unsupported("; ".join(result.unsupported))
    if not discard:
        sys.stdout.write(result.text() if not result.error else "\n// -----\n".join(result.outputs))
    if result.error:
        print(result.error, file=sys.stderr)
        return 1
    return 0


# Example: '// expected-error @+1 {{rank of source must be same as rank of result}}'
ANNOTATION = re.compile(r"expected-(error|warning|note|remark) *(@\S+)? *\{\{(.*?)\}\}")
# Example: 'loc("input":6:8): error: ...' or 'input:12:1: remark: ...'
PRINTED = re.compile(r'(?m)^(?:loc\("[^"]*":|[^\s:]+:)(\d+):\d+\)?: (error|warning|note|remark): (.*)$')


def verified_run(text: str, flags: list[str], split: bool, only_expected: bool, discard: bool) -> int:
    """-verify-diagnostics as MLIR's handler decides it: every part runs; each annotation
    must be met by a printed diagnostic of its severity on its line containing its text, and
    no other diagnostic may be printed (unless only-expected). Notes are not checked where
    the wheel printed none (it drops the notes of a parse error)."""
    from kx_core.lab.pass_catalog import can_allow_unregistered
    from kx_core.lab.playground import ALLOW_UNREGISTERED, Unsupported, _run_part, resolve

    allow = f"-{ALLOW_UNREGISTERED}" in flags or f"--{ALLOW_UNREGISTERED}" in flags
    if allow and not can_allow_unregistered():
        return unsupported("-allow-unregistered-dialect")
    try:
        specs = [resolve(f) for f in flags if f.lstrip("-") != ALLOW_UNREGISTERED]
    except Unsupported as e:
        return unsupported(str(e))
    chunks = re.split(r"^// -----\s*$", text, flags=re.M) if split else [text]
    good, printed = True, []
    for chunk in (c.strip("\n") if split else c for c in chunks):
        output, said, _ = _run_part(chunk, specs, allow)
        if output is not None:
            printed.append(output)
        wanted: dict[tuple[int, str], list[str]] = {}
        for number, line in enumerate(chunk.split("\n"), start=1):
            for m in ANNOTATION.finditer(line):
                at = m.group(2) or "@+0"
                shift = -1 if at == "@above" else 1 if at == "@below" else int(at[1:])
                wanted.setdefault((number + shift, m.group(1)), []).append(m.group(3))
        notes_printed = False
        for number, severity, message in dict.fromkeys(PRINTED.findall(said)):
            notes_printed |= severity == "note"
            texts = wanted.get((int(number), severity), [])
            match = [t for t in texts if t in message]
            if match:
                texts.remove(match[0])
            elif not only_expected:
                good = False
        left = [
            t for (_, severity), texts in wanted.items() for t in texts if severity != "note" or notes_printed
        ]
        good &= not left
    if not discard:
        sys.stdout.write("\n// -----\n".join(printed) + "\n")
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
