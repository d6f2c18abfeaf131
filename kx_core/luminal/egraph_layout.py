"""Layout of an e-graph snapshot with Graphviz's dot (the `graphviz-pure` package: a port
of Graphviz with the `dot` command line, no system install), one cluster per e-class.

The pane lays out the *last* snapshot of a run once and shows every earlier one as a
subset of it: nothing is deleted during saturation, classes only merge, so each e-node
of iteration k has a place in the final picture (its children renamed through the
merges that came later: `forward_map`). Stepping is then instant and nothing jumps.

A graph too large to lay out interactively is drawn as far as `max_nodes` allows, in
breadth-first order from its root classes (those no other class uses), and `hidden`
says exactly how many classes and e-nodes were left out: nothing is dropped silently.
With `inline_leaves`, classes holding only leaves (variables, constants) are not drawn;
their values are written into the labels of the e-nodes that use them.

A large e-graph is shallow and wide: 400 e-nodes of a six-term sum made dot's layers
15,630 x 798 pt, a thin strip when fitted to a window (issue 54: unreadable). Such a
drawing is laid out again with Graphviz's osage, which packs the class boxes in rows
(about 1,000 x 540 pt there, every label readable when fitted); `packed` says so.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

from kx_core.base.tools import ToolFailed, ToolMissing, require_tool, run_tool
from kx_core.luminal.egraph import Snapshot, any_op_cost, ast_size, extraction

POINTS_PER_INCH = 72.0
# dot's layered drawing is packed instead (osage) when it is this many times wider than
# tall, or taller than wide, with more e-nodes than this: fitted whole, it was a strip
PACK_ASPECT, PACK_MIN_NODES = 4.0, 60


class LayoutError(RuntimeError):
    """dot is missing or failed; the message says which."""


@dataclass(frozen=True)
class DrawnNode:
    key: tuple  # (class, e-node) in final ids
    cid: int
    label: str
    x: float  # centre, points, y down
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class DrawnEdge:
    src: tuple  # the e-node's key
    dst: int  # the child class
    points: tuple[tuple[float, float], ...]  # cubic Bezier control points, y down
    # the arrowhead's polygon (dot's _hdraw_), which closes the gap between the curve's
    # end and the class box: without it an edge stopped short of its e-class
    head: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class GraphLayout:
    nodes: tuple[DrawnNode, ...]
    edges: tuple[DrawnEdge, ...]
    width: float
    height: float
    shown_nodes: int
    total_nodes: int
    shown_classes: int
    total_classes: int
    inlined: dict  # leaf-only class -> its value, when leaves are inlined
    # why the class boxes are packed in rows rather than in dot's layers ('' for dot's)
    packed: str = ""

    @property
    def hidden(self) -> str:
        """What is not drawn, in words ('' when everything is)."""
        if self.shown_nodes == self.total_nodes and self.shown_classes == self.total_classes:
            return ""
        inl = f" ({len(self.inlined)} leaf classes written into labels)" if self.inlined else ""
        return (
            f"showing {self.shown_nodes} of {self.total_nodes} e-nodes in {self.shown_classes} of "
            f"{self.total_classes} classes{inl}; {self.total_classes - self.shown_classes} classes further "
            "from the roots are hidden"
        )


def forward_map(snapshots: list[Snapshot]):
    """A function from any class id seen in the run to the id it ended in."""
    fwd: dict[int, int] = {}
    for s in snapshots:
        for keep, gone in s.merged:
            if keep != gone:
                fwd[gone] = keep

    def final(c: int) -> int:
        seen = 0
        while c in fwd and seen < 10_000:
            c = fwd[c]
            seen += 1
        return c

    return final


def node_key(cid: int, enode: tuple, final) -> tuple:
    return (final(cid), (enode[0], *(final(k) for k in enode[1:])))


def roots(snapshot: Snapshot) -> list[int]:
    used = {k for nodes in snapshot.classes.values() for n in nodes for k in n[1:]}
    return [c for c in snapshot.classes if c not in used] or list(snapshot.classes)[:1]


def _is_leaf_class(nodes) -> bool:
    return all(len(n) == 1 for n in nodes)


def _label(op) -> str:
    text = str(op)
    return text if len(text) <= 24 else text[:21] + "..."


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def select(snapshot: Snapshot, max_nodes: int, inline_leaves: bool) -> tuple[list[int], dict[int, str]]:
    """Classes to draw, breadth first from the roots, until max_nodes e-nodes; and the
    leaf-only classes inlined (class -> value) when inline_leaves."""
    classes = snapshot.classes
    inlined = {}
    if inline_leaves:
        inlined = {c: " | ".join(_label(n[0]) for n in ns) for c, ns in classes.items() if _is_leaf_class(ns)}
    order, seen, budget = [], set(), max_nodes
    queue = deque(roots(snapshot))
    while queue:
        c = queue.popleft()
        if c in seen or c not in classes:
            continue
        seen.add(c)
        if c in inlined:
            continue
        size = len(classes[c])
        if size > budget:
            continue  # too big for what is left: later (smaller) classes may still fit
        budget -= size
        order.append(c)
        for n in sorted(classes[c], key=repr):
            queue.extend(k for k in n[1:] if k not in seen)
    return order, inlined


def to_dot(snapshot: Snapshot, max_nodes: int = 400, inline_leaves: bool = False):
    """The dot text of a snapshot, with the ids used in it."""
    order, inlined = select(snapshot, max_nodes, inline_leaves)
    drawn = set(order)
    lines = [
        "digraph egraph {",
        "compound=true; newrank=true; nslimit=2; mclimit=0.5;",
        'node [shape=box, style="rounded", fontsize=10, height=0.3, width=0.3, margin="0.06,0.02"];',
        "edge [arrowsize=0.5];",
    ]
    names: dict[tuple, str] = {}
    first: dict[int, str] = {}
    for c in order:
        # no label and a 6 pt margin: the pane draws each class's box 6 pt around its
        # e-nodes (the class id is its tooltip), so the arrowheads dot ends on the
        # cluster's border reach the box drawn
        lines.append(f'subgraph cluster_{c} {{ label=""; margin=6; style=dashed;')
        for i, n in enumerate(sorted(snapshot.classes[c], key=repr)):
            name = f"n{c}_{i}"
            names[(c, n)] = name
            first.setdefault(c, name)
            args = [inlined[k] for k in n[1:] if k in inlined]
            label = _label(n[0]) + (f"({', '.join(args)})" if args and len(args) == len(n) - 1 else "")
            lines.append(f"{name} [label={_quote(label)}];")
        members = [names[(c, n)] for n in sorted(snapshot.classes[c], key=repr)]
        if len(members) > 6:
            # wrap a big class into a grid of about sqrt(n) per row: invisible edges put
            # each row a rank below the last, instead of one very wide rank
            per_row = max(3, int(len(members) ** 0.5 + 0.999))
            for i in range(len(members) - per_row):
                lines.append(f"{members[i]} -> {members[i + per_row]} [style=invis];")
        lines.append("}")
    for c in order:
        for n in snapshot.classes[c]:
            for k in n[1:]:
                if k in drawn:
                    lines.append(f"{names[(c, n)]} -> {first[k]} [lhead=cluster_{k}];")
    lines.append("}")
    return "\n".join(lines), names, order, inlined


def dot_binary() -> str:
    try:
        return require_tool("graphviz-pure", "it draws the e-graph")
    except ToolMissing as e:
        raise LayoutError(str(e)) from e


def layout(
    snapshot: Snapshot, final=None, max_nodes: int = 400, inline_leaves: bool = False, timeout: float = 60.0
) -> GraphLayout:
    """Lay the snapshot out with dot; keys are in the run's final ids (`final` from
    forward_map; identity by default)."""
    final = final or (lambda c: c)
    dot, names, order, inlined = to_dot(snapshot, max_nodes, inline_leaves)
    doc = _laid_out(dot, "dot", timeout)
    x0, y0, x1, y1 = (float(v) for v in doc["bb"].split(","))
    packed = ""
    wide = max(x1 - x0, y1 - y0) > PACK_ASPECT * max(1.0, min(x1 - x0, y1 - y0))
    if wide and len(names) > PACK_MIN_NODES:
        packed = (
            f"Class boxes packed in rows (Graphviz's osage): dot's layers were {x1 - x0:,.0f} x "
            f"{y1 - y0:,.0f} pt, too long to read whole"
        )
        doc = _laid_out(dot, "osage", timeout)
        x0, y0, x1, y1 = (float(v) for v in doc["bb"].split(","))
    height = y1 - y0
    by_name = {v: k for k, v in names.items()}
    objects = doc.get("objects", [])
    nodes, index_of = [], {}
    for i, obj in enumerate(objects):
        name = obj.get("name")
        if name not in by_name or "pos" not in obj:
            continue
        cid, enode = by_name[name]
        x, y = (float(v) for v in obj["pos"].split(","))
        index_of[obj.get("_gvid", i)] = by_name[name]
        nodes.append(
            DrawnNode(
                node_key(cid, enode, final),
                final(cid),
                obj.get("label", str(enode[0])),
                x - x0,
                height - (y - y0),  # dot's y grows upwards
                float(obj.get("width", 0.3)) * POINTS_PER_INCH,
                float(obj.get("height", 0.3)) * POINTS_PER_INCH,
            )
        )
    edges = []
    for e in doc.get("edges", []):
        tail, head = index_of.get(e.get("tail")), index_of.get(e.get("head"))
        if tail is None or head is None:
            continue
        pts, arrow = [], []
        for op in e.get("_draw_", []):
            if op.get("op") in ("b", "B"):
                pts = [(float(px) - x0, height - (float(py) - y0)) for px, py in op["points"]]
        for op in e.get("_hdraw_", []):
            if op.get("op") in ("p", "P"):
                arrow = [(float(px) - x0, height - (float(py) - y0)) for px, py in op["points"]]
        edges.append(DrawnEdge(node_key(*tail, final), final(head[0]), tuple(pts), tuple(arrow)))
    # inlined leaf classes count as shown: their values are in the labels
    shown_classes = len(order) + len(inlined)
    shown_nodes = sum(len(snapshot.classes[c]) for c in order) + sum(
        len(snapshot.classes[c]) for c in inlined
    )
    return GraphLayout(
        tuple(nodes),
        tuple(edges),
        x1 - x0,
        height,
        shown_nodes,
        snapshot.num_nodes,
        shown_classes,
        snapshot.num_classes,
        inlined,
        packed,
    )


def _laid_out(dot: str, engine: str, timeout: float) -> dict:
    """Graphviz's JSON of the dot text laid out by `engine` (dot, osage)."""
    try:
        return json.loads(run_tool(dot_binary(), [f"-K{engine}", "-Tjson"], timeout, stdin=dot))
    except ToolFailed as e:
        raise LayoutError(str(e)) from e


# What "cost" an extraction uses, by the name the pane offers ("egglog cost": the
# program's own :cost annotations, when the run has them).
COSTS = {"op cost": any_op_cost, "AST size": ast_size}
EGGLOG_COST = "egglog cost"


def cost_function(name: str, snap: Snapshot):
    if name == EGGLOG_COST:
        costs = snap.op_costs
        return lambda op, kids: costs.get(op, 1.0) + sum(kids)
    return COSTS[name]


@dataclass(frozen=True)
class StepMarks:
    """What iteration k marks in the final picture, by node key: its e-nodes (per class
    of that iteration), those new in it, the classes merged in it (final ids), and the
    e-nodes of the cheapest program under one cost. Computed off the window's thread for
    every iteration at once, so stepping the slider only recolours."""

    classes: dict  # class id of iteration k -> the node keys of its e-nodes
    new: frozenset
    merged: frozenset
    chosen: frozenset

    @property
    def shown(self) -> frozenset:
        return frozenset(key for keys in self.classes.values() for key in keys)


def step_marks(snap: Snapshot, final, cost_name: str) -> StepMarks:
    cost = cost_function(cost_name, snap)
    return StepMarks(
        classes={c: tuple(node_key(c, n, final) for n in ns) for c, ns in snap.classes.items()},
        new=frozenset(node_key(c, n, final) for c, n in snap.new_nodes),
        merged=frozenset(final(keep) for keep, _ in snap.merged),
        chosen=frozenset(node_key(c, n, final) for c, n in extraction(snap, cost, roots(snap))),
    )


def all_step_marks(snapshots: list[Snapshot], final, cost_name: str) -> tuple[StepMarks, ...]:
    return tuple(step_marks(s, final, cost_name) for s in snapshots)
