"""`kx compare A B`: two builds side by side, each side FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH]
(kx_core.compare.sides); the compile options after them apply to both sides."""

from __future__ import annotations

import argparse
import copy
import json
import sys

from kx_core.cli import args as cli_args


def add_compare_verb(sub, add_compile_options) -> None:
    p = sub.add_parser(
        "compare",
        help="two builds side by side: FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH] twice",
    )
    p.add_argument("a", help="side A: FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH]")
    add_compile_options(p)  # its FILE positional is side B
    p.add_argument("--json", action="store_true", help="every figure of every pair as JSON")


def compare_command(args: argparse.Namespace) -> int:
    from kx_core.cli.commands import _compile
    from kx_core.compare.report import compare_results, format_comparison
    from kx_core.compare.sides import SideError, parse_side
    from kx_core.compile.jobs.source_file import KernelFileError
    from kx_core.records.results import RequestError
    from kx_core.records.target import TargetError

    try:
        side_a, side_b = parse_side(args.a), parse_side(args.file)
    except SideError as e:
        print(f"kx compare: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    results = []
    for side in (side_a, side_b):
        one = copy.copy(args)
        one.file = side.file
        one.target = side.target or args.target
        one.gpu = side.gpu or args.gpu
        one.python = side.python or args.python
        try:
            result = _compile(one)
        except (TargetError, KernelFileError, RequestError) as e:
            print(f"kx compare: {side.label}: {e}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        except FileNotFoundError as e:
            print(f"kx compare: no such file: {e.filename}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        for d in result.diagnostics:
            if d.fatal:
                print(f"kx compare: {side.label}: {d}", file=sys.stderr)
        from kx_core.compile.artifacts.derived import with_derived

        results.append(with_derived(result, args.jobs))
    try:
        comparison = compare_results(results[0], results[1], side_a, side_b)
    except SideError as e:
        print(f"kx compare: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    if args.json:
        json.dump(comparison.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_comparison(comparison))
    worst = max((r.exit_status for r in results), default=0)
    return worst if worst else (0 if comparison.pairs else cli_args.EXIT_FAILED)
