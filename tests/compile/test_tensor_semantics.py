"""Capture tensors have exactly the layout real tensors have (issue 28, item 1).

The oracle is PyTorch itself on real CPU tensors: a few hundred op sequences, generated
here from a seed (factories, `*_like` of permuted, sliced and expanded tensors, views,
`as_strided`, `contiguous` and `memory_format`, `clone`, dtype casts, in-place and
broadcasting ops, reductions, `cat`/`stack`, autograd), run once under kx's capture (on
"cuda": capture tensors) and once for real on the CPU. Every tensor each step makes must
have the same shape, strides, storage offset, dtype and `requires_grad` (an empty tensor
its shape: its strides address nothing); a step that raises must raise the same exception
type in both.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

from kx_core.compile import CompileRequest, compile_file

SEQUENCES = 300

# The interpreter both runs use: each step makes a tensor from earlier ones.
PROGRAM = textwrap.dedent(
    """
    import json, os, sys
    import torch

    DEVICE = sys.argv[1] if len(sys.argv) > 1 else "cuda"
    DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i64": torch.int64}
    FORMATS = {"preserve": torch.preserve_format, "contiguous": torch.contiguous_format,
               "channels_last": torch.channels_last}

    def step(op, a, ts):
        if any(ts[a[k]] is None for k in ("src", "other") if k in a):
            raise LookupError("a step before it raised")
        x = ts[a["src"]] if "src" in a else None
        if x is not None:
            # dims and indices are drawn as plain integers and fitted to the tensor here
            nd = max(x.dim(), 1)
            a = dict(a)
            for k in ("dim", "d0", "d1"):
                if k in a:
                    a[k] %= nd
            if "dims" in a:
                a["dims"] = sorted(range(x.dim()), key=lambda i: (a["dims"] * (i + 7)) % 11)
            if "index" in a and x.dim():
                a["index"] %= x.shape[a["dim"]]
            if "length" in a and x.dim():
                a["length"] = max(1, x.shape[a["dim"]] - 1)
        if op == "randn":
            return torch.randn(a["shape"], device=DEVICE, requires_grad=a.get("grad", False))
        if op == "empty":
            return torch.empty(a["shape"], dtype=DTYPES[a["dtype"]], device=DEVICE)
        if op == "empty_strided":
            return torch.empty_strided(a["shape"], a["stride"], device=DEVICE)
        if op == "arange":
            return torch.arange(a["n"], device=DEVICE).reshape(a["shape"])
        if op == "like":
            f = {"empty": torch.empty_like, "zeros": torch.zeros_like, "ones": torch.ones_like,
                 "randn": torch.randn_like}[a["kind"]]
            kw = {"memory_format": FORMATS[a["format"]]} if "format" in a else {}
            if "dtype" in a:
                kw["dtype"] = DTYPES[a["dtype"]]
            return f(x, **kw)
        if op == "full_like":
            return torch.full_like(x, 2.0)
        if op == "new_empty":
            return x.new_empty(a["shape"])
        if op == "permute":
            return x.permute(a["dims"])
        if op == "transpose":
            return x.transpose(a["d0"], a["d1"])
        if op == "slice":
            return x[tuple(slice(s, e, k) for s, e, k in a["slices"][: x.dim()])]
        if op == "select":
            return x.select(a["dim"], a["index"])
        if op == "narrow":
            return x.narrow(a["dim"], a["start"], a["length"])
        if op == "unsqueeze":
            return x.unsqueeze(a["dim"])
        if op == "squeeze":
            return x.squeeze()
        if op == "expand":
            return x.unsqueeze(0).expand(a["n"], *x.shape)
        if op == "view":
            return x.view(-1)
        if op == "reshape":
            return x.reshape(-1)
        if op == "flatten":
            return x.flatten(a["start"])
        if op == "as_strided":
            return x.as_strided(a["shape"], a["stride"], a["offset"])
        if op == "contiguous":
            return x.contiguous(memory_format=FORMATS[a["format"]])
        if op == "clone":
            return x.clone(memory_format=FORMATS[a["format"]])
        if op == "to":
            return x.to(DTYPES[a["dtype"]])
        if op == "t":
            return x.t()
        if op == "diagonal":
            return x.diagonal(dim1=a["d0"], dim2=a["d1"])
        if op == "unfold":
            return x.unfold(a["dim"], a["size"], a["step"])
        if op == "chunk":
            return x.chunk(a["n"], a["dim"])[a["pick"]]
        if op == "movedim":
            return x.movedim(a["d0"], a["d1"])
        if op == "binary":
            y = ts[a["other"]]
            return {"add": torch.add, "mul": torch.mul, "sub": torch.sub}[a["kind"]](x, y)
        if op == "inplace":
            y = ts[a["other"]] if "other" in a else None
            getattr(x, a["kind"])(*([y] if y is not None else [1.5]))
            return x
        if op == "sum":
            return x.sum(a["dim"], keepdim=a["keepdim"])
        if op == "matmul":
            return torch.matmul(x, ts[a["other"]])
        if op == "cat":
            return torch.cat([x, ts[a["other"]]], a["dim"])
        if op == "stack":
            return torch.stack([x, ts[a["other"]]], a["dim"])
        if op == "grad":
            y = x * 2 if x.requires_grad else x.detach().requires_grad_() * 2
            leaf = x if x.requires_grad and x.is_leaf else None
            y.sum().backward()
            return leaf.grad if leaf is not None else y
        raise ValueError(op)

    def describe(t):
        if not isinstance(t, torch.Tensor):
            return repr(type(t).__name__)
        # an empty tensor's strides address nothing (and reductions of one differ between
        # meta and CPU kernels in the strides of size-0/1 dimensions): its shape must match
        strides = list(t.stride()) if t.numel() else "empty"
        return {"shape": list(t.shape), "stride": strides, "offset": t.storage_offset(),
                "dtype": str(t.dtype), "grad": t.requires_grad}

    out = []
    for seq in SEQUENCES:
        ts, got = [], []
        for op, a in seq:
            try:
                t = step(op, a, ts)
                got.append(describe(t))
            except Exception as e:
                t = None
                got.append("raised " + type(e).__name__)
            ts.append(t)
        out.append(got)
    with open(os.environ["SEMANTICS_OUT"] + "." + DEVICE, "w") as f:
        json.dump(out, f)
    """
)


def _shape(rng: random.Random) -> list[int]:
    return [rng.randint(1, 5) for _ in range(rng.randint(1, 4))]


def _step(rng: random.Random, made: int) -> tuple[str, dict]:
    """One step taking an earlier tensor of the sequence (dims and indices are fitted to
    its real shape by the program)."""
    src = rng.randrange(made)
    other = rng.randrange(made)
    r = rng.randrange
    ops = [
        ("like", {"kind": rng.choice(["empty", "zeros", "ones", "randn"])}),
        ("like", {"kind": "empty", "format": rng.choice(["preserve", "contiguous", "channels_last"])}),
        ("like", {"kind": "zeros", "dtype": rng.choice(["f16", "bf16"])}),
        ("full_like", {}),
        ("new_empty", {"shape": _shape(rng)}),
        ("permute", {"dims": r(1, 50)}),
        ("transpose", {"d0": r(8), "d1": r(8)}),
        ("slice", {"slices": [[r(0, 2), None, rng.choice([1, 2])] for _ in range(4)]}),
        ("select", {"dim": r(8), "index": r(8)}),
        ("narrow", {"dim": r(8), "start": 0, "length": 1}),
        ("unsqueeze", {"dim": r(8)}),
        ("squeeze", {}),
        ("expand", {"n": r(1, 4)}),
        ("view", {}),
        ("reshape", {}),
        ("flatten", {"start": r(8)}),
        ("as_strided", {"shape": [2, 2], "stride": [r(1, 4), 1], "offset": r(0, 3)}),
        ("contiguous", {"format": rng.choice(["contiguous", "channels_last", "preserve"])}),
        ("clone", {"format": rng.choice(["preserve", "contiguous"])}),
        ("to", {"dtype": rng.choice(["f16", "f32"])}),
        ("t", {}),
        ("diagonal", {"d0": 0, "d1": r(1, 8)}),
        ("unfold", {"dim": r(8), "size": 1, "step": 1}),
        ("chunk", {"n": 2, "dim": r(8), "pick": 0}),
        ("movedim", {"d0": r(8), "d1": r(8)}),
        ("binary", {"kind": rng.choice(["add", "mul", "sub"]), "other": other}),
        ("inplace", {"kind": rng.choice(["add_", "mul_"]), "other": other}),
        ("inplace", {"kind": "fill_"}),
        ("sum", {"dim": r(8), "keepdim": rng.random() < 0.5}),
        ("matmul", {"other": other}),
        ("cat", {"other": other, "dim": r(8)}),
        ("stack", {"other": other, "dim": 0}),
        ("grad", {}),
    ]
    op, a = rng.choice(ops)
    return op, {"src": src, **a}


def sequences(n: int, seed: int = 28) -> list[list[tuple[str, dict]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        shape = _shape(rng)
        first = rng.choice(
            [
                ("randn", {"shape": shape, "grad": rng.random() < 0.3}),
                ("empty", {"shape": shape, "dtype": rng.choice(["f32", "f16", "i64"])}),
                ("arange", {"n": _numel(shape), "shape": shape}),
                (
                    "empty_strided",
                    {"shape": shape, "stride": list(reversed(_contiguous(list(reversed(shape)))))},
                ),
            ]
        )
        seq = [first]
        for _ in range(rng.randint(2, 6)):
            seq.append(_step(rng, len(seq)))
        out.append(seq)
    return out


def _numel(shape: list[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _contiguous(shape: list[int]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    return strides


def _program(seqs) -> str:
    return PROGRAM.replace(
        "import torch\n", f"import torch\n\nSEQUENCES = json.loads({json.dumps(json.dumps(seqs))})\n", 1
    )


def test_capture_tensors_have_the_layouts_real_tensors_have(tmp_path, monkeypatch):
    seqs = sequences(SEQUENCES)
    path = tmp_path / "sequences.py"
    path.write_text(_program(seqs))
    out = tmp_path / "layouts"
    monkeypatch.setenv("SEMANTICS_OUT", str(out))  # the worker inherits it
    subprocess.run([sys.executable, str(path), "cpu"], check=True)
    expected = json.loads(out.with_suffix(".cpu").read_text())
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not any(d.kind == "runtime" for d in r.diagnostics), r.diagnostics
    got = json.loads(out.with_suffix(".cuda").read_text())
    assert len(got) == len(expected) == SEQUENCES
    steps = sum(len(s) for s in seqs)
    mismatches = [
        (i, j, seqs[i][: j + 1], e, g)
        for i, (es, gs) in enumerate(zip(expected, got))
        for j, (e, g) in enumerate(zip(es, gs))
        if e != g
    ]
    assert steps > 1000 and not mismatches, mismatches[:5]
    raised = sum(isinstance(e, str) and e.startswith("raised") for es in expected for e in es)
    assert raised < steps // 3  # most steps make a tensor: the comparison is of layouts


# Ops whose meta kernels lay their outputs out otherwise than ATen's CPU and CUDA kernels
# (found by tests/compile/test_known_values_oracle.py), on inputs whose size-1 dimensions
# or transposed strides tell the rules apart; writes ATen allows to an expanded tensor.
ATEN_LAYOUTS = """
import json
import torch

DEV = "cuda"
col = torch.arange(4.0, device=DEV).view(1, 4).t()  # (4, 1) with strides (1, 4)
tr = torch.arange(12.0, device=DEV).view(4, 3).t()  # (3, 4) with strides (1, 3)
idx = torch.nonzero(torch.arange(6, device=DEV) > 1)  # (4, 1) with strides (1, 4)
wide = torch.zeros(3, device=DEV).expand(2, 3)
wide.masked_fill_(wide > 0, 1)  # deprecated on an expanded tensor, not refused
wide.fill_(2)
wide.copy_(wide)  # onto itself: returned as it is
cases = {
    "triu": torch.triu(col), "tril": torch.tril(tr), "log_softmax": col.log_softmax(0),
    "softmax": tr.softmax(0), "masked_fill": tr.masked_fill(tr > 2, 0),
    "isin": torch.isin(tr, torch.tensor([1.0], device=DEV)), "flip": idx[0].flip(0),
    "sort": col.sort(-1).values, "argsort": idx.argsort(-1), "nan_to_num": torch.nan_to_num(col),
    "floor_divide": idx // 3, "clamp": torch.clamp(col, -4, 4), "pow": col**2, "add": col + 1,
}
with open(OUT, "w") as f:
    json.dump({k: [list(v.shape), list(v.stride())] for k, v in cases.items()}, f)
"""


def test_outputs_aten_lays_out_otherwise_than_meta_kernels(tmp_path):
    """triu/tril, softmax/log_softmax, masked_fill and isin make contiguous outputs; flip,
    sort and nan_to_num take their input's layout; floor_divide is an elementwise op like
    `+`; a Python number is an operand of `x + 1` but a parameter of clamp and `**` (it
    decides how TensorIterator orders a size-1 dimension); masked_fill_ and fill_ write an
    expanded tensor and a copy onto itself is no write. Each as on real tensors."""
    import warnings

    import torch

    path = tmp_path / "aten_layouts.py"
    path.write_text(f"OUT = {str(tmp_path / 'kx.json')!r}\n" + ATEN_LAYOUTS)
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not any(d.kind == "runtime" for d in r.diagnostics), r.diagnostics
    got = json.loads((tmp_path / "kx.json").read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = str(tmp_path / "real.json")
        exec(ATEN_LAYOUTS.replace('DEV = "cuda"', 'DEV = "cpu"'), {"torch": torch, "OUT": out})
    expected = json.loads((tmp_path / "real.json").read_text())
    assert got == expected, {k: (got[k], expected[k]) for k in expected if got.get(k) != expected[k]}
