"""`kx bench`: the measuring command of the CLI (kx_core.bench)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kx_core.bench.defaults import BUDGET_MS
from kx_core.bench.requests import OverrideRequest
from kx_core.cli.args import positive_number, seconds
from kx_core.cpu.targets import CPP_FILES, CPP_SOURCES
from kx_core.records.results import short_name


def add_bench_command(sub) -> None:
    b = sub.add_parser("bench", help="run a file for real on the local GPU and time every launch")
    b.add_argument("file")
    b.add_argument("--kernel", help="only this kernel")
    b.add_argument("--configs", choices=["chosen", "all"], default="chosen", help="autotune configs to time")
    b.add_argument(
        "--budget-ms",
        type=positive_number,
        default=BUDGET_MS,
        help=f"time spent per timed launch ({BUDGET_MS:g})",
    )
    b.add_argument("--no-flush", action="store_true", help="do not flush L2 between calls")
    b.add_argument("--cuda-graph", action="store_true", help="time CUDA-graph replays of each launch")
    b.add_argument(
        "--do-bench",
        action="store_true",
        help="also time each call with triton.testing.do_bench (a reference)",
    )
    b.add_argument(
        "--interpret", action="store_true", help="no GPU: run the file through Triton's interpreter"
    )
    b.add_argument("--timeout", type=seconds, default=600.0)
    b.add_argument("--json", action="store_true")
    b.add_argument(
        "--baseline",
        help="FILE.cpp only: the PyTorch baseline (get_inputs(), Model or get_reference_output())",
    )
    b.add_argument(
        "--op", help="FILE.cpp only: the op to time, namespace::name (default: the folder's only op)"
    )
    b.add_argument(
        "--perf",
        action="store_true",
        help="FILE.cpp only: hardware counters of the op's calls through perf stat, with advice",
    )
    b.add_argument(
        "--override",
        metavar="STAGE_FILE",
        help="run the kernel edited at one stage (.ttir/.ttgir/.llir/.ptx) against the original: checked and timed",
    )
    b.add_argument(
        "--save-trial",
        metavar="STRATEGY",
        help="save what was measured as a trial: a C++ kernel's folder, an --override's stage file",
    )
    c = sub.add_parser("check", help="compare a file's kernels with their references over many inputs")
    c.add_argument("file")
    c.add_argument("--timeout", type=seconds, default=600.0)
    c.add_argument("--json", action="store_true")
    k = sub.add_parser("kernelbench", help="judge the KernelBench-style task library (CPU, numpy candidates)")
    k.add_argument("--mode", choices=["naive", "hardened", "both"], default="both")
    k.add_argument("--task", help="only this task")
    k.add_argument("--json", action="store_true")


def bench_command(args: argparse.Namespace) -> int:
    if args.file.endswith(CPP_SOURCES):
        return _bench_cpp(args)
    if args.override:
        return _bench_override(args)
    from kx_core.bench.bench import NoGPU, bench_file, has_gpu

    if args.interpret or not has_gpu():
        return _interpret_command(args)
    try:
        result = bench_file(
            args.file,
            args.kernel,
            args.configs == "all",
            args.budget_ms,
            not args.no_flush,
            args.cuda_graph,
            args.timeout,
            do_bench=args.do_bench,
        )
    except NoGPU as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    models = _models(args.file, result)
    if args.json:
        out = result.to_json()
        out["models"] = {name: m.to_json() for name, m in models.items()}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return 0 if result.ok else 1
    print(
        f"{result.file} on {result.device} (triton {result.triton_version}), L2 flushed: {result.settings.get('flush_l2')}"
    )
    width = max((len(short_name(t.kernel, t.config)) for t in result.timings), default=0)
    for t in result.timings:
        print(_timing_row(t, models.get(t.display_name), width))
    for d in result.diagnostics:
        print(d, file=sys.stderr)
    return 0 if result.ok else 1


def _bench_cpp(args: argparse.Namespace) -> int:
    """`kx bench FILE.cpp --baseline B.py`: build as a torch extension, compare, time."""
    from kx_core.bench.cpu_bench import run

    if not args.baseline:
        print(
            "kx: a C++ kernel is timed against a PyTorch baseline: give --baseline BASELINE.py",
            file=sys.stderr,
        )
        return 2
    r = run(args.file, args.baseline, args.op, args.timeout, perf=args.perf)
    trial = None
    if args.save_trial is not None:
        folder = os.path.dirname(os.path.abspath(args.file))
        trial = _save_trial(
            os.path.basename(folder),
            args.baseline,
            folder,
            args.save_trial,
            r,
            r.kernel.median_us if r.kernel else None,
            r.baseline.median_us if r.baseline else None,
        )
    if _json_or_diagnostics(args, r):
        if r.kernel and r.baseline:
            tier = f", {r.extra['tier']} path" if r.extra.get("tier") else ""
            print(f"{r.op} on the local CPU ({r.threads} threads{tier}), built in {r.build_s:.1f} s")
            if r.extra.get("variants"):
                print(f"  variants in the folder: {', '.join(r.extra['variants'])}")
            if r.extra.get("tier_note"):
                print(f"  note: {r.extra['tier_note']}")
            print(f"  correct: {'yes' if r.correct else 'NO'}" + "".join(f"\n    {m}" for m in r.mismatches))
            print(
                f"  kernel   median {r.kernel.median_us:9.1f} us  IQR {r.kernel.iqr_us:6.1f} us  ({r.kernel.runs} blocks)"
            )
            print(
                f"  baseline median {r.baseline.median_us:9.1f} us  IQR {r.baseline.iqr_us:6.1f} us  ({r.baseline.runs} blocks)"
            )
            print(f"  speed-up {r.speedup:.2f}x (baseline / kernel, medians)")
        if r.perf is not None:
            print(_perf_lines(r.perf))
        if trial:
            print(trial)
    return 0 if r.correct and not r.diagnostics else 1


def _bench_override(args: argparse.Namespace) -> int:
    """`kx bench FILE --override STAGE_FILE`: the edited kernel checked and timed against the original."""

    from kx_core.bench.bench import MeasureJob, NoGPU
    from kx_core.bench.override import stage_of

    if not os.path.isfile(args.override):
        print(f"kx: {args.override}: no such file", file=sys.stderr)
        return 2
    try:
        stage_of(args.override)
        job = MeasureJob(OverrideRequest(stage_file=args.override, kernel=args.kernel), args.file).start()
    except (ValueError, NoGPU) as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    r = job.wait(args.timeout)
    trial = None
    if args.save_trial is not None and r.edited is not None:
        trial = _save_trial(
            os.path.splitext(os.path.basename(args.file))[0],
            args.file,
            args.override,
            args.save_trial or f"edited {r.stage}",
            r,
            r.edited.median_us,
            r.original.median_us,
        )
    if _json_or_diagnostics(args, r):
        if r.original and r.edited:
            print(f"{r.kernel} edited at {r.stage} ({os.path.basename(r.stage_file)}) on {r.device}")
            print(
                f"  same outputs as the original: {'yes' if r.correct else 'NO'}"
                + "".join(f"\n    {m}" for m in r.mismatches[:5])
            )
            print(f"  original median {r.original.median_us:9.2f} us  IQR {r.original.iqr_us:6.2f} us")
            print(
                f"  edited   median {r.edited.median_us:9.2f} us  IQR {r.edited.iqr_us:6.2f} us  ({r.edited.rounds} alternating rounds)"
            )
            print(f"  speed-up {r.speedup:.3f}x (original / edited)")
        if trial:
            print(trial)
    return 0 if r.edited is not None and not r.diagnostics else 1


def _json_or_diagnostics(args: argparse.Namespace, r) -> bool:
    """`--json`: the result as JSON; else its diagnostics on stderr. True when the text
    report is still to print."""
    if args.json:
        json.dump(r.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return False
    for d in r.diagnostics:
        print(d, file=sys.stderr)
    return True


def _perf_lines(p) -> str:
    """The seed profiler's report: the counters' rates, then its advice."""
    lines = [f"  perf stat over {p.iters} calls:"]
    for label, value in (
        ("IPC", p.ipc),
        ("L1 miss rate %", p.l1_miss_pct),
        ("LLC miss rate %", p.llc_miss_pct),
        ("branch miss rate %", p.branch_miss_pct),
    ):
        if value is not None:
            lines.append(f"    {label:<20}{value:8.2f}")
    if p.message:
        lines.append(f"    {p.message}")
    lines += [f"    >> {rec}" for rec in p.recommendations]
    return "\n".join(lines)


def _save_trial(name: str, baseline_file: str, source: str, strategy: str, r, kernel_us, baseline_us) -> str:
    """Save a measured version (a C++ kernel's folder, an edited stage's file) in the
    trial tree `name`, with its outcome; the line to print."""

    from kx_core.bench.trials import TrialError, TrialStore, save_measured, trials_root

    try:
        store = TrialStore(trials_root(), name)
        store.init(os.path.abspath(baseline_file))
        tid = save_measured(
            store,
            source,
            strategy,
            correctness=("pass" if r.correct else "fail") if kernel_us is not None else None,
            kernel_us=kernel_us,
            baseline_us=baseline_us,
        )
    except TrialError as e:
        return f"  trial not saved: {e}"
    return f"  saved as trial {tid} in {store.dir}"


def _check_cpp(args: argparse.Namespace) -> int:
    """`kx check FILE.cpp`: the seed's correctness rules as static checks (kx_core.cpu.checks)."""
    from kx_core.cpu.checks import check_file as check_cpp

    found = check_cpp(args.file)
    if args.json:
        json.dump({"file": args.file, "diagnostics": [d.to_json() for d in found]}, sys.stdout)
        sys.stdout.write("\n")
    else:
        for d in found:
            print(d)
        print(f"{args.file}: {len(found)} rule{'s' * (len(found) != 1)} broken")
    return 1 if found else 0


def _interpret_command(args: argparse.Namespace) -> int:
    """`kx bench --interpret`, or plain `kx bench` where there is no GPU (which says so)."""
    from kx_core.bench.bench import interpret_file

    if not args.interpret:
        print(
            "kx: no CUDA GPU on this machine, so nothing can be timed. "
            "`kx bench --interpret FILE` runs the file through Triton's interpreter on CPU tensors "
            "instead, which checks its results (slowly), not its speed.",
            file=sys.stderr,
        )
        return 2
    r = interpret_file(args.file, args.timeout)
    if args.json:
        json.dump(r.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(
            f"{args.file}: {'ran cleanly' if r.ok else 'failed'} under Triton's interpreter (CPU) in {r.seconds:.1f} s"
        )
        for d in r.diagnostics:
            print(d, file=sys.stderr)
    return 0 if r.ok else 1


def _timing_row(t, m, width: int) -> str:
    """One launch's row: median, spread, first call, do_bench, and the model's rates."""
    from kx_core.model.kernel import bandwidth_text

    tm = t.timing
    line = (
        f"  {short_name(t.kernel, t.config):{width}} median {tm.median_ms * 1e3:9.1f} us  IQR {tm.iqr_ms * 1e3:7.1f} us  n={tm.n}"
        + ("  *" if t.chosen and t.config else "")
        + (f"  first call {tm.first_call_ms:.1f} ms" if tm.first_call_ms is not None else "")
        + (f"  do_bench {t.do_bench_ms * 1e3:.1f} us" if t.do_bench_ms is not None else "")
    )
    if m is not None:
        s = tm.median_ms * 1e-3
        roof = m.roofline_unique or m.roofline
        line += (
            f"  {m.work.flops / s / 1e12:7.2f} TFLOP/s, {bandwidth_text(m, s)},"
            f" {100 * m.work.flops / s / roof.attainable:5.1f}% of roof"
        )
    return line


def _models(path: str, result) -> dict:
    """The model of each timed launch (local GPU, measured ceilings when cached)."""
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.model.gpu import local_gpu
    from kx_core.model.kernel import model_kernel

    gpu = local_gpu(exact=True)
    compiled = compile_file(CompileRequest(file=path, target="local"))
    seconds = result.seconds_by_name()
    out = {}
    for k in compiled.kernels:
        if k.status == "compiled" and k.launch is not None and k.display_name in seconds:
            out[k.display_name] = model_kernel(
                k, gpu, measured_s=seconds[k.display_name], measured_roofs=bool(gpu.measured)
            )
    return out


def kernelbench_command(args: argparse.Namespace) -> int:
    from kx_core.bench.kernelbench import evaluate_library, fast_p, fast_p_at_k, library, per_task_rates

    cands = [c for c in library() if args.task in (None, c.task)]
    if not cands:
        print(f"kx: no candidates for task {args.task!r}", file=sys.stderr)
        return 2
    from kx_core.bench.kernelbench import _has_cuda, needs_gpu

    skipped = [c for c in cands if needs_gpu(c.src) and not _has_cuda()]
    cands = [c for c in cands if c not in skipped]
    if skipped:
        print(
            f"({len(skipped)} Triton candidate(s) need a CUDA GPU and are not judged here)", file=sys.stderr
        )
    modes = ("naive", "hardened") if args.mode == "both" else (args.mode,)
    results = {m: evaluate_library(m, cands) for m in modes}
    if args.json:
        json.dump(
            {m: [r.to_json() | {"speedup": r.speedup} for r in rs] for m, rs in results.items()}, sys.stdout
        )
        sys.stdout.write("\n")
        return 0
    show = lambda r: f"{r.speedup:.2f}x" if r.correct else r.status
    print(f"{'task':24} {'candidate':26} " + " ".join(f"{m:>13}" for m in modes) + "  why (last mode)")
    for i, c in enumerate(cands):
        rs = [results[m][i] for m in modes]
        print(f"{c.task:24} {c.name:26} " + " ".join(f"{show(r):>13}" for r in rs) + f"  {rs[-1].msg[:60]}")
    for m, rs in results.items():
        q = per_task_rates(rs, 1.0)
        print(
            f"{m}: fast_0 {fast_p(rs, 0.0):.2f}  fast_1 {fast_p(rs, 1.0):.2f}  fast_2 {fast_p(rs, 2.0):.2f}  "
            f"fast_1@5 {fast_p_at_k(q, 5):.2f}"
        )
    return 0


def check_command(args: argparse.Namespace) -> int:
    if args.file.endswith(CPP_FILES):
        return _check_cpp(args)
    from kx_core.bench.bench import check_file

    report = check_file(args.file, args.timeout)
    if args.json:
        json.dump(report.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0 if report.ok else 1
    if report.error:
        print(f"kx: {report.file}: {report.error}", file=sys.stderr)
        return 1
    print(f"{report.file}: checked on {report.mode}")
    by_check: dict[str, list] = {}
    for r in report.results:
        by_check.setdefault(r.check, []).append(r)
    for name, rs in by_check.items():
        bad = [r for r in rs if not r.ok]
        print(f"  {name}: {len(rs) - len(bad)}/{len(rs)} (distribution, size) cases pass")
        dists = {}
        for r in rs:
            dists.setdefault(r.dist, [0, 0])
            dists[r.dist][0] += r.ok
            dists[r.dist][1] += 1
        print("    " + "  ".join(f"{d} {p}/{n}" for d, (p, n) in dists.items()))
        for r in bad[:3]:
            print(f"    FAIL {r.dist} size {r.size}: {r.reason[:100]}")
        print(f"    tolerance: {rs[-1].rationale}")
    return 0 if report.ok else 1
