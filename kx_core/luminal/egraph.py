"""L2 · E-graphs and equality saturation from scratch, with snapshots for the E-graph pane.

Luminal's search space is an e-graph built by egglog. An e-graph stores many equivalent
programs at once:

  e-node   an operator applied to e-classes      ("+", c1, c2)
  e-class  a set of e-nodes known to be equal    {a+b, b+a}
  rewrite  lhs -> rhs: when lhs matches in class C, add rhs and union it into C
  rebuild  restore congruence: if a == b then f(a) == f(b)
  saturate apply all rules until nothing new appears (or a budget runs out)
  extract  pick one e-node per class to minimise a cost -> one concrete program

Terms are tuples: ("+", x, y); leaves are strings or numbers; pattern variables start
with "?". Names and semantics are the drill's. What kx adds: a union keeps the *older*
class id (the smaller), so class ids stay stable across unions and a picture of the
graph can follow a class from one iteration to the next; `run` can record a `Snapshot`
after every iteration (classes, nodes, which nodes are new, which classes merged, the
matches per rule and the time each rule took).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from typing import Any

ENode = tuple  # (op, *child class ids)


@dataclass(frozen=True)
class Snapshot:
    """The e-graph after one iteration (iteration 0: before any rule ran)."""

    iteration: int
    classes: dict[int, tuple[ENode, ...]]  # canonical class id -> its e-nodes (children canonical)
    new_nodes: frozenset[tuple[int, ENode]] = frozenset()  # (class, e-node) absent the iteration before
    merged: tuple[tuple[int, int], ...] = ()  # (kept class, absorbed class) in this iteration
    matches: dict[str, int] = field(default_factory=dict)  # rule -> matches found
    rule_times: dict[str, float] = field(default_factory=dict)  # rule -> seconds spent matching
    stop: str | None = None  # set on the last snapshot
    sorts: dict[int, str] = field(default_factory=dict)  # class -> sort (egglog; empty in-house)
    op_costs: dict[str, float] = field(default_factory=dict)  # egglog's :cost per constructor

    @property
    def num_classes(self) -> int:
        return len(self.classes)

    @property
    def num_nodes(self) -> int:
        return sum(len(v) for v in self.classes.values())


class EGraph:
    def __init__(self):
        self.parent = {}  # union-find over class ids
        self.classes = {}  # canonical id -> set of canonical e-nodes
        self.hashcons = {}  # canonical e-node -> class id
        self._ids = count()
        self.pending = []
        self._merged: list[tuple[int, int]] = []

    # ---------------------------------------------------------- union-find
    def find(self, a):
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def canon(self, enode):
        op, *kids = enode
        return (op, *(self.find(k) for k in kids))

    # ---------------------------------------------------------- building
    def add_enode(self, enode):
        enode = self.canon(enode)
        if enode in self.hashcons:
            return self.find(self.hashcons[enode])
        cid = next(self._ids)
        self.parent[cid] = cid
        self.classes[cid] = {enode}
        self.hashcons[enode] = cid
        return cid

    def add(self, term):
        if isinstance(term, tuple):
            return self.add_enode((term[0], *(self.add(t) for t in term[1:])))
        return self.add_enode((term,))

    def union(self, a, b):
        """Merge two classes; the older (smaller) id is kept. True when they were apart."""
        a, b = self.find(a), self.find(b)
        if a == b:
            return False
        keep, gone = (a, b) if a < b else (b, a)
        self.parent[gone] = keep
        self.classes[keep] |= self.classes.pop(gone)
        self.pending.append(keep)
        self._merged.append((keep, gone))
        return True

    def rebuild(self):
        """Re-canonicalise every e-node; merge classes whose e-nodes became identical
        (congruence), until nothing changes."""
        while True:
            self.pending.clear()
            hashcons: dict[ENode, int] = {}
            to_merge = []
            for cid in list(self.classes):
                nodes = {self.canon(n) for n in self.classes[cid]}
                self.classes[cid] = nodes
                for n in nodes:
                    other = hashcons.get(n)
                    if other is not None and self.find(other) != self.find(cid):
                        to_merge.append((other, cid))
                    hashcons[n] = cid
            self.hashcons = hashcons
            if not to_merge:
                return
            for a, b in to_merge:
                self.union(a, b)

    # ---------------------------------------------------------- queries
    def equiv(self, t1, t2):
        """Whether two terms are in one class (adding them if absent; an absent term
        is equal to no other)."""
        a, b = self.add(t1), self.add(t2)
        self.rebuild()
        return self.find(a) == self.find(b)

    def num_classes(self):
        return len(self.classes)

    def num_nodes(self):
        return sum(len(v) for v in self.classes.values())

    # ---------------------------------------------------------- e-matching
    def ematch(self, pattern, cid, subst=None):
        """All substitutions {?var: class id} under which `pattern` matches in class cid."""
        subst = {} if subst is None else subst
        cid = self.find(cid)
        if isinstance(pattern, str) and pattern.startswith("?"):
            bound = subst.get(pattern)
            if bound is None:
                return [{**subst, pattern: cid}]
            return [subst] if self.find(bound) == cid else []
        if not isinstance(pattern, tuple):
            return [subst] if (pattern,) in self.classes[cid] else []
        op, *kids = pattern
        out = []
        for node in sorted(
            self.classes[cid], key=repr
        ):  # sorted: the same matches in the same order every run
            if node[0] != op or len(node) - 1 != len(kids):
                continue
            partial = [subst]
            for kid_pattern, kid_cid in zip(kids, node[1:]):
                partial = [s2 for s in partial for s2 in self.ematch(kid_pattern, kid_cid, s)]
                if not partial:
                    break
            out.extend(partial)
        return out

    def instantiate(self, pattern, subst):
        if isinstance(pattern, str) and pattern.startswith("?"):
            return self.find(subst[pattern])
        if not isinstance(pattern, tuple):
            return self.add_enode((pattern,))
        return self.add_enode((pattern[0], *(self.instantiate(k, subst) for k in pattern[1:])))

    # ---------------------------------------------------------- snapshots
    def snapshot(self, iteration: int, previous: Snapshot | None = None, **extra) -> Snapshot:
        classes = {cid: tuple(sorted(nodes, key=repr)) for cid, nodes in sorted(self.classes.items())}
        before = set()
        if previous is not None:
            before = {(self.find(c), self.canon(n)) for c, ns in previous.classes.items() for n in ns}
        new = frozenset((c, n) for c, ns in classes.items() for n in ns if (c, n) not in before)
        return Snapshot(iteration, classes, new if previous is not None else frozenset(), **extra)

    # ---------------------------------------------------------- saturation
    def run(
        self,
        rules,
        iter_limit=20,
        node_limit=10_000,
        on_iteration: Callable[[Snapshot], Any] | None = None,
    ):
        """Equality saturation. rules: [(name, lhs, rhs)]. Returns a report dict:
        {"stop": "saturated" | "iter_limit" | "node_limit", "iterations", "classes",
        "nodes", "matches" (per rule, in total)}. With on_iteration, a Snapshot is
        passed after the start and after each iteration."""
        self.rebuild()
        snap = self.snapshot(0) if on_iteration else None
        if on_iteration:
            on_iteration(snap)
        totals = {name: 0 for name, _, _ in rules}
        stop, iteration = "iter_limit", 0
        for iteration in range(1, iter_limit + 1):
            self._merged = []
            matches, times, found = {}, {}, []
            for name, lhs, rhs in rules:
                start = time.perf_counter()
                hits = [(cid, s) for cid in list(self.classes) for s in self.ematch(lhs, cid)]
                times[name] = time.perf_counter() - start
                matches[name] = len(hits)
                totals[name] += len(hits)
                found.extend((cid, rhs, s) for cid, s in hits)
            nodes_before, classes_before = self.num_nodes(), self.num_classes()
            changed = False
            for cid, rhs, s in found:
                changed |= self.union(cid, self.instantiate(rhs, s))
            self.rebuild()
            changed |= self.num_nodes() != nodes_before or self.num_classes() != classes_before
            if on_iteration:
                # a class kept by one union may be absorbed by a later one: name the survivor
                merged = tuple(sorted({(self.find(k), g) for k, g in self._merged}))
                snap = self.snapshot(iteration, snap, merged=merged, matches=matches, rule_times=times)
            if not changed:
                stop = "saturated"
            elif self.num_nodes() > node_limit:
                stop = "node_limit"
            if on_iteration:
                on_iteration(
                    Snapshot(
                        **{
                            **snap.__dict__,
                            "stop": stop if stop != "iter_limit" or iteration == iter_limit else None,
                        }
                    )
                )
            if stop in ("saturated", "node_limit"):
                break
        return {
            "stop": stop,
            "iterations": iteration,
            "classes": self.num_classes(),
            "nodes": self.num_nodes(),
            "matches": totals,
        }

    # ---------------------------------------------------------- extraction
    def best_choices(self, cost) -> dict[int, tuple[float, ENode]]:
        """Cheapest e-node of every class: a bottom-up fixpoint (classes may be cyclic,
        e.g. x*1 = x, so a class is costed once all children of one of its nodes are)."""
        canonical = {
            cid: tuple(sorted({self.canon(n) for n in nodes}, key=repr))
            for cid, nodes in self.classes.items()
        }
        return cheapest(canonical, cost)

    def extract(self, cid, cost):
        """(cost, cheapest term) of class cid. cost(op, child_costs) -> number."""
        best = self.best_choices(cost)

        def term(c):
            node = best[self.find(c)][1]
            if len(node) == 1:
                return node[0]
            return (node[0], *(term(k) for k in node[1:]))

        root = self.find(cid)
        return best[root][0], term(root)


# ---------------------------------------------------------------- rule sets
COMM_ASSOC = [
    ("comm-add", ("+", "?a", "?b"), ("+", "?b", "?a")),
    ("assoc-add", ("+", ("+", "?a", "?b"), "?c"), ("+", "?a", ("+", "?b", "?c"))),
]
ALGEBRA = COMM_ASSOC + [
    ("mul-one", ("*", "?a", 1), "?a"),
    ("add-zero", ("+", "?a", 0), "?a"),
    ("factor", ("+", ("*", "?a", "?b"), ("*", "?a", "?c")), ("*", "?a", ("+", "?b", "?c"))),
    ("exp2-log2", ("exp2", ("log2", "?a")), "?a"),
]


def ast_size(op, kids):
    return 1 + sum(kids)


def op_cost(op, kids):
    """Rough kernel cost: multiplies cost more than adds; leaves are free."""
    return {"*": 4, "+": 1, "exp2": 8, "log2": 8}.get(op, 0) + sum(kids)


def evaluate(term, env, dtype=float):
    """Evaluate a term with Python floats or numpy scalars: which rewrites change bits."""
    import math

    if isinstance(term, tuple):
        op, *k = term
        v = [evaluate(t, env, dtype) for t in k]
        return {
            "+": lambda a, b: dtype(a + b),
            "*": lambda a, b: dtype(a * b),
            "exp2": lambda a: dtype(2.0**a),
            "log2": lambda a: dtype(math.log2(a)),
        }[op](*v)
    return dtype(env[term]) if isinstance(term, str) else dtype(term)


def cheapest(classes: dict[int, tuple[ENode, ...]], cost) -> dict[int, tuple[float, ENode]]:
    """The cheapest e-node of every class (e-nodes in a fixed order, children canonical):
    a bottom-up fixpoint; ties go to the first e-node, so every run picks the same."""
    best: dict[int, tuple[float, ENode]] = {}
    changed = True
    while changed:
        changed = False
        for cid, nodes in classes.items():
            for node in nodes:
                kids = node[1:]
                if any(k not in best for k in kids):
                    continue
                c = cost(node[0], [best[k][0] for k in kids])
                if cid not in best or c < best[cid][0]:
                    best[cid] = (c, node)
                    changed = True
    return best


def snapshot_choices(snapshot: Snapshot, cost) -> dict[int, tuple[float, ENode]]:
    """The cheapest e-node of every class of a snapshot (either engine)."""
    return cheapest(snapshot.classes, cost)


def extraction(snapshot: Snapshot, cost, root_classes) -> set[tuple[int, ENode]]:
    """The e-nodes the cheapest programs of `root_classes` are made of."""
    best = snapshot_choices(snapshot, cost)
    chosen: set[tuple[int, ENode]] = set()
    stack = [c for c in root_classes if c in best]
    while stack:
        c = stack.pop()
        node = best[c][1]
        if (c, node) in chosen:
            continue
        chosen.add((c, node))
        stack.extend(k for k in node[1:] if k in best)
    return chosen


EGGLOG_OP_COST = {"Add": 1, "Mul": 4, "Exp2": 8, "Log2": 8, "MatMul": 10, "AddBias": 3, "Relu": 3}


def any_op_cost(op, kids):
    """op_cost for kx's ops and egglog's constructor names alike (literals are free)."""
    return {**EGGLOG_OP_COST, "*": 4, "+": 1, "exp2": 8, "log2": 8}.get(op, 0) + sum(kids)
