"""The first config's stages before the others are compiled (issue 51): iter_compile
yields the first kernel's TTIR while Triton makes its later stages, then the kernels
compiled so far (CompilePartial) while the worker still runs, in the configs' order,
each the same record the finished result holds."""

from __future__ import annotations

from kx_core.compile import CompilePartial, CompileRequest, CompileResult, iter_compile
from kx_testing import KERNELS


def test_the_first_configs_come_before_the_others(tmp_path):
    path = tmp_path / "matmul_autotune.py"
    path.write_text((KERNELS / "matmul_autotune.py").read_text())
    partials, results = [], []
    for item in iter_compile(CompileRequest(file=str(path), target="cuda:90"), use_cache=False):
        if isinstance(item, CompilePartial):
            assert not results, "a partial after the result"
            partials.append(item.result)
        elif isinstance(item, CompileResult):
            results.append(item)
    (final,) = results
    assert len(final.kernels) == 4 and all(k.status == "compiled" for k in final.kernels)
    assert partials, "no kernel was shown before the whole capture ended"
    by_label = {k.config.label: k for k in final.kernels}
    order = [k.config.label for k in final.kernels]
    # first, the first config's TTIR while Triton still makes its later stages: the
    # finished record's TTIR, marked compiling, nothing else (capturing/early_stages.py)
    early, *compiled = partials
    (k0,) = early.kernels
    assert k0.status == "compiling" and set(k0.stages) == {"ttir"} and not k0.binaries
    assert k0.config.label == order[0] and k0.stages["ttir"] == by_label[order[0]].stages["ttir"]
    assert not any(k.status == "compiling" for k in final.kernels)
    # 4 configs compiled 2 (or 1) at a time: the first arrive while the others compile
    assert compiled and 0 < len(compiled[0].kernels) < len(final.kernels)
    for partial in compiled:
        assert partial.build == final.build  # the build the finished result is of
        labels = [k.config.label for k in partial.kernels]
        assert labels == order[: len(labels)]  # the configs' order, a prefix of the result's
        for k in partial.kernels:
            assert k.stages == by_label[k.config.label].stages
            assert k.metadata == by_label[k.config.label].metadata


def test_a_plain_kernels_ttir_comes_while_it_compiles(tmp_path):
    """Not autotuned: the worker compiles it itself; its TTIR is sent as Triton writes it."""
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    items = list(iter_compile(CompileRequest(file=str(path), target="cuda:90"), use_cache=False))
    partials = [i.result for i in items if isinstance(i, CompilePartial)]
    (final,) = [i for i in items if isinstance(i, CompileResult)]
    (k,) = final.kernels
    assert k.status == "compiled"
    early = partials[0].kernels[0]
    assert early.status == "compiling" and early.stages == {"ttir": k.stages["ttir"]}
    assert early.display_name == k.display_name and early.source_line == k.source_line
