"""A stand-in `triton-opt` for the lit oracle (benchmarks/lit_agreement.py): runs the
passes named on its command line through the triton wheel's Python bindings and prints
the module as triton-opt does, so that a real shell and LLVM's FileCheck can run Triton's
RUN lines unchanged. Exit 125 with `ORACLE-UNSUPPORTED:` on stderr when the wheel cannot
run the line (a tool option or a pass it does not have).

    triton-opt FILE [-split-input-file] [-pass[=options]]...
"""

from __future__ import annotations

import os
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

    source, flags, split = None, [], False
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
        elif name.startswith("mlir-") or name in (
            "verify-diagnostics",
            "o",
            "debug-only",
        ):
            return unsupported(f"triton-opt option {arg}")
        else:
            flags.append(arg)
    text = sys.stdin.read() if source in (None, "-") else open(source, encoding="utf-8").read()
    result = run_in_process(text, flags, split)
    if result.unsupported:
        return unsupported("; ".join(result.unsupported))
    if not discard:
        sys.stdout.write(result.text() if not result.error else "\n// -----\n".join(result.outputs))
    if result.error:
        print(result.error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
