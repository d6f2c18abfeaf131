"""Instruction summaries on real compiles: Hopper vs Ampere matmul, configs compared."""

from __future__ import annotations

import re

from kx_core.ir.summary import sass_family, sass_opcodes, summarize


def test_matmul_summaries_by_target(capture):
    hopper = [summarize(k) for k in capture("matmul_autotune.py", "cuda:90").kernels]
    ampere = [summarize(k) for k in capture("matmul_autotune.py", "cuda:80").kernels]
    for s, k in zip(hopper, capture("matmul_autotune.py", "cuda:90").kernels):
        bm, bn = k.config.kwargs["BLOCK_M"], k.config.kwargs["BLOCK_N"]
        # one wgmma is m64nNk16 with N the tile width each warp group covers
        assert all(re.fullmatch(r"m64n\d+k16", shape) for shape in s.mma_shapes)
        assert s.registers == k.metadata.registers and s.sass_mix["tensor"] > 0
        assert s.global_vector_stores == {128: bm * bn * 2 // 16 // (k.config.num_warps * 32)}
    for s in ampere:
        assert set(s.mma_shapes) == {"m16n8k16"} and s.ldmatrix > 0 and s.cp_async > 0
    # a bigger tile does more MMA work per program
    assert ampere[0].mma_shapes["m16n8k16"] > ampere[3].mma_shapes["m16n8k16"]
    # every SASS instruction of these kernels falls in a known family
    for k in capture("matmul_autotune.py", "cuda:90").kernels + capture("vector_add.py").kernels:
        ops = sass_opcodes(k.stages["sass"])
        assert ops and not [op for op in ops if sass_family(op) == "other"]
        assert sum(summarize(k).sass_mix.values()) == sum(ops.values())


def test_vector_add_is_vectorized(capture):
    s = summarize(capture("vector_add.py").kernels[0])
    assert s.global_vector_loads == {128: 4} and s.global_vector_stores == {128: 2}
    assert s.mma == {} and s.sass_mix["global memory"] == 6
