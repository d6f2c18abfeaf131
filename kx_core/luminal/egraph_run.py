"""One e-graph saturation, under hard limits, in a child process: the E-graph pane and
`kx egraph` both run here. An egglog program whose schedule never saturates, or a term
whose rules grow without end, costs at most `seconds` (the child is then killed),
`steps` iterations and `node_limit` e-nodes; a crash of egglog (a panic) is a message.

Source: an `.egg` file's text (egglog), or a kx term such as '(+ (* x y) (* x z))' with a
rule set (algebra, comm_assoc) and an engine (kx, egglog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Defaults a run never passes: iterations, e-nodes, seconds.
MAX_STEPS, MAX_NODES, MAX_SECONDS = 30, 20_000, 20.0
# A term deeper than this is refused before parsing (Python's own recursion would stop it)
MAX_TERM_DEPTH = 400


@dataclass(frozen=True)
class EgraphRun:
    """Snapshots of every iteration, the stop report, the program's outputs (egglog's
    extract/check) and the engine that ran."""

    engine: str
    snapshots: list = field(default_factory=list)
    report: dict = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    extraction: list[str] = field(default_factory=list)


class TermError(ValueError):
    """A term kx cannot read (before anything runs)."""


def check_term(text: str) -> None:
    """Read a term in this process (cheap): raises TermError with what is wrong."""
    from kx_core.luminal.terms import parse_term

    if _depth(text) > MAX_TERM_DEPTH:
        raise TermError(f"the term nests deeper than {MAX_TERM_DEPTH} levels")
    try:
        parse_term(text)
    except RecursionError as e:
        raise TermError("the term nests too deeply to read") from e
    except ValueError as e:
        raise TermError(str(e)) from e


def _depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        best = max(best, depth)
    return best


def run_here(
    source: str,
    is_program: bool,
    rules: str = "algebra",
    engine: str = "kx",
    steps: int | None = None,
    node_limit: int = MAX_NODES,
    cost: str = "op_cost",
) -> EgraphRun:
    """The saturation itself (in the child). Raises ValueError for bad input."""
    from kx_core.luminal import egraph as l2

    steps = min(steps, MAX_STEPS * 10) if steps else None
    snaps: list = []
    if is_program:
        from kx_core.luminal.egglog_backend import EgglogRun

        run = EgglogRun(source)
        report = run.run(steps, node_limit, snaps.append)
        return EgraphRun("egglog", snaps, report, run.outputs, run.outputs)
    if _depth(source) > MAX_TERM_DEPTH:
        raise ValueError(f"the term nests deeper than {MAX_TERM_DEPTH} levels")
    from kx_core.luminal.terms import format_term, parse_term

    term = parse_term(source)
    rule_set = {"comm_assoc": l2.COMM_ASSOC, "algebra": l2.ALGEBRA}[rules]
    if engine == "egglog":
        from kx_core.luminal.egglog_backend import EgglogRun, program_for

        run = EgglogRun(program_for([term], rule_set) + "(extract $t0)\n")
        report = run.run(steps or MAX_STEPS, node_limit, snaps.append)
        return EgraphRun("egglog", snaps, report, [], run.outputs)
    g = l2.EGraph()
    root = g.add(term)
    report = g.run(rule_set, steps or MAX_STEPS, node_limit, snaps.append)
    best_cost, best = g.extract(root, getattr(l2, cost))
    return EgraphRun("kx", snaps, report, [], [f"extract ({cost}): cost {best_cost}: {format_term(best)}"])


def run(source: str, is_program: bool, seconds: float = MAX_SECONDS, **options: Any) -> EgraphRun:
    """run_here in kx's e-graph service child, killed after `seconds`. Raises ValueError
    with what went wrong (bad input, a crash, the time limit)."""
    from kx_core.base import service

    try:
        return service.call("egraph", run_here, source, is_program, *_ordered(options), timeout=seconds)
    except service.ServiceTimeout as e:
        raise ValueError(f"the saturation {e}: bound it with --steps or a smaller term") from e
    except service.ServiceDied as e:
        raise ValueError(f"the e-graph engine {e}") from e
    except RecursionError as e:
        raise ValueError("the term nests too deeply to read") from e


def _ordered(options: dict) -> list:
    names = ("rules", "engine", "steps", "node_limit", "cost")
    defaults = {"rules": "algebra", "engine": "kx", "steps": None, "node_limit": MAX_NODES, "cost": "op_cost"}
    return [options.get(n, defaults[n]) for n in names]
