"""C++ CPU kernels (issue 19) on real GCC compiles: each exported function's assembly with
every instruction linked to its line (an intrinsic's code to its call site), GCC's
vectorization remarks on their lines, compile errors at their line, and the seed's
correctness rules with file and line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from kx_core.cpu.checks import check_file
from kx_core.cpu.compile import compile_cpp
from kx_core.ir.display_filters import DisplayFilters, filter_stage
from kx_core.ir.sourcemap import build_source_map
from kx_core.records.backends import stages_for
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


# Example objdump -dl --inlines lines: "/k/vector_add_avx2.cpp:11 (discriminator 2)",
# "inlined by /k/vector_add_avx2.cpp:14 (_ZN6kx_cpu...)", "  25:\tvaddps ymm0,ymm1,YMMWORD PTR [rsi+rax*4]"
_OBJ_LOC_RE = re.compile(r"^(?:inlined by )?(/\S+?):(\d+)")
_OBJ_INSN_RE = re.compile(r"^\s*[0-9a-f]+:\s+(\w+)")
ALIASES = {
    "sal": "shl",
    "movsx": "movsxd",
}  # one opcode each: GCC writes the first, objdump reads back the second


def _objdump_lines(path: Path, tier_flags: list[str]) -> dict[int, Counter]:
    """The oracle: binutils' reading of the object's DWARF line table and inline info,
    source line -> the mnemonics of the instructions it gives that line."""
    from kx_core.cpu.targets import COMMON_FLAGS

    with tempfile.TemporaryDirectory() as tmp:
        obj = f"{tmp}/k.o"
        subprocess.run(["g++", *COMMON_FLAGS, *tier_flags, "-g", "-c", "-o", obj, str(path)], check=True)
        dump = subprocess.run(
            ["objdump", "-d", "-l", "--inlines", "-M", "intel", "--no-show-raw-insn", obj],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    out: dict[int, Counter] = {}
    user, after_insn = None, False
    for raw in dump.splitlines():
        m = _OBJ_LOC_RE.match(raw.strip())
        if m:
            mine = os.path.exists(m.group(1)) and os.path.samefile(m.group(1), path)
            # a new chain, innermost first: a location line, or "inlined by" lines right
            # after an instruction (objdump prints only the chain when the line stays)
            if not raw.startswith("inlined by") or after_insn:
                user = int(m.group(2)) if mine else None
            elif user is None and mine:  # the innermost call site in the user's file
                user = int(m.group(2))
            after_insn = False
            continue
        insn = _OBJ_INSN_RE.match(raw)
        after_insn = after_insn or bool(insn)
        if insn and user is not None and insn.group(1) not in ("nop", "xchg", "data16", "cs"):
            out.setdefault(user, Counter())[insn.group(1)] += 1
    return out


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils' objdump")
def test_line_links_equal_objdumps_reading_of_the_debug_info():
    from kx_core.cpu.targets import TIER_FLAGS

    for name in ("vector_add_avx2.cpp", "gemm_avx2.cpp", "rmsnorm_avx2.cpp"):
        path = EXAMPLES / name
        oracle = _objdump_lines(path, list(TIER_FLAGS["avx2"]))
        mine: dict[int, Counter] = {}
        for k in compile_cpp(str(path), "cpu:avx2").kernels:  # rmsnorm: its OpenMP clone too
            sm = build_source_map(k.stages, str(path))
            text = k.stages["asm"].split("\n")
            for line in oracle:
                for n in sm.ir_lines(line).get("asm", ()):
                    s = text[n - 1].strip()
                    if s and not s.startswith((".", "#")) and not s.endswith(":"):
                        op = s.split()[0]
                        mine.setdefault(line, Counter())[ALIASES.get(op, op)] += 1
        # every line objdump gives instructions to, kx links to the same instructions
        assert mine == oracle, (
            name,
            {ln: (mine.get(ln), oracle[ln]) for ln in oracle if mine.get(ln) != oracle[ln]},
        )
