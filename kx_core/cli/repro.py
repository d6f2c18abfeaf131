"""`kx repro FILE --kernel NAME [--config LABEL] [--index N] [-o OUT.py]`: compile FILE as
`kx compile` does, pick one captured launch and write a standalone script that compiles
(and launches) that kernel as the capture did and checks Triton's hash
(kx_core.lab.repro). The script goes to OUT.py, or to stdout; nothing is written where
the user did not ask.

    $ kx repro matmul.py --kernel matmul_kernel --index 1 -o repro.py
    repro.py: matmul_kernel[BLOCK_M=64,...] (launch mode), expected hash 3f2a...

FILE is compiled whole, as `kx compile FILE` captures it; --kernel, --config and --index
name one of its launches (with --arg or --signature, --kernel is the kernel to call, as
for `kx compile`).

Exit statuses: 0 written; 1 a kernel kx cannot write a repro for (the message says why);
2 a bad command line (no such kernel, several launches and no --index: the choices are
listed); where nothing compiled, the compile's own (kx_core.cli.args).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys

from kx_core.cli import args as cli_args
from kx_core.lab.repro import make_repro, pick_kernel
from kx_core.lab.repro_types import ReproChoiceError, ReproError
from kx_core.records.results import CompileResult


def add_repro_verb(sub, add_compile_options) -> None:
    p = sub.add_parser(
        "repro",
        help="a standalone script that compiles one captured kernel as the capture did (Triton's hash checked)",
    )
    add_compile_options(p)
    for action in p._actions:  # the compile options' --kernel, said as this verb reads it
        if "--kernel" in action.option_strings:
            action.help = (
                "the kernel whose launch to reproduce (with --arg or --signature: the kernel to call)"
            )
    p.add_argument(
        "--config", metavar="LABEL", help="the autotune config: its full or short label ('BLOCK=64,w4,s3')"
    )
    p.add_argument(
        "--index",
        type=cli_args.int_in(0),
        metavar="N",
        help="the N-th (from 0) of the kernel's launches where several match (the message lists them)",
    )
    p.add_argument("-o", "--output", metavar="OUT.py", help="write the script here (default: stdout)")
    p.add_argument("--json", action="store_true", help="answer in JSON: the script's path and expected hash")


def repro_command(args: argparse.Namespace) -> int:
    """Compile the whole file as `kx compile FILE` does (--kernel picks a launch of it,
    unless --arg or --signature make it the kernel to call), then write the repro."""
    from kx_core.base.triton_envs import VersionError
    from kx_core.cli.compiling import compile_from_args
    from kx_core.compile.wire.source_file import KernelFileError
    from kx_core.records.results import RequestError
    from kx_core.records.target import TargetError

    request_args = copy.copy(args)
    request_args.passes = False
    if not (args.arg or args.signature):
        request_args.kernel = None  # every launch of the file, as `kx compile FILE` captures them
    try:
        result = compile_from_args(request_args)
    except (TargetError, KernelFileError, RequestError, VersionError) as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    except FileNotFoundError as e:
        print(f"kx: no such file: {e.filename}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    if not any(k.status == "compiled" for k in result.kernels):
        # nothing to reproduce: what stopped the compile, located, is the answer
        for d in result.diagnostics:
            print(f"kx: {d}", file=sys.stderr)
        if not result.diagnostics:
            print(f"kx: {args.file}: no compiled kernel", file=sys.stderr)
        return result.exit_status or cli_args.EXIT_FAILED
    return repro_output(args, result)


def repro_output(args: argparse.Namespace, result: CompileResult) -> int:
    """Write the repro of the launch args name (kernel, config, index) of `result`."""
    try:
        kernel = pick_kernel(result, args.kernel, args.config, args.index)
        repro = make_repro(result, kernel)
    except ReproChoiceError as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    except ReproError as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_FAILED
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(repro.script)
        os.chmod(args.output, 0o755)  # it starts with #!/usr/bin/env python3
    if args.json:
        answer = {
            "path": os.path.abspath(args.output) if args.output else None,
            "kernel": repro.kernel,
            "expected_hash": repro.expected_hash,
            "mode": repro.mode,
            "target": repro.target,
            "source_file": repro.source_file,
        }
        if not args.output:
            answer["script"] = repro.script
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.output:
        print(f"{args.output}: {repro.kernel} ({repro.mode} mode), expected hash {repro.expected_hash}")
    else:
        sys.stdout.write(repro.script)
    return cli_args.EXIT_OK
