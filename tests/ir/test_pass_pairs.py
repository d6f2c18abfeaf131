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
