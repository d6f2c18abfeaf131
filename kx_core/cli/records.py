"""`kx open PATH`: what a real run recorded (a Triton cache or dump folder, a tritonparse
trace, plain or gzipped), shown like a compile's result; and `kx compile ... --export
tritonparse OUT.ndjson`, a capture written back as a trace (kx_core.recorded).

    $ kx open ~/.triton/cache
    /home/me/.triton/cache  target cuda:90  triton 3.8.0
    kernel        status    grid  warps  stages  regs  spills  shared  compile s
    add_vectors   compiled  -     4      3       26    0       0       1.10
"""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.cli import args as cli_args
from kx_core.records.backends import stage_names

EXPORT_FORMATS = ("tritonparse",)


def add_open_verb(sub) -> None:
    p = sub.add_parser(
        "open",
        help="a record of a real run: a Triton cache or dump folder, a tritonparse trace (.ndjson[.gz])",
    )
    p.add_argument("path", help="the folder or trace file (its kind is read from its content)")
    p.add_argument("--kernel", help="only kernels of this name")
    p.add_argument("--stage", choices=stage_names(), help="print this stage of each kernel")
    p.add_argument("--json", action="store_true", help="the result as JSON, every stage included")
    p.add_argument("--out", metavar="DIR", help="write each stage as <kernel>.<ext>")


def add_export_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--export",
        nargs=2,
        metavar=("FORMAT", "OUT"),
        help="also write the capture as a record: 'tritonparse OUT.ndjson[.gz]' (a tritonparse trace; "
        "OUT a folder: a file in it named as tritonparse's parser expects)",
    )


def check_export(args: argparse.Namespace) -> str | None:
    """Why --export cannot be done as given (a message), or None."""
    if getattr(args, "export", None) and args.export[0] not in EXPORT_FORMATS:
        return f"--export {args.export[0]}: kx writes {', '.join(EXPORT_FORMATS)}"
    return None


def export_result(args: argparse.Namespace, result) -> int | None:
    """Write the --export record of a compile; an exit status when it could not."""
    import os

    from kx_core.recorded.trace_export import TRACE_PREFIX, export_tritonparse, trace_path

    out = trace_path(args.export[1])
    try:
        written = export_tritonparse(result, out)
    except ValueError as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    print(f"kx: {written} kernel(s) written to {out} as a tritonparse trace", file=sys.stderr)
    if not os.path.basename(out).startswith(TRACE_PREFIX):
        print(
            f"kx: tritonparse's parser reads files named {TRACE_PREFIX}*: name it so, or give a folder",
            file=sys.stderr,
        )
    return None


def open_command(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from kx_core.cli.result_output import format_result, result_json, stage_file_names, write_stages
    from kx_core.compile.artifacts.derived import with_derived
    from kx_core.recorded.open_record import RECORD_NAMES, NotARecord, open_record, record_notes

    wants_stages = bool(args.json or args.out or args.stage)
    try:
        opened = open_record(args.path, stages=wants_stages)
    except NotARecord as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    result = opened.result
    if args.kernel:
        kernels = tuple(k for k in result.kernels if k.name == args.kernel)
        if not kernels:
            names = ", ".join(sorted({k.name for k in result.kernels})) or "none"
            print(f"kx: no kernel {args.kernel!r} in {args.path} (its kernels: {names})", file=sys.stderr)
            return cli_args.EXIT_USAGE
        result = replace(result, kernels=kernels)
    if wants_stages:
        result = with_derived(result)  # SASS and ELF from a cubin the record holds, labelled derived
    if args.out:
        write_stages(result, args.out)
    if args.json:
        doc = result_json(result) | {"record": {"kind": opened.kind, "path": opened.path}}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.stage:
        shown = [k for k in result.kernels if args.stage in k.stages]
        for k, base in zip(shown, stage_file_names(shown)):
            derived = args.stage in (k.metadata.extra.get("derived_stages", ()) if k.metadata else ())
            if len(shown) > 1 or derived:
                print(f"// ===== {base}{' (derived by kx from the cubin)' if derived else ''} =====")
            print(k.stages[args.stage])
        if not shown:
            print(f"kx: no kernel of {args.path} has a {args.stage} stage", file=sys.stderr)
    else:
        print(f"{RECORD_NAMES[opened.kind]}: {len(result.kernels)} kernel(s)")
        print(format_result(result))
        notes = {n for k in result.kernels for n in record_notes(k)}
        for note in sorted(notes - {"its stages are read from the trace when it is selected"}):
            print(f"note: {note}")
    for d in result.diagnostics if args.json or args.stage else ():
        print(f"kx: {d}", file=sys.stderr)
    return result.exit_status
