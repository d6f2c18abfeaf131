"""C++ CPU kernels (issue 19) on real GCC compiles: each exported function's assembly with
every instruction linked to its line (an intrinsic's code to its call site), GCC's
vectorization remarks on their lines, compile errors at their line, and the seed's
correctness rules with file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kx_core.compile.stages import stages_for
from kx_core.cpu.checks import check_file
from kx_core.cpu.compile import compile_cpp
from kx_core.ir.display_filters import DisplayFilters, filter_stage
from kx_core.ir.sourcemap import build_source_map
from kx_testing import ROOT, run_kx

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
EXAMPLES = ROOT / "kx_core" / "data" / "examples" / "cpu"
BAD = ROOT / "fixtures" / "kernels" / "bad_cpu"


def _line(path: Path, needle: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if needle in t)


def _linked(kernel, path: Path, needle: str) -> list[str]:
    """The assembly lines linked to the source line holding `needle`."""
    sm = build_source_map(kernel.stages, str(path))
    text = kernel.stages["asm"].split("\n")
    return [text[n - 1].strip() for n in sm.ir_lines(_line(path, needle)).get("asm", ())]


def test_each_function_is_a_record_with_assembly_and_remarks():
    path = EXAMPLES / "rmsnorm_avx2.cpp"
    r = compile_cpp(str(path), "cpu:avx2")
    assert r.target.spec == "cpu:avx2" and not [d for d in r.diagnostics if d.fatal]
    names = [k.name for k in r.kernels]
    assert "kx_cpu::avx2::rmsnorm(float const*, float const*, float*, long, long, float)" in names
    assert [d.name for d in stages_for(r.target)] == ["asm", "vectorization"]
    for k in r.kernels:
        assert set(k.stages) == {"asm", "vectorization"} and " PTR [" in k.stages["asm"]  # Intel syntax
    # the parallel loop body is OpenMP's outlined clone: the FMA of the sum of squares is there
    body = next(k for k in r.kernels if "_omp_fn" in k.name)
    fma = _linked(body, path, "acc = _mm256_fmadd_ps(v, v, acc);")
    assert any(t.startswith("vfmadd") and "ymm" in t for t in fma), fma


def test_intrinsics_link_to_their_call_site_and_tails_to_theirs():
    path = EXAMPLES / "vector_add_avx2.cpp"
    (k,) = compile_cpp(str(path), "cpu:avx2").kernels
    simd = _linked(k, path, "_mm256_storeu_ps(out + i, _mm256_add_ps(x, y));")
    assert any(t.startswith("vaddps") and "ymm" in t for t in simd), simd
    tail = _linked(k, path, "out[i] = a[i] + b[i];")
    assert any(t.startswith(("vaddss", "vaddps")) for t in tail), tail
    # GCC vectorized the scalar tail loop itself: its remark is on that loop's line
    remarks = k.stages["vectorization"]
    assert f"vector_add_avx2.cpp:{_line(path, 'for (; i < n; ++i)')}:" in remarks
    assert "vectorized" in remarks


def test_display_filters_leave_the_code():
    (k,) = compile_cpp(str(EXAMPLES / "gemm_avx2.cpp"), "cpu:avx2").kernels
    full = k.stages["asm"]
    shown = filter_stage(full, "gas", DisplayFilters()).text
    assert ".cfi_" in full and ".loc" in full and ".LBB" in full
    assert ".cfi_" not in shown and ".loc" not in shown and ".LBB" not in shown
    assert shown.count("vfmadd") == full.count("vfmadd") > 0


def test_avx512_compiles_here_for_reading():
    r = compile_cpp(str(EXAMPLES / "gemm_avx2.cpp"), "cpu:avx512")
    assert r.target.spec == "cpu:avx512" and r.kernels and not [d for d in r.diagnostics if d.fatal]


def test_a_compile_error_is_a_diagnostic_at_its_line():
    path = BAD / "compile_error.cpp"
    r = compile_cpp(str(path), "cpu:avx2")
    (d,) = [d for d in r.diagnostics if d.fatal]
    assert d.kind == "compile" and d.line == _line(path, "// TYPO") and "_mm256_loadu_pz" in d.message
    assert r.kernels == () and r.exit_status == 1


RULES = {
    "aligned_load.cpp": ("unaligned_simd_load", "// LOAD"),
    "no_tail.cpp": ("vector_width_remainder", "// LOOP"),
    "past_end.cpp": ("vector_width_remainder", "// LOOP"),
    "two_tiers.cpp": ("separate_translation_units", "// TIERS"),
    "no_registration.cpp": ("registration", "// TORCH"),
}


def test_each_rule_is_found_at_its_line():
    for name, (rule, marker) in RULES.items():
        found = [d for d in check_file(str(BAD / name)) if d.message.startswith(rule + ":")]
        assert [d.line for d in found][:1] == [_line(BAD / name, marker)], (name, found)
    dispatch = [d for d in check_file(str(BAD / "two_tiers.cpp")) if "dispatcher" in d.message]
    assert dispatch[0].line == _line(BAD / "two_tiers.cpp", "// DISPATCH")


def test_the_examples_keep_every_rule():
    for path in sorted(EXAMPLES.glob("*.cpp")):
        assert check_file(str(path)) == [], path.name


def test_cli_compile_json_and_check():
    p = run_kx("compile", str(EXAMPLES / "vector_add_avx2.cpp"), "--target", "cpu:avx2", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["target"] == "cpu:avx2" and set(doc["kernels"][0]["stages"]) == {"asm", "vectorization"}
    p = run_kx("check", str(BAD / "no_tail.cpp"))
    assert p.returncode == 1 and "vector_width_remainder" in p.stdout
    assert run_kx("check", str(EXAMPLES / "gemm_avx2.cpp")).returncode == 0
    p = run_kx("compile", str(EXAMPLES / "gemm_avx2.cpp"), "--target", "cuda:90")
    assert p.returncode == 2 and "cpu:avx2" in p.stderr
