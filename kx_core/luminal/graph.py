"""L1 · Graph semantics: y = relu(x @ w + b) as a Luminal-style primitive graph.

Luminal records every tensor operation into a static DAG instead of running it. High-level
ops are spelled with a small primitive set:

  matmul(a, b) = broadcast both to [M, N, K] -> Mul -> ReduceSum(K)
  relu(x)      = Select(LessThan(x, 0), 0, x)
  exp(x)       = Exp2(x * log2(e))
  a + b[N]     = Add(a, Expand(b))   (broadcasting is a view, not a copy)

A Graph of nodes with shapes and dtypes, a Tensor API that records, a node-semantics
table, and a reference runtime (numpy) that executes the DAG in topological order: the
analogue of Luminal's ReferenceRuntime. Names and semantics are the drill's.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

PRIMITIVES = {
    "Input", "Constant", "Add", "Mul", "Recip", "Exp2", "Log2", "Sqrt", "Sin", "LessThan",
    "Select", "ReduceSum", "ReduceMax", "Expand", "Permute", "Cast",
}  # fmt: skip
MOVEMENT = {"Expand", "Permute"}  # views: change indexing, move no data

NOTES = {
    "Input": "a buffer fed at run time",
    "Constant": "a scalar baked into the graph",
    "Add": "elementwise a + b",
    "Mul": "elementwise a * b",
    "Recip": "elementwise 1 / a",
    "Exp2": "elementwise 2^a",
    "Log2": "elementwise log2(a)",
    "Sqrt": "elementwise sqrt(a)",
    "Sin": "elementwise sin(a)",
    "LessThan": "elementwise a < b, a bool mask",
    "Select": "cond ? a : b, elementwise",
    "ReduceSum": "sum over one axis",
    "ReduceMax": "max over one axis",
    "Expand": "a view: a new axis repeated, no copy",
    "Permute": "a view: axes reordered, no copy",
    "Cast": "a dtype conversion",
}


@dataclass
class Node:
    id: int
    op: str
    inputs: list
    shape: tuple
    dtype: str = "f32"
    attrs: dict = field(default_factory=dict)


class Graph:
    def __init__(self):
        self.nodes = []
        self.outputs = []

    def add(self, op, inputs, shape, dtype="f32", **attrs):
        assert op in PRIMITIVES, op
        n = Node(len(self.nodes), op, [t.id for t in inputs], tuple(shape), dtype, attrs)
        self.nodes.append(n)
        return Tensor(self, n.id)

    def tensor(self, shape, name, dtype="f32"):
        return self.add("Input", [], shape, dtype, name=name)

    def constant(self, value, dtype="f32"):
        return self.add("Constant", [], (), dtype, value=float(value))

    # ---- inspection
    def topo_order(self):
        """Node ids such that every input comes before its user (ids already are; checked)."""
        for n in self.nodes:
            assert all(i < n.id for i in n.inputs), f"node {n.id} uses a later node"
        return [n.id for n in self.nodes]

    def op_counts(self):
        return dict(Counter(n.op for n in self.nodes))

    def semantics_table(self):
        """[(id, op, input ids, shape, dtype, note)]: the L1 deliverable."""
        rows = []
        for n in self.nodes:
            note = NOTES[n.op]
            if n.op == "Input":
                note += f" ({n.attrs['name']})"
            elif n.op == "Constant":
                note += f" ({n.attrs['value']:g})"
            elif n.op == "Expand":
                note += f" (axis {n.attrs['axis']} x{n.attrs['size']})"
            elif n.op == "Permute":
                note += f" ({n.attrs['axes']})"
            elif n.op in ("ReduceSum", "ReduceMax"):
                note += f" (axis {n.attrs['axis']})"
            rows.append((n.id, n.op, tuple(n.inputs), n.shape, n.dtype, note))
        return rows

    def materialized_bytes(self, elem_bytes=4):
        """Bytes a naive executor allocates: a buffer per node that computes (views,
        inputs and scalar constants, baked into the kernels, get none)."""
        return sum(
            math.prod(n.shape) * elem_bytes
            for n in self.nodes
            if n.op not in MOVEMENT and n.op not in ("Input", "Constant")
        )


@dataclass(frozen=True)
class Tensor:
    g: Graph
    id: int

    @property
    def shape(self):
        return self.g.nodes[self.id].shape

    @property
    def dtype(self):
        return self.g.nodes[self.id].dtype

    def output(self):
        self.g.outputs.append(self.id)
        return self

    # ---- movement
    def expand(self, axis, size):
        s = list(self.shape)
        s.insert(axis, size)
        return self.g.add("Expand", [self], s, self.dtype, axis=axis, size=size)

    def expand_to(self, shape):
        """Right-aligned numpy-style broadcast by inserting leading axes."""
        t = self
        for axis in range(len(shape) - len(self.shape)):
            t = t.expand(axis, shape[axis])
        assert t.shape == tuple(shape), (t.shape, shape)
        return t

    def permute(self, axes):
        return self.g.add("Permute", [self], [self.shape[a] for a in axes], self.dtype, axes=tuple(axes))

    # ---- binary (shapes must already agree: broadcasting is explicit)
    def _bin(self, op, other, dtype=None):
        if not isinstance(other, Tensor):
            other = self.g.constant(other).expand_to(self.shape) if self.shape else self.g.constant(other)
        assert self.shape == other.shape, f"{op}: {self.shape} vs {other.shape}"
        return self.g.add(op, [self, other], self.shape, dtype or self.dtype)

    def __add__(self, o):
        return self._bin("Add", o)

    def __mul__(self, o):
        return self._bin("Mul", o)

    def lt(self, o):
        return self._bin("LessThan", o, "bool")

    def select(self, a, b):
        """self is the boolean condition."""
        assert self.shape == a.shape == b.shape
        return self.g.add("Select", [self, a, b], a.shape, a.dtype)

    def sum(self, axis):
        s = list(self.shape)
        s.pop(axis)
        return self.g.add("ReduceSum", [self], s, self.dtype, axis=axis)

    # ---- high-level ops, spelled with primitives
    def matmul(self, w):
        """[M, K] @ [K, N]: a -> [M, N, K] by Expand(axis 1); w -> [N, K] by Permute, then
        [M, N, K] by Expand(axis 0); Mul; ReduceSum over K."""
        (m, k), (k2, n) = self.shape, w.shape
        assert k == k2, f"matmul: {self.shape} @ {w.shape}"
        a = self.expand(1, n)
        b = w.permute((1, 0)).expand(0, m)
        return (a * b).sum(2)

    def relu(self):
        zero = self.g.constant(0.0)
        zeros = zero.expand_to(self.shape) if self.shape else zero
        return self.lt(zeros).select(zeros, self)

    def exp(self):
        return (self * math.log2(math.e)).exp2()

    def exp2(self):
        return self.g.add("Exp2", [self], self.shape, self.dtype)


def build_mlp(M, K, N):
    """y = relu(x @ w + b). Returns (graph, x, w, b, y)."""
    g = Graph()
    x, w, b = g.tensor((M, K), "x"), g.tensor((K, N), "w"), g.tensor((N,), "b")
    y = (x.matmul(w) + b.expand_to((M, N))).relu().output()
    return g, x, w, b, y


# ---------------------------------------------------------------- reference runtime
def _apply(n: Node, v: list):
    op, a = n.op, n.attrs
    if op == "Constant":
        return np.float64(a["value"])
    if op == "Add":
        return v[0] + v[1]
    if op == "Mul":
        return v[0] * v[1]
    if op == "Recip":
        return 1.0 / v[0]
    if op == "Exp2":
        return np.exp2(v[0])
    if op == "Log2":
        return np.log2(v[0])
    if op == "Sqrt":
        return np.sqrt(v[0])
    if op == "Sin":
        return np.sin(v[0])
    if op == "LessThan":
        return v[0] < v[1]
    if op == "Select":
        return np.where(v[0], v[1], v[2])
    if op == "ReduceSum":
        return v[0].sum(axis=a["axis"])
    if op == "ReduceMax":
        return v[0].max(axis=a["axis"])
    if op == "Expand":
        x = np.expand_dims(v[0], a["axis"])
        return np.broadcast_to(x, n.shape)  # a view, as in Luminal
    if op == "Permute":
        return np.transpose(v[0], a["axes"])
    if op == "Cast":
        return v[0].astype(np.float32)
    raise ValueError(f"no semantics for {op}")


def run(g, feeds):
    """Execute in topological order with numpy. feeds: {input name: array}. {node id: array}."""
    values = {}
    for i in g.topo_order():
        n = g.nodes[i]
        if n.op == "Input":
            values[i] = np.asarray(feeds[n.attrs["name"]], dtype=np.float64).reshape(n.shape)
        else:
            values[i] = _apply(n, [values[j] for j in n.inputs])
    return values
