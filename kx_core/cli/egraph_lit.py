"""`kx egraph`: equality saturation step by step, with either engine."""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.base.textfile import InputFileError, read_text
from kx_core.cli.args import int_in, seconds


def add_luminal_commands(sub) -> None:
    e = sub.add_parser(
        "egraph", help="saturate a term (kx's engine) or an .egg program (egglog), per iteration"
    )
    e.add_argument("term", help="a term like '(+ (* x y) (* x z))', or a FILE.egg")
    e.add_argument(
        "--rules", choices=["comm_assoc", "algebra"], default="algebra", help="rule set for a term"
    )
    e.add_argument(
        "--engine", choices=["kx", "egglog"], default="kx", help="engine for a term (an .egg uses egglog)"
    )
    e.add_argument(
        "--steps", type=int_in(0), help="iterations at most (a term: 20; an .egg: its own run counts)"
    )
    e.add_argument("--node-limit", type=int_in(1), default=10_000)
    e.add_argument("--seconds", type=seconds, default=20.0, help="stop the run after this long (20)")
    e.add_argument(
        "--cost", choices=["ast_size", "op_cost"], default="op_cost", help="extraction cost (kx engine)"
    )
    e.add_argument("--json", action="store_true")


def egraph_command(args: argparse.Namespace) -> int:
    from kx_core.luminal.egraph_run import TermError, check_term, run

    is_program = args.term.endswith(".egg")
    try:
        if is_program:
            source = read_text(args.term)
        else:
            source = args.term
            check_term(source)
        result = run(
            source,
            is_program,
            seconds=args.seconds,
            rules=args.rules,
            engine=args.engine,
            steps=args.steps,
            node_limit=args.node_limit,
            cost=args.cost,
        )
    except InputFileError as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    except TermError as e:
        print(f"kx: cannot read the term: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"kx: {e}", file=sys.stderr)
        return 1
    engine, snaps, report, extraction = result.engine, result.snapshots, result.report, result.extraction
    if args.json:
        json.dump(
            {
                "engine": engine,
                "report": report,
                "iterations": [
                    {"iteration": s.iteration, "classes": s.num_classes, "nodes": s.num_nodes, "new_nodes": len(s.new_nodes),
                     "merged": len(s.merged), "matches": s.matches}
                    for s in snaps
                ],
                "extraction": extraction,
            },
            sys.stdout,
        )  # fmt: skip
        sys.stdout.write("\n")
        return 0
    print(f"{engine}: {report['stop']} after {report['iterations']} iteration(s)")
    print(f"{'iter':>4} {'classes':>8} {'nodes':>8} {'new':>6} {'merged':>7}  matches per rule")
    for s in snaps:
        m = ", ".join(f"{k[:40]}: {v}" for k, v in s.matches.items())
        print(
            f"{s.iteration:>4} {s.num_classes:>8} {s.num_nodes:>8} {len(s.new_nodes):>6} {len(s.merged):>7}  {m}"
        )
    for line in extraction:
        print(line)
    return 0


def add_lit_commands(sub) -> None:
    lit = sub.add_parser(
        "lit", help="run Triton-style lit tests (// RUN: triton-opt ... | FileCheck ...) through kx"
    )
    lit.add_argument("files", nargs="+", metavar="FILE.mlir")
    lit.add_argument(
        "--minimize", metavar="OUT.mlir", help="shrink the first failing file's input into OUT.mlir"
    )
    lit.add_argument("--json", action="store_true")
    opt = sub.add_parser("opt", help="run triton-opt passes on an .mlir file (the pass playground)")
    opt.add_argument("file", metavar="FILE.mlir")
    opt.add_argument("passes", nargs=argparse.REMAINDER, help="triton-opt flags, e.g. -tritongpu-coalesce")
    opt.add_argument("--list", action="store_true", help="list the flags this triton can run")


def lit_command(args: argparse.Namespace) -> int:
    from kx_core.lab.lit import minimize, run_file_text

    results, status = {}, 0
    for path in args.files:
        try:
            text = read_text(path)
        except InputFileError as e:
            print(f"kx: {e}", file=sys.stderr)
            return 2
        results[path] = run_file_text(text)
        if any(r.status == "FAIL" for r in results[path]):
            status = 1
    if args.json:
        json.dump({p: [r.to_json() for r in rs] for p, rs in results.items()}, sys.stdout)
        sys.stdout.write("\n")
    else:
        for path, rs in results.items():
            for r in rs:
                print(f"{r.status}: {path}:{r.line}: {r.command}")
                if r.message:
                    print("    " + r.message.replace("\n", "\n    "))
        counts = [r.status for rs in results.values() for r in rs]
        print(", ".join(f"{counts.count(s)} {s.lower()}" for s in ("PASS", "FAIL", "UNSUPPORTED")))
    if args.minimize and status:
        path = next(p for p, rs in results.items() if any(r.status == "FAIL" for r in rs))
        with open(path, encoding="utf-8") as f:
            small, trials = minimize(f.read())
        with open(args.minimize, "w", encoding="utf-8") as f:
            f.write(small)
        print(
            f"minimised {path} in {trials} trials: {args.minimize} ({len(small.splitlines())} lines)",
            file=sys.stderr,
        )
    return status


def opt_command(args: argparse.Namespace) -> int:
    from kx_core.lab.playground import available_flags, run_passes

    if args.list:
        for flag, fn in available_flags().items():
            print(f"-{flag:48} {fn}")
        return 0
    flags = [f for f in args.passes if f.startswith("-")]
    split = "-split-input-file" in flags or "--split-input-file" in flags
    flags = [f for f in flags if f.lstrip("-") != "split-input-file"]
    try:
        text = read_text(args.file)
    except InputFileError as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    result = run_passes(text, flags, split)
    for u in result.unsupported:
        print(f"kx: {u}", file=sys.stderr)
    if result.error:
        print(f"kx: {args.file}: {result.error}", file=sys.stderr)
    if not result.ok:
        return 1
    sys.stdout.write(result.text())
    return 0
