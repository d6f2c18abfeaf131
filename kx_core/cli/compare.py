"""`kx compare A B`: two builds side by side, each side FILE[@TARGET][#KERNEL][,gpu=G][,python=PATH]
(kx_core.compare.sides); the compile options after them apply to both sides."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import os
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
        "--llvm-passes",
        action="store_true",
        help="with --passes: LLVM's passes too (its print-after-all doubles the capture's time)",
    )
    p.add_argument(
        "--time",
        action="store_true",
        help="the GPU side: time both sides interleaved on the local GPU, with an interval and a verdict",
    )
    p.add_argument("--rounds", type=cli_args.positive_int, default=20, help="interleaved rounds (20)")
    p.add_argument(
        "--hot",
        action="store_true",
        help="--time, and sample both sides' instructions and show the lines whose time per call changed",
    )


def compare_command(args: argparse.Namespace) -> int:
    from kx_core.base.triton_envs import VersionError
    from kx_core.cli.compiling import compile_from_args as _compile
    from kx_core.compare.report import compare_results, format_comparison
    from kx_core.compare.sides import SideError, parse_side
    from kx_core.compile.wire.source_file import KernelFileError
    from kx_core.records.results import CompileResult, RequestError
    from kx_core.records.target import TargetError

    try:
        side_a, side_b = parse_side(args.a), parse_side(args.file)
    except SideError as e:
        print(f"kx compare: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    ones = []
    for side in (side_a, side_b):
        one = copy.copy(args)
        one.file = side.file
        one.target = side.target or args.target
        one.gpu = side.gpu or args.gpu
        one.python = side.python or (None if side.triton else args.python)
        one.triton = side.triton or (None if side.python else getattr(args, "triton", None))
        # the MLIR pipelines, where builds diverge; LLVM's dump is most of a capture's time
        one.llvm_passes = args.llvm_passes
        ones.append(one)
    # Both sides at once, each in its own worker process: a compare costs about one
    # side's compile, passes included, where there are two cores for them
    outcomes = _both(_compile, ones)
    results, sides = [], []
    for side, one, (result, error) in zip((side_a, side_b), ones, outcomes, strict=True):
        if isinstance(error, (TargetError, KernelFileError, RequestError, VersionError)):
            print(f"kx compare: {side.label}: {error}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        if isinstance(error, FileNotFoundError):
            print(f"kx compare: no such file: {error.filename}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        if error is not None:
            raise error
        side = dataclasses.replace(side, python=one.python)  # ,triton= resolved to its interpreter
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
    if args.time or args.hot:  # --hot samples what --time measures
        comparison, incomplete = _timed(comparison, results, side_a, side_b, args.rounds, args.hot)
    if args.json:
        json.dump(comparison.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_comparison(comparison))
    worst = CompileResult.worst_exit_status(r.exit_status for r in results)
    if worst:
        return worst
    if not comparison.pairs:
        return cli_args.EXIT_FAILED
    return cli_args.EXIT_INCOMPLETE if incomplete else cli_args.EXIT_OK


def _both(compile_one, ones: list) -> list[tuple]:
    """(result, None) or (None, the exception) for each side, compiled concurrently
    where this machine has the cores for it, else one after the other."""

    def one(args):
        try:
            return compile_one(args), None
        except Exception as e:  # noqa: BLE001 - handed back, reported in the side's order
            return None, e

    if len(os.sched_getaffinity(0)) < 2:
        return [one(a) for a in ones]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(ones), thread_name_prefix="kx-compare") as pool:
        return list(pool.map(one, ones))


def _timed(comparison, results, side_a, side_b, rounds: int, hot: bool = False):
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
            # placed by its compulsory traffic (each tensor once), as the Roofline pane
            # places it: the requested bytes count every L2 hit as DRAM traffic, which puts
            # a GEMM "above the roof"
            roof = m.roofline_unique or m.roofline
            timing[f"roofline_{tag}"] = {
                "intensity_flop_per_byte": roof.intensity,
                "bytes": "each tensor once" if m.roofline_unique else "requested",
                "achieved_tflops": roof.flops / s / 1e12,
                "percent_of_roof": roof.percent_of_roof,
                "bound": roof.bound,
                "gpu": m.gpu,
            }
        if hot:
            lines, why = _hot_lines(results, (side_a, side_b), (ka, kb))
            if lines is None:
                print(f"kx compare: --hot: {why}", file=sys.stderr)
                timing["hot_lines_missing"] = why
                incomplete = True
            else:
                timing["hot_lines"] = lines
        out.append(dataclasses.replace(pair, timing=timing))
    return dataclasses.replace(comparison, pairs=tuple(out)), incomplete


def _hot_lines(results, sides, kernels, top: int = 8):
    """(the hot-line difference of one pair as JSON, None) or (None, why not): each side's
    kernel sampled in its own profiling worker (kx_core.bench.profile), the chosen config's
    samples where the side names a config."""
    from kx_core.base.textfile import text_or_empty
    from kx_core.bench.bench import MeasureJob
    from kx_core.bench.requests import ProfileRequest
    from kx_core.compare.hot_diff import hot_diff
    from kx_core.ir.hot_lines import attribute

    profiles = []
    for result, side, k in zip(results, sides, kernels):
        if side.python:  # the profiling worker runs kx's own interpreter (its Triton)
            return None, f"{side.label}: hot lines are sampled with kx's own Triton only"
        request = ProfileRequest(kernel=k.name, config=k.config.label if k.config else None)
        found = MeasureJob(request, result.file).start().wait(600.0)
        match = [p for p in found.kernels if p.kernel == k.name and p.by_pc]
        if not match:
            why = "; ".join(str(d) for d in found.diagnostics) or "no samples"
            return None, f"{side.label}: {k.display_name}: {why}"
        profiles.append(match[0])
    pa, pb = profiles
    texts = [{**p.stages, "source": text_or_empty(p.source_file)} for p in profiles]
    d = hot_diff(
        attribute(pa), attribute(pb),
        pa.window_ms / pa.calls * 1e3, pb.window_ms / pb.calls * 1e3, texts[0], texts[1],
    )  # fmt: skip
    changed = [x for x in d.lines if x.delta_us]
    return {
        "call_us_a": d.call_us_a,
        "call_us_b": d.call_us_b,
        "samples_a": pa.samples,
        "samples_b": pb.samples,
        "slower": {s: [x.to_json() for x in d.slower(s, top)] for s in ("source", "ttgir", "sass")},
        "faster": {
            s: [
                x.to_json()
                for x in sorted(changed, key=lambda x: x.delta_us)
                if x.stage == s and x.delta_us < 0
            ][:top]
            for s in ("source", "ttgir", "sass")
        },
    }, None
