"""`kx compare A B`: two builds side by side, each side FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH]
(kx_core.compare.sides); the compile options after them apply to both sides."""

from __future__ import annotations

import argparse
import copy
import dataclasses
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
    p.add_argument(
        "--time",
        action="store_true",
        help="the GPU side: time both sides interleaved on the local GPU, with an interval and a verdict",
    )
    p.add_argument("--rounds", type=cli_args.positive_int, default=20, help="interleaved rounds (20)")


def compare_command(args: argparse.Namespace) -> int:
    from kx_core.base.triton_envs import VersionError
    from kx_core.cli.compiling import compile_from_args as _compile
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
    results, sides = [], []
    for side in (side_a, side_b):
        one = copy.copy(args)
        one.file = side.file
        one.target = side.target or args.target
        one.gpu = side.gpu or args.gpu
        one.python = side.python or (None if side.triton else args.python)
        one.triton = side.triton or (None if side.python else getattr(args, "triton", None))
        try:
            result = _compile(one)  # resolves ,triton= to its environment's interpreter
            side = dataclasses.replace(side, python=one.python)
        except (TargetError, KernelFileError, RequestError, VersionError) as e:
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
        sides.append(side)
    side_a, side_b = sides
    try:
        comparison = compare_results(results[0], results[1], side_a, side_b)
    except SideError as e:
        print(f"kx compare: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    incomplete = False
    if args.time:
        comparison, incomplete = _timed(comparison, results, side_a, side_b, args.rounds)
    if args.json:
        json.dump(comparison.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_comparison(comparison))
    worst = max((r.exit_status for r in results), default=0)
    if worst:
        return worst
    if not comparison.pairs:
        return cli_args.EXIT_FAILED
    return cli_args.EXIT_INCOMPLETE if incomplete else cli_args.EXIT_OK


def _timed(comparison, results, side_a, side_b, rounds: int):
    """The comparison with each pair's GPU side, or a note saying why there is none (and
    True: what was asked is incomplete)."""
    import dataclasses

    from kx_core.bench.bench import has_gpu
    from kx_core.bench.paired import PairedError, time_pair
    from kx_core.compare.sides import pairs, pick
    from kx_core.model.kernel import model_kernel

    if not has_gpu():
        note = "--time: no local GPU, so only the compile side is compared"
        print(f"kx compare: {note}", file=sys.stderr)
        return dataclasses.replace(comparison, notes=comparison.notes + (note,)), True
    kernels, _ = pairs(pick(results[0], side_a.kernel), pick(results[1], side_b.kernel))
    out, incomplete = [], False
    for pair, (ka, kb) in zip(comparison.pairs, kernels):
        try:
            t = time_pair(
                results[0].file, ka.display_name, results[1].file, kb.display_name,
                python_a=side_a.python, python_b=side_b.python, rounds=rounds,
            )  # fmt: skip
        except PairedError as e:
            print(f"kx compare: {pair.kernel_a}: {e}", file=sys.stderr)
            out.append(pair)
            incomplete = True
            continue
        timing = t.to_json() | {"verdict_text": t.verdict_text}
        for tag, k, s in (("a", ka, t.median_a_ms * 1e-3), ("b", kb, t.median_b_ms * 1e-3)):
            if k.launch is None:
                continue
            m = model_kernel(k, measured_s=s)
            attainable = m.roofline.attainable
            timing[f"roofline_{tag}"] = {
                "intensity_flop_per_byte": m.roofline.intensity,
                "achieved_tflops": m.roofline.flops / s / 1e12,
                "percent_of_roof": 100 * (m.roofline.flops / s) / attainable if attainable else None,
                "gpu": m.gpu,
            }
        out.append(dataclasses.replace(pair, timing=timing))
    return dataclasses.replace(comparison, pairs=tuple(out)), incomplete
