"""kx check: a kernel file's kernels against its references over the KernelBench
distributions, K3's edge sizes and edge values (on the GPU, or through Triton's
interpreter on CPU tensors, labelled so)."""

from __future__ import annotations

from kx_core.bench.bench import check_file, has_gpu
from kx_testing import BAD, KERNELS, run_kx


def test_a_stable_and_an_unstable_softmax():
    report = check_file(str(KERNELS / "checked_softmax.py"))
    assert report.mode == ("gpu" if has_gpu() else "interpreter (CPU)") and not report.error
    by = {}
    for r in report.results:
        by.setdefault(r.check, {}).setdefault(r.dist, []).append(r.ok)
    assert all(all(v) for v in by["softmax"].values())  # edge values (inf, NaN, signed zeros) included
    failing = {d for d, oks in by["softmax_no_max"].items() if not all(oks)}
    assert {"lognormal", "offset"} <= failing and not failing & {"normal", "uniform", "laplace"}
    sizes = {r.size for r in report.results}
    assert {1, 127, 128, 129, 257, 300} <= sizes  # edge sizes around the block, and the file's own
    assert "sqrt(k)" in report.results[0].rationale


def test_files_without_checks_or_that_fail_to_import(tmp_path):
    assert "declares no Check" in check_file(str(KERNELS / "vector_add.py")).error
    p = run_kx("check", str(BAD / "syntax_error.py"))
    assert p.returncode == 1 and "line" in p.stderr
