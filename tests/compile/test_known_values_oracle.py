"""Oracle for issue 50, item 1: what the host computes, kx computes exactly.

A few hundred short op sequences are generated here (a seeded generator: factories, host
tensors moved to the GPU, arithmetic, views, reductions, cumulative sums, comparisons,
indexing, in-place writes through views, casts, cat/stack, data-dependent ops, and reads
that steer the sequence: `.item()`, `int(t)`, `.tolist()`, `torch.equal`, `allclose`, a
size taken from a tensor). They are written into one kernel-free file, captured by kx once
(one worker), and run on real CPU tensors here; every tensor's values (read back with
`.tolist()`), shape, strides, storage offset and dtype, and every value read on the way,
must be the same, and the capture must not have answered a single read with a
placeholder. Each statement is kept only if it runs on real tensors, so the sequences are
valid programs of the shapes they happen to make.
"""

from __future__ import annotations

import json
import math
import random
import textwrap
import warnings

from kx_core.compile import CompileRequest, compile_file

SEED = 50_1
SEQUENCES = 300
STATEMENTS = (4, 9)  # per sequence, after its first tensors

PRELUDE = """\
import json
import torch

DEV = "cuda"
OUT = {out!r}


def lay(t):
    return [list(t.shape), list(t.stride()), t.storage_offset(), str(t.dtype)]


def rd(t):
    return lay(t) + [t.tolist()]


results = {{}}
"""

EPILOGUE = """
with open(OUT, "w") as f:
    json.dump(results, f)
"""


# ----------------------------------------------------------------- the generator


def _ints(rng: random.Random, n: int, lo: int = -5, hi: int = 9) -> str:
    return "[" + ", ".join(str(rng.randint(lo, hi)) for _ in range(n)) + "]"


def _shape(rng: random.Random) -> tuple[int, ...]:
    return rng.choice([(6,), (8,), (12,), (3, 4), (4, 3), (2, 6), (4, 4), (2, 3, 2), (5,), (2, 2, 3)])


def _factory(rng: random.Random) -> str:
    """An expression making a tensor of host-made data on the GPU (or on the host, with
    no device: a CPU tensor on a real run)."""
    shape = _shape(rng)
    n = math.prod(shape)
    s = str(shape)
    dtype = rng.choice(["", ", dtype=torch.int32", ", dtype=torch.float32", ", dtype=torch.int64"])
    return rng.choice(
        [
            f"torch.arange({n}, device=DEV).view{s}",
            f"torch.arange({rng.randint(-4, 2)}, {n + 6}, {rng.choice([1, 2])}, device=DEV{dtype})",
            f"torch.tensor({_ints(rng, n)}, device=DEV{dtype}).view{s}",
            f"torch.full({s}, {rng.choice([3, -2, 0.5, 7])}, device=DEV)",
            f"torch.ones({s}, device=DEV{dtype})",
            f"torch.zeros({s}, device=DEV{dtype})",
            f"torch.linspace(-1, 1, {n}, device=DEV)",
            f"torch.eye({shape[0]}, device=DEV)",
            f"torch.randint(-6, 10, {s}, generator=g).to(DEV)",
            f"(torch.randn({s}, generator=g) * 4).round().to(DEV)",
            f"torch.rand({s}, generator=g).to(DEV, torch.float64)",
            f"torch.randn({s}).to(DEV)",
            f"torch.randint(0, 5, {s})",  # a host tensor (no device)
            f"torch.arange({n}).view{s}",  # a host tensor
            f"torch.tensor({_ints(rng, n)}).view{s}.to(DEV)",
        ]
    )


# Statement templates: X and Y are tensor variables, N a new variable; each {k} a small int.
_TEMPLATES = [
    # arithmetic
    "N = X + {k}",
    "N = X * Y",
    "N = X - Y",
    "N = X * {k} - Y",
    "N = X // {p}",
    "N = X % {p}",
    "N = X / {p}",
    "N = -X",
    "N = X.abs()",
    "N = X ** 2",
    "N = torch.clamp(X, -{k}, {k})",
    "N = torch.where(X > {k}, X, Y)",
    "N = torch.maximum(X, Y)",
    "N = X.float() * 0.5 + Y.float()",
    # views
    "N = X.view(-1)",
    "N = X.reshape(-1, {d})",
    "N = X.t()",
    "N = X.transpose(0, -1)",
    "N = X[1:]",
    "N = X[..., ::2]",
    "N = X.unsqueeze(0)",
    "N = X.unsqueeze(-1).expand(*X.shape, 2)",
    "N = X.permute(*reversed(range(X.dim())))",
    "N = X.flatten()",
    "N = X.narrow(0, 1, 1)",
    "N = X.select(0, {i})",
    "N = X[{i}]",
    "N = X.flip(0)",
    "N = X.t().contiguous()",
    "N = X.chunk(2)[-1]",
    "N = X.unbind(0)[{i}]",
    "N = X.view(torch.int32) if X.dtype == torch.float32 else X.view(-1)",
    # reductions
    "N = X.sum()",
    "N = X.sum(0)",
    "N = X.amax(-1)",
    "N = X.argmax()",
    "N = X.float().mean(0)",
    "N = X.max(0).values",
    "N = X.min(dim=0)[1]",
    "N = X.any()",
    "N = (X > {k}).all(-1)",
    "N = X.count_nonzero()",
    "N = X.prod(-1)",
    # cumulative
    "N = X.cumsum(0)",
    "N = torch.cumsum(X, dim=-1)",
    "N = X.flatten().cumsum(0)",
    "N = X.cummax(0).values",
    # comparisons
    "N = X > {k}",
    "N = X == Y",
    "N = X != {k}",
    "N = (X > -{k}) & (X < {k})",
    # indexing
    "N = X.flatten()[torch.arange(X.numel(), device=DEV) % {p}]",
    "N = X[X > {k}]",
    "N = X[[0, -1]]",
    "N = X.flatten().index_select(0, torch.tensor([0, {i}], device=DEV))",
    "N = torch.gather(X, -1, (X.abs() % X.shape[-1]).long())",
    # in-place, also through views of another tensor
    "X.add_({k})",
    "X.mul_({p})",
    "X[{i}] = {k}",
    "X[1:] = {k}",
    "X.flatten()[::2] = {k}",
    "X.view(-1)[:{p}].fill_({k})",
    "X.masked_fill_(X > {k}, 0)",
    "X.clamp_(min=-{k})",
    "X += Y",
    "X.zero_()",
    "X.copy_(Y)",
    "X.flatten().index_add_(0, torch.tensor([0, {i}], device=DEV), torch.ones(2, device=DEV, dtype=X.dtype))",
    "X.flatten().scatter_(0, torch.tensor([{i}], device=DEV), {k})",
    "N = torch.empty_like(X); N.copy_(X * 2)",
    "N = torch.empty(torch.broadcast_shapes(X.shape, Y.shape), device=DEV, dtype=X.dtype); torch.add(X, Y, out=N)",
    "N = X.clone(); N[..., 0] = N[..., -1]",
    # an unknown buffer (empty) written piece by piece: known once every element is
    "N = torch.empty_like(X); N[0] = X[0]; N[1:] = X[1:] * {p}",
    "N = torch.empty(X.shape + (2,), device=DEV, dtype=X.dtype); N[..., 0] = X; N.data[..., 1] = X * {p}",
    "N = torch.empty(X.numel(), device=DEV, dtype=X.dtype); N.scatter_(0, torch.arange(X.numel(), device=DEV).flip(0), X.flatten())",
    "N = torch.empty_like(X); N.masked_fill_(X > {k}, 1); N.masked_fill_(~(X > {k}), 0)",
    "N = torch.empty(X.shape[0], 2, device=DEV); N[:, 0] = {k}; N[:, 1] = X.flatten()[: X.shape[0]].float()",
    "N = torch.empty_like(X).flatten(); N.index_copy_(0, torch.arange(N.numel(), device=DEV), X.flatten())",
    "N = torch.empty(3, *X.shape, device=DEV, dtype=X.dtype); [N.__setitem__(j, X + j) for j in range(3)]",
    "N = torch.empty_like(X); N.index_put_((torch.arange(X.shape[0], device=DEV),), X)",
    "N = torch.empty(2, X.numel(), device=DEV); N[0].copy_(X.flatten()); N[1].fill_({k}); N = N.sum(0)",
    # intermediates autograd saves inside one call (Python dunders, composites) and a
    # composite that writes its running statistics once
    "N = X.detach().float().clone().requires_grad_(); (2.0 / (N.abs() + 1)).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); (1 - N.sigmoid()).mul(N).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); torch.nn.functional.layer_norm(N, N.shape[-1:]).pow(2).mul(torch.arange(N.shape[-1], device=DEV)).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().reshape(-1, 2).requires_grad_(); m = torch.zeros(2, device=DEV); v = torch.ones(2, device=DEV); torch.nn.functional.batch_norm(N, m, v, training=True).pow(2).sum().backward(); N = torch.cat([m, v, N.grad.flatten()])",
    # a selection that reads only the written part of a buffer filled piece by piece
    "N = torch.empty(X.shape[0] + 2, *X.shape[1:], device=DEV, dtype=X.dtype); N[:X.shape[0]] = X; N = N[torch.arange(X.shape[0], device=DEV).flip(0)]",
    "N = torch.empty(X.shape[0] + 1, *X.shape[1:], device=DEV, dtype=X.dtype); N[1:] = X; N = N.index_select(0, torch.arange(1, X.shape[0] + 1, device=DEV))",
    # casts
    "N = X.to(torch.float32)",
    "N = X.int()",
    "N = X.long()",
    "N = X.bool()",
    "N = X.double()",
    "N = X.half().float()",
    # cat / stack
    "N = torch.cat([X, Y])",
    "N = torch.stack([X, Y], dim=-1)",
    "N = torch.cat([X.flatten(), Y.flatten()])",
    # data-dependent sizes
    "N = torch.nonzero(X > {k})",
    "N = torch.masked_select(X, X != {k})",
    "N = torch.unique(X)",
    "N = torch.bincount(X.flatten().long().abs() % 16)",
    "N = torch.repeat_interleave(X.flatten()[:3], 2)",
    "N = torch.argwhere(X)",
    "N = X.sort(-1).values",
    "N = torch.topk(X.flatten(), 2).indices",
    # more of what host code does with offsets, ids and masks
    "N = torch.stack([v * 2 for v in X])",
    "N = torch.tensor([int(v) for v in X.flatten()[:4]], device=DEV)",
    "N = torch.unique(X, return_counts=True)[1]",
    "N = torch.where(X > {k})[-1]",
    "N = torch.searchsorted(X.flatten().sort().values, Y.flatten())",
    "N = torch.bucketize(X.flatten(), torch.tensor([-2, 0, 3], device=DEV, dtype=X.dtype))",
    "N = torch.diff(X.flatten())",
    "N = torch.roll(X, 1, 0)",
    "N = torch.triu(X)",
    "N = X.repeat(2, 1)",
    "N = X.float() @ Y.float().t()",
    "N = torch.nn.functional.pad(X, (1, 2))",
    "N = torch.nn.functional.one_hot(X.flatten().long().abs() % 4, 4)",
    "N = X.cumsum(0, dtype=torch.int32)",
    "X[X > {k}] = 0",
    "X[torch.tensor([0], device=DEV)] = {k}",
    "X.index_put_((torch.tensor([0, 0], device=DEV),), torch.tensor({k}, device=DEV, dtype=X.dtype), accumulate=True)",
    # gradients: the autograd engine's backward formulas, AccumulateGrad, an optimizer's step
    "N = X.detach().double().clone().requires_grad_(); (N * N * {p} - N).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); torch.nn.functional.softplus(N).cumsum(-1).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); (N.flatten()[::2] ** 2).sum().backward(); (N.abs() * {k}).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); N = torch.autograd.grad(torch.nn.functional.mse_loss(N.tanh(), torch.zeros_like(N)), N)[0]",
    "N = X.detach().float().clone().requires_grad_(); (N @ N.t()).logsumexp(-1).sum().backward(); N = N.grad",
    "N = X.detach().float().clone().requires_grad_(); o = torch.optim.SGD([N], lr=0.1, momentum=0.9); [((N - {k}) ** 2).sum().backward() or o.step() or o.zero_grad() for _ in range(3)]; N = N.detach().clone()",
    "N = X.detach().float().clone().requires_grad_(); o = torch.optim.Adam([N], lr=0.1); [(N.sin() * {p}).sum().backward() or o.step() or o.zero_grad() for _ in range(2)]; N = N.detach().clone()",
    # reads that steer what follows
    "N = torch.zeros(int(X.abs().sum()) % 7 + 1, device=DEV)",
    "N = torch.arange(X.flatten()[0].item() % 5 + 1, device=DEV)",
    "N = X * 2 if X.max().item() > {k} else X - 1",
    "N = torch.ones((X.abs().sum().long() % 5 + 1, 2), device=DEV)",
    "N = torch.full((len(X.tolist()),), 1 if torch.equal(X, Y) else 2, device=DEV)",
    "N = X + (1 if torch.allclose(X.float(), Y.float()) else 0)",
    "N = X.cpu().sum().to(DEV) + X",
    "N = torch.tensor(X.tolist(), device=DEV)",
    "N = torch.zeros(X.cumsum(0)[-1].abs().long() % 6 + 1, device=DEV)",
]


def _statement(rng: random.Random, names: list[str], new: str, host: set[str]) -> tuple[str, str] | None:
    """A statement on X and Y, both on the GPU or both on the host: a real run's CUDA kernel
    refuses a host tensor beside a GPU one (kx raises as it does), which CPU tensors here,
    DEV being "cpu", would not show. The statement and its X; None where the draw would
    mix them."""
    template = rng.choice(_TEMPLATES)
    x = rng.choice(names)
    same_side = [n for n in names if (n in host) == (x in host)]
    y = rng.choice(same_side)
    if x in host and "DEV" in template:
        return None
    line = (
        template.replace("N", new)
        .replace("X", x)
        .replace("Y", y)
        .format(k=rng.randint(0, 4), p=rng.randint(2, 5), d=rng.choice([2, 3, 4]), i=rng.randint(0, 1))
    )
    return line, x


def _sequence(rng: random.Random, index: int, torch) -> list[str]:
    """Statements that run on real CPU tensors, each kept only if it does."""
    lines = [f"torch.manual_seed({index})", f"g = torch.Generator().manual_seed({index})"]

    def replay() -> dict:
        namespace = {"torch": torch, "DEV": "cpu"}
        for line in lines:
            exec(line, namespace)
        return namespace

    namespace = replay()
    names: list[str] = []
    host: set[str] = set()  # the names a real run has on the CPU (made with no device)

    def attempt(line: str, new: str) -> bool:
        nonlocal namespace
        try:
            exec(line, namespace)
        except Exception:  # noqa: BLE001 - not a valid program here: draw another
            namespace = replay()  # (the failed line may have written a tensor)
            return False
        if new in namespace and not isinstance(namespace[new], torch.Tensor):
            namespace = replay()
            return False
        lines.append(line)
        if new in namespace:
            names.append(new)
        return True

    for _ in range(rng.randint(1, 3)):
        new = f"t{len(names)}"
        for _ in range(20):
            factory = _factory(rng)
            if attempt(f"{new} = {factory}", new):
                if "DEV" not in factory:
                    host.add(new)
                break
    for _ in range(rng.randint(*STATEMENTS)):
        new = f"t{len(names)}"
        for _ in range(30):
            drawn = _statement(rng, names, new, host)
            if drawn is not None and attempt(drawn[0], new):
                if drawn[1] in host and new in names:
                    host.add(new)  # (what an op makes of host tensors is the host's)
                break
    # every tensor read back whole, with its layout
    reads = ", ".join(f"{n!r}: rd({n})" for n in names)
    lines.append(f"results[{index}] = {{{reads}}}")
    return lines


def program(out: str, torch) -> str:
    rng = random.Random(SEED)
    parts = [PRELUDE.format(out=out)]
    for i in range(SEQUENCES):
        body = "\n".join(_sequence(rng, i, torch))
        parts.append(f"\ndef seq_{i}():\n{textwrap.indent(body, '    ')}\n\n\nseq_{i}()\n")
    parts.append(EPILOGUE)
    return "".join(parts)


# ----------------------------------------------------------------- the comparison


def _same_tensor(a, b) -> bool:
    """Values, shape, dtype and storage offset equal, and strides too where the tensor has
    elements (a tensor of no elements has no layout to tell apart)."""
    if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 5):
        return _same(a, b)
    shape, strides = a[0], a[1]
    empty = any(n == 0 for n in shape)
    return _same([shape, a[2], a[3], a[4]], [b[0], b[2], b[3], b[4]]) and (empty or strides == b[1])


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def test_what_the_host_computes_kx_computes_exactly(tmp_path):
    import torch

    with warnings.catch_warnings():  # (deprecated writes to expanded tensors among them)
        warnings.simplefilter("ignore")
        text = program(str(tmp_path / "kx.json"), torch)
    path = tmp_path / "host_ops.py"
    path.write_text(text)
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    said = [str(d) for d in r.diagnostics if d.kind in ("placeholder", "runtime", "out-of-memory")]
    assert not said, said[:5]
    assert r.exit_status == 0 and r.launched_after_placeholder is None
    captured = json.loads((tmp_path / "kx.json").read_text())
    # the same program on real CPU tensors
    real_path = tmp_path / "real.json"
    real_text = text.replace('DEV = "cuda"', 'DEV = "cpu"').replace(
        repr(str(tmp_path / "kx.json")), repr(str(real_path))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(real_text, str(path), "exec"), {"__name__": "__main__"})
    real = json.loads(real_path.read_text())
    assert len(real) == SEQUENCES and captured.keys() == real.keys()
    lines = text.splitlines()
    differ = []
    for index, tensors in real.items():
        for name, expected in tensors.items():
            got = captured[index].get(name)
            if not _same_tensor(got, expected):
                start = lines.index(f"def seq_{index}():")
                end = lines.index(f"seq_{index}()", start)
                differ.append((index, name, expected, got, "\n".join(lines[start:end])))
    assert not differ, (
        f"{len(differ)} differ; first:\n" + "\n".join(map(str, differ[0][:4])) + "\n" + differ[0][4]
    )
