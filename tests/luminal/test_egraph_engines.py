"""kx's e-graph engine and egglog, iteration by iteration: same class and node counts for
the same rules and terms; snapshots with stable ids; the example programs; kx egraph."""

from __future__ import annotations

import json

import pytest

from kx_core.luminal import egraph as l2
from kx_core.luminal.egglog_backend import EgglogRun, count_sort, program_for, split_commands
from kx_core.luminal.terms import format_term, parse_term
from kx_testing import ROOT, run_kx

EGG = ROOT / "kx_core" / "data" / "egraph"


def _chain(n):
    t = "x0"
    for i in range(1, n):
        t = ("+", t, f"x{i}")
    return t


@pytest.mark.parametrize(
    "term, rules",
    [(_chain(n), l2.COMM_ASSOC) for n in (3, 4, 5)]
    + [(parse_term("(+ (* x y) (* x z))"), l2.ALGEBRA), (parse_term("(* (exp2 (log2 x)) 1)"), l2.ALGEBRA)],
)
def test_both_engines_agree_per_iteration(term, rules):
    ours = []
    g = l2.EGraph()
    g.add(term)
    report = g.run(rules, iter_limit=30, node_limit=10**6, on_iteration=ours.append)
    theirs = []
    run = EgglogRun(program_for([term], rules))
    their_report = run.run(30, 10**6, theirs.append)
    assert report["stop"] == their_report["stop"] == "saturated"
    assert report["iterations"] == their_report["iterations"]
    # egglog also serializes its String/i64 literals as classes: compare the Math sort
    assert [(s.num_classes, s.num_nodes) for s in ours][-1] == count_sort(theirs[-1], "Math")


def test_snapshots_keep_class_ids_and_mark_what_is_new():
    snaps = []
    g = l2.EGraph()
    g.add(_chain(4))
    g.run(l2.COMM_ASSOC, on_iteration=snaps.append)
    assert snaps[0].iteration == 0 and snaps[-1].stop == "saturated"
    for before, after in zip(snaps, snaps[1:]):
        absorbed = {gone for _, gone in after.merged}
        assert set(before.classes) - absorbed <= set(after.classes)  # survivors keep their ids
        assert all(keep in after.classes for keep, _ in after.merged)
        assert after.num_nodes - before.num_nodes <= len(after.new_nodes)
    assert sum(len(s.new_nodes) for s in snaps[1:]) >= snaps[-1].num_nodes - snaps[0].num_nodes


def test_example_programs():
    r = EgglogRun((EGG / "comm_assoc.egg").read_text())
    assert r.run()["stop"] == "saturated" and count_sort(r.snapshots[-1], "Math") == (63, 608)
    a = EgglogRun((EGG / "algebra.egg").read_text())
    a.run()
    assert a.outputs[0].endswith('(Mul (Var "x") (Add (Var "y") (Var "z")))') and a.outputs[1].endswith(
        '(Var "x")'
    )
    f = EgglogRun((EGG / "matmul_relu_fusion.egg").read_text())
    f.run()
    assert all("MatMulBiasRelu" in o and "AddBias" not in o for o in f.outputs)
    with pytest.raises(ValueError, match="egglog"):
        EgglogRun("(datatype Math (Add Math Math))\n(let $x (Sub 1 2))")
    with pytest.raises(ValueError, match="never|unbalanced"):
        split_commands("(run 1")


def test_terms_round_trip_and_bad_terms():
    t = parse_term("(+ (* x y) (* x 1))")
    assert t == ("+", ("*", "x", "y"), ("*", "x", 1)) and format_term(t) == "(+ (* x y) (* x 1))"
    for bad in ("", "(+ a", "(+ a) b", ")", "(()"):
        with pytest.raises(ValueError):
            parse_term(bad)


def test_egraph_command():
    p = run_kx("egraph", "(+ (* x y) (* x z))", "--json")
    doc = json.loads(p.stdout)
    assert doc["report"]["stop"] == "saturated" and doc["extraction"] == [
        "extract (op_cost): cost 5: (* x (+ y z))"
    ]
    assert (
        doc["iterations"][0]["iteration"] == 0 and len(doc["iterations"]) == doc["report"]["iterations"] + 1
    )
    p = run_kx("egraph", str(EGG / "comm_assoc.egg"))
    assert p.returncode == 0 and "saturated after 8 iteration(s)" in p.stdout
    p = run_kx("egraph", "(+ a")
    assert p.returncode == 2 and "never closed" in p.stderr
