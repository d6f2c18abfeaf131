"""Each pass's before/after is that pass's own input and output (issue 31, item 4), on a
real capture of the bundled vector add's passes."""

from __future__ import annotations

from kx_core.ir.passes import ir_around


def test_every_llvm_pair_follows_the_last(capture):
    (k,) = [k for k in capture("vector_add.py", passes=True).kernels if k.passes]
    llvm = [i for i, p in enumerate(k.passes) if p.kind == "llvm"]
    assert len(llvm) > 5
    pairs = [ir_around(k.passes, i) for i in llvm]
    for (_, after), (before, _) in zip(pairs, pairs[1:]):
        assert after == before  # this pass's output is the next one's input
    assert pairs[-1][1] is None  # the last: the LLVM IR stage (the pane shows it)


def test_mlir_pairs_of_one_scope_follow_each_other(capture):
    (k,) = [k for k in capture("vector_add.py", passes=True).kernels if k.passes]
    module = [i for i, p in enumerate(k.passes) if p.kind == "mlir" and p.function is None]
    checked = 0
    for a, b in zip(module, module[1:]):
        if b == a + 1 and k.passes[a].pipeline == k.passes[b].pipeline:
            assert ir_around(k.passes, a)[1] == ir_around(k.passes, b)[0]
            checked += 1
    assert checked > 10


def test_on_a_matmul_every_pair_is_that_pass_own(capture):
    """The issue's test: on a matmul, each MLIR pass's pair shows a change exactly when
    the pass is marked as changing the IR (a pair that looked unchanged for a pass that
    changed it would be another pass's input), and within each scope each pair's
    before is the previous pair's after."""
    from kx_core.ir.passes import comparable_lines

    (k,) = [k for k in capture("matmul.py", passes=True).kernels if k.passes]
    mlir = [i for i, p in enumerate(k.passes) if p.kind == "mlir"]
    compared = 0
    for i in mlir:
        before, after = ir_around(k.passes, i)
        if after is None:
            continue
        assert (comparable_lines(before) != comparable_lines(after)) == k.passes[i].changed, k.passes[i].name
        compared += 1
    assert compared > 50
    by_scope: dict = {}
    for i in mlir:
        by_scope.setdefault((k.passes[i].pipeline, k.passes[i].function), []).append(i)
    for chain in by_scope.values():
        for a, b in zip(chain, chain[1:]):
            after = ir_around(k.passes, a)[1]
            if after is not None and k.passes[b].function is not None:
                assert after == k.passes[b].ir
