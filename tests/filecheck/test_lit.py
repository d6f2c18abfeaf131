"""kx lit and the pass playground: the lit files written for kx pass; failures name the
check and where the search stopped; what kx cannot run is UNSUPPORTED, with why; a bad
input or a pass that fails is a message; a failing input shrinks."""

from __future__ import annotations

import pytest

from kx_core.lab.lit import minimize, run_file_text, run_lines
from kx_core.lab.playground import Unsupported, available_flags, resolve, run_passes
from kx_testing import ROOT, run_kx

LIT = ROOT / "kx_core" / "data" / "lit"


def test_every_lit_file_passes_through_kx_lit():
    files = sorted(LIT.glob("*.mlir"))
    assert len(files) >= 10
    p = run_kx("lit", *map(str, files))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = sum(len(run_lines(f.read_text())) for f in files)
    assert p.stdout.strip().endswith(f"{lines} pass, 0 fail, 0 unsupported")


def test_a_failing_check_names_its_line_and_where_the_search_stopped(tmp_path):
    text = (LIT / "coalesce.mlir").read_text().replace("sizePerThread = [4]", "sizePerThread = [8]")
    (result,) = run_file_text(text)
    assert (
        result.status == "FAIL" and result.check_line == 6 and "expected string not found" in result.message
    )
    bad = tmp_path / "bad.mlir"
    bad.write_text(text)
    p = run_kx("lit", str(bad))
    assert p.returncode == 1 and "FAIL: " in p.stdout and "line 6: CHECK" in p.stdout


def test_unsupported_lines_say_why():
    text = (
        "// RUN: triton-llvm-opt %s -foo | FileCheck %s\n"
        "// RUN: triton-opt %s -tritongpu-frobnicate | FileCheck %s\n"
        "// RUN: triton-opt %s -canonicalize | FileCheck %s --match-full-lines\n"
        "// RUN: triton-opt %s -canonicalize | FileCheck %s --check-prefix=FOLD\n"
        "// FOLD: tt.return %arg0\n"
        "module {\n  tt.func @f(%arg0: i32) -> i32 {\n    tt.return %arg0 : i32\n  }\n}\n"
    )
    results = run_file_text(text)
    assert [r.status for r in results] == ["UNSUPPORTED", "UNSUPPORTED", "UNSUPPORTED", "PASS"]
    assert "triton-opt" in results[0].message and "no such pass" in results[1].message
    assert "--match-full-lines" in results[2].message


def test_garbage_and_failing_passes_are_messages():
    r = run_passes("module { this is not mlir }", ["-canonicalize"])
    assert not r.ok and r.error.startswith("parse error") and 'loc("input":1' in r.error
    text = (LIT / "accelerate_matmul.mlir").read_text()
    r = run_passes(text, ["-tritongpu-accelerate-matmul"])  # no target on the module
    assert not r.ok and ("target" in r.error or "crashed" in r.error)


def test_flags_map_to_this_tritons_passes():
    """The catalog is read from the wheel: flag names, which option each argument of a
    binding sets, options the binding cannot set, triton-opt's defaults for the rest."""
    flags = available_flags()
    assert flags["tritongpu-coalesce"] == "passes.ttgpuir.add_coalesce"
    assert flags["canonicalize"] == "passes.common.add_canonicalizer"
    assert flags["tritongpu-F32DotTC"] == "passes.ttgpuir.add_f32_dot_tc"
    assert (
        flags["tritongpu-global-scratch-memory-allocation"]
        == "passes.ttgpuir.add_allocate_global_scratch_memory"
    )
    assert flags["triton-nvidia-gpu-fence-insertion"] == "nvidia.passes.ttnvgpuir.add_fence_insertion"
    spec = resolve("--convert-triton-to-tritongpu='target=cuda:90 num-warps=8'")
    assert (spec.function, spec.args) == ("passes.ttir.add_convert_to_ttgpuir", ("cuda:90", 8, 32, 1))
    assert resolve("-tritongpu-assign-latencies").args == (3,)  # triton-opt's default
    assert resolve("-tritongpu-pipeline=num-stages=2").args == (2, False)
    from kx_core.lab.pass_catalog import catalog

    if "instrumented" in catalog()["tritongpu-allocate-warp-groups"].params:  # triton 3.8, not 3.6
        assert resolve("-tritongpu-allocate-warp-groups=instrumented=true").args == (True,)
    else:
        with pytest.raises(Unsupported, match="no option instrumented"):
            resolve("-tritongpu-allocate-warp-groups=instrumented=true")
    assert (
        resolve("-convert-triton-to-tritongpu=enable-source-remat=false target=cuda:80").args[0] == "cuda:80"
    )
    with pytest.raises(Unsupported, match="cannot set enable-source-remat"):
        resolve("-convert-triton-to-tritongpu='enable-source-remat=true target=cuda:80'")
    with pytest.raises(Unsupported, match="no option frobs"):
        resolve("-tritongpu-coalesce=frobs=1")


def test_convert_without_a_target_fails_as_triton_opt_does():
    text = (LIT / "convert_to_ttgpu.mlir").read_text()
    r = run_passes(text, ["-convert-triton-to-tritongpu"])
    assert not r.ok and not r.unsupported and r.error


def test_minimize_keeps_the_failure_and_drops_the_rest():
    text = (
        "// RUN: triton-opt %s -canonicalize | FileCheck %s\n"
        "// CHECK: arith.muli\n"
        "module {\n"
        "  tt.func @f(%arg0: i32) -> i32 {\n"
        "    %c0 = arith.constant 0 : i32\n"
        "    %c1 = arith.constant 1 : i32\n"
        "    %a = arith.addi %arg0, %c0 : i32\n"
        "    %b = arith.muli %a, %c1 : i32\n"
        "    tt.return %b : i32\n"
        "  }\n"
        "}\n"
    )
    assert run_file_text(text)[0].status == "FAIL"
    small, trials = minimize(text)
    assert trials > 1 and len(small.splitlines()) < len(text.splitlines())
    assert run_file_text(small)[0].status == "FAIL" and run_file_text(small)[0].check_line == 2


def test_split_file_env_and_not_lines():
    """LLVM's split-file parts as inputs and check files, `env A=1` before triton-opt,
    `not triton-opt` with its diagnostics through 2>&1, `-o -`."""
    text = (
        "// RUN: split-file %s %t\n"
        "// RUN: triton-opt %t/ok.mlir -canonicalize -o - | FileCheck %t/ok.mlir\n"
        "// RUN: not triton-opt %t/bad.mlir 2>&1 | FileCheck %t/bad.mlir\n"
        "// RUN: env KX_UNUSED=1 triton-opt %t/ok.mlir -cse\n"
        "//--- ok.mlir\n"
        "// CHECK: tt.return %arg0\n"
        "module {\n  tt.func @f(%arg0: i32) -> i32 {\n    tt.return %arg0 : i32\n  }\n}\n"
        "//--- bad.mlir\n"
        "// CHECK: error: {{.*}}\n"
        "module { this is not mlir }\n"
    )
    results = run_file_text(text)
    assert [r.status for r in results] == ["PASS", "PASS", "PASS", "PASS"], [r.message for r in results]
    broken = text.replace("tt.return %arg0\n", "tt.return %arg1\n", 1)
    assert run_file_text(broken)[1].status == "FAIL"


def test_round_trips_pipelines_and_unregistered_ops():
    """`triton-opt %s | triton-opt | FileCheck %s` (print, parse again), -pass-pipeline,
    -o /dev/null with the status deciding, -allow-unregistered-dialect where the wheel
    exports MLIR's switch."""
    from kx_core.lab.pass_catalog import can_allow_unregistered

    body = "module {\n  tt.func @f(%arg0: i32) -> i32 {\n    tt.return %arg0 : i32\n  }\n}\n"
    text = (
        "// RUN: triton-opt %s | triton-opt | FileCheck %s\n"
        "// RUN: triton-opt %s -pass-pipeline='builtin.module(canonicalize,cse)' | FileCheck %s\n"
        "// RUN: triton-opt %s -cse -o /dev/null\n"
        "// CHECK: tt.return %arg0\n" + body
    )
    assert [r.status for r in run_file_text(text)] == ["PASS", "PASS", "PASS"]
    unregistered = (
        "// RUN: triton-opt %s -allow-unregistered-dialect | FileCheck %s\n"
        '// CHECK: "test.op"\n'
        'module {\n  tt.func @f() {\n    "test.op"() : () -> ()\n    tt.return\n  }\n}\n'
    )
    (result,) = run_file_text(unregistered)
    assert result.status == ("PASS" if can_allow_unregistered() else "UNSUPPORTED"), result.message


def test_nvidia_lowering_without_options_takes_triton_opts_defaults():
    """NVIDIA's Passes.td: compute-capability=80, ptx-version=80. Bare flags give the same
    LLVM dialect as those values given, and not what sm_90 gives (native fp8 conversion)."""
    text = (LIT / "lower_fp8_default_cc.mlir").read_text()

    def lower(options: str) -> str:
        r = run_passes(
            text, [f"--allocate-shared-memory-nv{options}", f"--convert-triton-gpu-to-llvm{options}"]
        )
        assert r.ok, r.error
        return r.text()

    bare = lower("")
    assert bare == lower("='compute-capability=80 ptx-version=80'")
    assert "cvt.rn.satfinite" not in bare and "cvt.rn.satfinite" in lower("=compute-capability=90")


def test_llvm_tools_after_triton_opt():
    """mlir-translate, opt and llc run through the wheel's LLVM bindings (the lit file
    checks LLVM IR and PTX); their options kx does not implement are UNSUPPORTED, with why."""
    (llvm_ir, ptx) = run_file_text((LIT / "lower_to_ptx.mlir").read_text())
    assert llvm_ir.status == "PASS" and "define" in llvm_ir.output
    assert ptx.status == "PASS" and ".target sm_90" in ptx.output
    body = "\nmodule {\n}\n"
    lines = (
        "// RUN: triton-opt %s | mlir-translate -mlir-to-llvmir | opt -O2 | FileCheck %s\n"
        "// RUN: triton-opt %s | opt -S -O2 | FileCheck %s\n"
        "// RUN: triton-opt %s | mlir-translate -mlir-to-llvmir | llc -mcpu=sm_90 | FileCheck %s\n"
    )
    results = run_file_text(lines + body)
    assert [r.status for r in results] == ["UNSUPPORTED"] * 3
    assert "opt -S -O0..3" in results[0].message and "mlir-translate" in results[1].message
    assert "-mtriple" in results[2].message
