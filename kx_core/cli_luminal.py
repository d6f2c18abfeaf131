"""`kx egraph`: equality saturation step by step, with either engine."""

from __future__ import annotations

import argparse
import json
import sys


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
    e.add_argument("--steps", type=int, help="iterations at most (a term: 20; an .egg: its own run counts)")
    e.add_argument("--node-limit", type=int, default=10_000)
    e.add_argument(
        "--cost", choices=["ast_size", "op_cost"], default="op_cost", help="extraction cost (kx engine)"
    )
    e.add_argument("--json", action="store_true")


def egraph_command(args: argparse.Namespace) -> int:
    from kx_core.luminal import egraph as l2
    from kx_core.luminal.terms import format_term, parse_term

    snaps = []
    extraction = []
    if args.term.endswith(".egg"):
        from kx_core.luminal.egglog_backend import EgglogRun

        try:
            with open(args.term, encoding="utf-8") as f:
                run = EgglogRun(f.read())
            report = run.run(args.steps, args.node_limit, snaps.append)
        except (OSError, ValueError) as e:
            print(f"kx: {args.term}: {e}", file=sys.stderr)
            return 1
        extraction = run.outputs
        engine = "egglog"
    else:
        try:
            term = parse_term(args.term)
        except ValueError as e:
            print(f"kx: cannot read the term: {e}", file=sys.stderr)
            return 2
        rules = {"comm_assoc": l2.COMM_ASSOC, "algebra": l2.ALGEBRA}[args.rules]
        if args.engine == "egglog":
            from kx_core.luminal.egglog_backend import EgglogRun, program_for

            run = EgglogRun(program_for([term], rules) + "(extract $t0)\n")
            report = run.run(args.steps or 20, args.node_limit, snaps.append)
            extraction = run.outputs
        else:
            g = l2.EGraph()
            root = g.add(term)
            report = g.run(rules, args.steps or 20, args.node_limit, snaps.append)
            cost, best = g.extract(root, getattr(l2, args.cost))
            extraction = [f"extract ({args.cost}): cost {cost}: {format_term(best)}"]
        engine = args.engine
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
