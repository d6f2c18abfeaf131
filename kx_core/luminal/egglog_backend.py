"""egglog as a second e-graph engine: run an `.egg` program one iteration at a time through
the `egglog` package's bindings, snapshot the serialized e-graph after each, and keep
egglog's own per-rule match counts and times. Both engines give kx_core.luminal.egraph's
Snapshot, so the E-graph pane draws either.

An `.egg` program's own `(run N)` commands are taken out and replaced by N steps of
`(run 1)` (a snapshot after each); `(extract ...)`, `(check ...)` and printing commands run
after the last step, their output kept. kx's term/rule syntax translates to egglog with
`program_for`: ops become constructors of one sort `Math` (`+` -> Add, `*` -> Mul, ...),
string leaves `(Var "a")`, integer leaves `(Num 1)`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kx_core.luminal.egraph import Snapshot

OP_NAMES = {"+": "Add", "*": "Mul", "exp2": "Exp2", "log2": "Log2", "-": "Sub", "/": "Div"}


def _ctor(op: str) -> str:
    return OP_NAMES.get(op, re.sub(r"\W", "_", op).capitalize())


def term_to_egg(term) -> str:
    """A kx term in egglog syntax; pattern variables (?a) become egglog variables (a)."""
    if isinstance(term, tuple):
        return "(" + " ".join([_ctor(term[0])] + [term_to_egg(t) for t in term[1:]]) + ")"
    if isinstance(term, str) and term.startswith("?"):
        return term[1:]
    if isinstance(term, (int, float)) and not isinstance(term, bool):
        return f"(Num {int(term)})"
    return f'(Var "{term}")'


def _ops_arity(terms, rules) -> dict[str, int]:
    out: dict[str, int] = {}

    def walk(t):
        if isinstance(t, tuple):
            out[t[0]] = len(t) - 1
            for k in t[1:]:
                walk(k)

    for t in terms:
        walk(t)
    for _, lhs, rhs in rules:
        walk(lhs)
        walk(rhs)
    return out


def program_for(terms, rules) -> str:
    """An egglog program declaring the ops used, the rules as rewrites and each term as a
    global $t0, $t1, ..."""
    ctors = " ".join(f"({_ctor(op)}{' Math' * n})" for op, n in sorted(_ops_arity(terms, rules).items()))
    lines = [f"(datatype Math {ctors} (Var String) (Num i64))"]
    lines += [f"(rewrite {term_to_egg(lhs)} {term_to_egg(rhs)})  ; {name}" for name, lhs, rhs in rules]
    lines += [f"(let $t{i} {term_to_egg(t)})" for i, t in enumerate(terms)]
    return "\n".join(lines) + "\n"


def split_commands(text: str) -> list[str]:
    """Top-level s-expressions of an egglog program (comments dropped)."""
    out, depth, start, i, in_str = [], 0, None, 0, False
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == ";":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start is not None:
                out.append(text[start : i + 1])
                start = None
            elif depth < 0:
                raise ValueError(f"unbalanced ')' at character {i}")
        i += 1
    if depth:
        raise ValueError("unbalanced '(': the program ends inside an expression")
    return out


# Example: "(run 10)" or "(run my-rules 5)"
# Example: "(run 5)", "(run my-rules 3)"
_RUN_RE = re.compile(r"^\(run(?:\s+([\w-]+))?\s+(\d+)\s*\)$")
# Example: "(run-schedule (saturate (run)))", "(run-schedule (repeat 4 (run fold)))"
_SCHEDULE_RE = re.compile(r"^\(run-schedule\b")
# Example: "(run)", "(run fold)", "(run fold 2)" inside a schedule
_SCHEDULE_RUN_RE = re.compile(r"\(run(?:\s+([A-Za-z_][\w-]*))?(?:\s+\d+)?\s*\)")
_AFTER = ("(extract", "(check", "(print", "(query-extract")


@dataclass
class EgglogRun:
    """One egglog program, stepped one `(run 1)` at a time."""

    text: str
    steps: int = 0  # iterations the program's own (run N) commands asked for
    unbounded: bool = False  # a (run-schedule ...): as many iterations as it is given
    rulesets: list[str] = field(default_factory=list)  # what one step runs ("" = the default)
    after: list[str] = field(default_factory=list)  # commands run after the last step
    snapshots: list[Snapshot] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    _ids: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        import egglog.bindings as eb

        self._eb = eb
        self.egraph = eb.EGraph()
        body = []
        for cmd in split_commands(self.text):
            flat = " ".join(cmd.split())
            if m := _RUN_RE.match(flat):
                self.steps += int(m.group(2))
                self._ruleset(m.group(1) or "")
            elif _SCHEDULE_RE.match(flat):
                # a schedule runs until it says stop (saturate may never): kx steps its
                # rulesets one (run R 1) at a time, within the caller's bounds
                self.unbounded = True
                for name in _SCHEDULE_RUN_RE.findall(flat) or [""]:
                    self._ruleset(name)
            elif flat.startswith(_AFTER):
                self.after.append(cmd)
            else:
                body.append(cmd)
        self._run_text("\n".join(body))
        self.snapshots.append(self.snapshot(0))

    def _ruleset(self, name: str) -> None:
        if name not in self.rulesets:
            self.rulesets.append(name)

    def _run_text(self, text: str):
        try:
            return self.egraph.run_program(*self.egraph.parse_program(text))
        except self._eb.EggSmolError as e:
            raise ValueError(f"egglog: {e}") from e

    def _id(self, eclass: str) -> int:
        if eclass not in self._ids:
            self._ids[eclass] = len(self._ids)
        return self._ids[eclass]

    def serialized(self) -> dict:
        return json.loads(self.egraph.serialize([]).to_json())

    def snapshot(self, iteration: int, report=None, seconds: float = 0.0) -> Snapshot:
        d = self.serialized()
        nodes = d["nodes"]
        classes: dict[int, list] = {}
        for node in nodes.values():
            kids = tuple(self._id(nodes[c]["eclass"]) for c in node["children"])
            classes.setdefault(self._id(node["eclass"]), []).append((node["op"], *kids))
        sorts = {self._id(c): data.get("type", "") for c, data in d.get("class_data", {}).items()}
        op_costs = {node["op"]: float(node.get("cost", 1.0)) for node in nodes.values()}
        prev = self.snapshots[-1] if self.snapshots else None
        merged: list[tuple[int, int]] = []
        new = frozenset()
        if prev is not None:
            before = {(c, n) for c, ns in prev.classes.items() for n in ns}
            gone = set(prev.classes) - set(classes)
            for g in gone:  # where did its nodes go?
                for n in prev.classes[g]:
                    home = next((c for c, ns in classes.items() if n in ns), None)
                    if home is not None:
                        merged.append((home, g))
                        break
            new = frozenset((c, n) for c, ns in classes.items() for n in ns if (c, n) not in before)
        matches = {}
        times = {}
        if report is not None:
            matches = {_rule_name(k): int(v) for k, v in report.num_matches_per_rule.items()}
            times = {
                _rule_name(k): v.total_seconds() for k, v in report.search_and_apply_time_per_rule.items()
            }
        return Snapshot(
            iteration,
            {c: tuple(sorted(ns, key=repr)) for c, ns in sorted(classes.items())},
            new,
            tuple(merged),
            matches,
            times,
            sorts=sorts,
            op_costs=op_costs,
        )

    def step(self) -> tuple[Snapshot, bool]:
        """One `(run 1)`: the snapshot after it and whether anything changed."""
        start = time.perf_counter()
        reports = []
        for name in self.rulesets or [""]:
            out = self._run_text(f"(run {name} 1)" if name else "(run 1)")
            if out:
                reports.append(out[-1].report)
        seconds = time.perf_counter() - start
        report = reports[-1] if reports else None
        if len(reports) > 1 and any(r.updated for r in reports):
            report = next(r for r in reports if r.updated)
        snap = self.snapshot(len(self.snapshots), report, seconds)
        self.snapshots.append(snap)
        return snap, bool(report.updated) if report is not None else False

    def run(
        self, steps: int | None = None, node_limit: int = 10_000, on_iteration: Callable | None = None
    ) -> dict:
        """Step until saturated, `steps` iterations (default: the program's own run
        counts, else 10) or past node_limit; then the program's extract/check commands."""
        steps = (
            steps if steps is not None else (self.steps or 10) if not self.unbounded else max(self.steps, 30)
        )
        if on_iteration:
            on_iteration(self.snapshots[0])
        stop = "iter_limit"
        for _ in range(steps):
            snap, updated = self.step()
            if not updated:
                stop = "saturated"
            elif snap.num_nodes > node_limit:
                stop = "node_limit"
            if on_iteration:
                on_iteration(replace(snap, stop=stop if stop != "iter_limit" else None))
            if stop != "iter_limit":
                break
        for cmd in self.after:
            for out in self._run_text(cmd) or []:
                self.outputs.append(_describe_output(out))
        last = self.snapshots[-1]
        return {
            "stop": stop,
            "iterations": len(self.snapshots) - 1,
            "classes": last.num_classes,
            "nodes": last.num_nodes,
        }


def _rule_name(key: str) -> str:
    """egglog names a rule by its text; kx's programs put the kx name in a comment, which
    egglog drops, so the text stays the name."""
    return " ".join(str(key).split())


def _describe_output(out: Any) -> str:
    name = type(out).__name__
    if name == "ExtractBest":
        termdag, cost, term = out.termdag, out.cost, out.term
        try:
            text = termdag.to_string(term)
        except Exception:  # noqa: BLE001 - the binding's API varies by version
            text = str(term)
        return f"extract: cost {cost}: {text}"
    return f"{name}: {out}"


def count_sort(snap: Snapshot, sort: str) -> tuple[int, int]:
    """(classes, nodes) of one sort (egglog also serializes primitive String/i64 classes)."""
    cls = [c for c, s in snap.sorts.items() if s == sort]
    return len(cls), sum(len(snap.classes.get(c, ())) for c in cls)
