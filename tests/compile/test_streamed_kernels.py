"""The first config's stages before the others are compiled (issue 51): iter_compile
yields the kernels compiled so far (CompilePartial) while the worker still runs, in the
configs' order, each the same record the finished result holds."""

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
    first = partials[0]
    # 4 configs compiled 2 (or 1) at a time: the first arrive while the others compile
    assert 0 < len(first.kernels) < len(final.kernels)
    by_label = {k.config.label: k for k in final.kernels}
    order = [k.config.label for k in final.kernels]
    for partial in partials:
        assert partial.build == final.build  # the build the finished result is of
        labels = [k.config.label for k in partial.kernels]
        assert labels == order[: len(labels)]  # the configs' order, a prefix of the result's
        for k in partial.kernels:
            assert k.stages == by_label[k.config.label].stages
            assert k.metadata == by_label[k.config.label].metadata
