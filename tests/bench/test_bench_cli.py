"""kx bench without a GPU: a plain refusal that says what to do, and --interpret, which
runs the file's own checks through Triton's interpreter on CPU tensors."""

from __future__ import annotations

import json

import pytest

from kx_core.bench.bench import has_gpu, interpret_file
from kx_testing import BAD, KERNELS
from kx_testing import run_kx as kx

pytestmark = pytest.mark.skipif(has_gpu(), reason="the no-GPU path")


def test_bench_without_a_gpu_says_so_and_offers_the_interpreter():
    p = kx("bench", str(KERNELS / "vector_add.py"))
    assert p.returncode == 2 and "no CUDA GPU" in p.stderr and "--interpret" in p.stderr


def test_interpreter_runs_the_files_own_checks():
    ok = interpret_file(str(KERNELS / "vector_add.py"))
    assert ok.ok and "max difference: 0.0" in ok.output
    bad = interpret_file(str(BAD / "compile_error.py"))
    assert not bad.ok and bad.diagnostics[0].line == 24 and "power of 2" in bad.diagnostics[0].message
    syntax = interpret_file(str(BAD / "syntax_error.py"))
    assert syntax.diagnostics[0].kind == "syntax" and syntax.diagnostics[0].line is not None
    hang = interpret_file(str(BAD / "infinite_loop.py"), timeout=5)
    assert not hang.ok and hang.diagnostics[0].kind == "timeout"
    p = kx("bench", "--interpret", "--json", str(KERNELS / "fused_softmax.py"))
    assert p.returncode == 0 and json.loads(p.stdout)["ok"] is True
