"""Capture mode on real compiles of the fixture files, for cuda:80, cuda:90, hip:gfx942."""

from __future__ import annotations

import ast
import re

import pytest

from kx_testing import kernel_path, line_of


def test_vector_add_launch_record_and_stages(capture):
    r = capture("vector_add.py")
    assert r.ok and r.target.spec == "cuda:90"
    (k,) = r.kernels
    assert k.name == "add_kernel" and k.status == "compiled"
    assert set(k.stages) == {"ttir", "ttgir", "llir", "ptx", "sass", "elf"}
    # 98432 elements in blocks of 1024: the grid lambda gave cdiv(98432, 1024) programs
    assert k.launch.grid == (97, 1, 1)
    kinds = {a.name: a for a in k.launch.args}
    assert kinds["x_ptr"].kind == "tensor" and kinds["x_ptr"].dtype == "float32"
    assert kinds["x_ptr"].shape == (98432,) and kinds["x_ptr"].strides == (1,)
    assert kinds["n_elements"].kind == "int" and kinds["n_elements"].value == 98432
    assert k.launch.constexprs == {"BLOCK_SIZE": 1024}
    assert k.metadata.num_warps == 4 and k.metadata.registers > 0 and k.metadata.spills == 0
    assert "tt.func public @add_kernel" in k.stages["ttir"]
    assert ".entry add_kernel" in k.stages["ptx"] and "EXIT" in k.stages["sass"]
    assert k.source_line == line_of("vector_add.py", "def add_kernel")


def test_a_read_of_data_is_a_placeholder_and_capture_goes_on(capture):
    r = capture("vector_add.py")
    (d,) = r.diagnostics
    assert d.kind == "placeholder" and not d.fatal and r.ok
    assert d.line == line_of("vector_add.py", ".item()") and ".item()" in d.message
    r = capture("fused_softmax.py")
    (d,) = r.diagnostics
    assert d.kind == "placeholder" and d.line == line_of("fused_softmax.py", "assert_close")
    (k,) = r.kernels
    assert k.after_placeholder is None  # launched before the check


def test_stop_at_data_stops_the_file_after_the_kernels(capture):
    r = capture("vector_add.py", stop_at_data=True)
    (d,) = r.diagnostics
    assert d.kind == "runtime" and not d.fatal and r.ok
    assert d.line == line_of("vector_add.py", ".item()")
    r = capture("fused_softmax.py", stop_at_data=True)
    (d,) = r.diagnostics
    assert d.kind == "runtime" and d.line == line_of("fused_softmax.py", "assert_close")
    (k,) = r.kernels
    assert k.launch.grid == (1823, 1, 1) and k.launch.constexprs == {"BLOCK_SIZE": 1024}
    assert k.metadata.num_warps == 4


def _configs_in_file(name: str) -> list[dict]:
    """The triton.Config kwargs of the fixture, read from its source."""
    tree = ast.parse((kernel_path(name)).read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Config":
            out.append(ast.literal_eval(node.args[0]))
    return out


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80", "hip:gfx942"])
def test_every_autotune_config_is_compiled(capture, target):
    r = capture("matmul_autotune.py", target)
    assert r.ok
    compiled = [k for k in r.kernels if k.status == "compiled"]
    expected = _configs_in_file("matmul_autotune.py")
    assert [k.config.kwargs for k in compiled] == expected
    assert [k.config.index for k in compiled] == list(range(len(expected)))
    # each config is a different kernel: different hash and constexprs, own grid
    assert len({k.metadata.hash for k in compiled}) == len(expected)
    for k in compiled:
        assert k.launch.constexprs == k.config.kwargs
        assert k.launch.grid[0] == -(-512 // k.config.kwargs["BLOCK_M"]) * -(
            -512 // k.config.kwargs["BLOCK_N"]
        )
        assert k.metadata.num_warps == k.config.num_warps and k.metadata.registers > 0
    assert len({k.metadata.shared for k in compiled}) > 1


def test_hopper_matmul_uses_wgmma_and_ampere_mma_sync(capture):
    hopper = capture("matmul_autotune.py", "cuda:90").kernels[0]
    ampere = capture("matmul_autotune.py", "cuda:80").kernels[0]
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16", hopper.stages["ptx"])
    assert "HGMMA" in hopper.stages["sass"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ampere.stages["ptx"]
    assert "wgmma" not in ampere.stages["ptx"] and "HMMA" in ampere.stages["sass"]


def test_hip_target_gives_amdgcn_with_mfma(capture):
    r = capture("matmul_autotune.py", "hip:gfx942")
    k = r.kernels[0]
    assert r.target.spec == "hip:gfx942" and r.target.warp_size == 64
    assert "amdgcn" in k.stages and "ptx" not in k.stages and "sass" not in k.stages
    assert "v_mfma" in k.stages["amdgcn"]
    assert k.metadata.registers > 0 and k.metadata.extra["sgprs"] > 0


def test_two_kernels_and_two_specializations(capture):
    r = capture("two_kernels.py")
    names = [k.name for k in r.kernels]
    assert names == ["scale_kernel", "row_sum_of_squares", "row_sum_of_squares"]
    aligned, shifted = r.kernels[1], r.kernels[2]
    # x_ptr of the second launch starts 4 bytes into the tensor: no divisibility hint
    head = re.compile(r"@row_sum_of_squares\(%x_ptr: !tt\.ptr<f32>( \{tt\.divisibility = 16 : i32\})?")
    assert head.search(aligned.stages["ttir"]).group(1) is not None
    assert head.search(shifted.stages["ttir"]).group(1) is None
    assert shifted.launch.args[0].shape == (64, 199)
    scale = r.kernels[0].launch.args
    assert [a.kind for a in scale] == ["tensor", "tensor", "float", "int", "constexpr"]


def test_inlined_helper_keeps_its_source_line(capture):
    k = capture("two_kernels.py").kernels[1]
    helper_line = line_of("two_kernels.py", "return x * x")
    assert re.search(rf'two_kernels\.py":{helper_line}:\d+\)', k.stages["ttir"])
    assert "_square" not in [k.name for k in capture("two_kernels.py").kernels]


def test_file_without_launch_lists_kernels_not_launched(capture):
    r = capture("no_launch.py")
    assert r.exit_status == 4 and r.incomplete and not any(d.fatal for d in r.diagnostics)
    assert [(k.name, k.status) for k in r.kernels] == [
        ("axpy_kernel", "not-launched"),
        ("relu_kernel", "not-launched"),
    ]
    assert r.kernels[0].signature == {"x_ptr": "", "y_ptr": "", "a": "", "n": "", "BLOCK": "constexpr"}
    (d,) = r.diagnostics
    assert d.kind == "no-launch" and "axpy_kernel" in d.message


def test_direct_mode_compiles_from_a_signature(capture):
    r = capture(
        "no_launch.py", kernel="axpy_kernel", signature="*fp32,*fp32,fp32,i32", constexprs={"BLOCK": "512"}
    )
    assert r.ok and not r.diagnostics
    (k,) = r.kernels
    assert k.status == "compiled" and k.launch is None
    assert "tt.func public @axpy_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}" in k.stages["ttir"]
    assert "tensor<512xf32" in k.stages["ttir"] and k.metadata.registers > 0
    # the default of a constexpr is used when --constexpr leaves it out
    r = capture("no_launch.py", kernel="relu_kernel", signature="*fp16,i32", num_warps=2)
    (k,) = r.kernels
    assert "tensor<1024xf16" in k.stages["ttir"] and k.metadata.num_warps == 2


def test_direct_mode_signature_mismatch_is_a_diagnostic(capture):
    r = capture("no_launch.py", kernel="axpy_kernel", signature="*fp32,i32")
    (d,) = r.diagnostics
    assert d.kind == "argument" and "4 non-constexpr parameters" in d.message and r.exit_status == 2


def test_tritons_own_modules_are_not_kernels_the_file_imports(monkeypatch):
    """Where Triton is a source build or on PYTHONPATH (outside site-packages), its own
    modules were taken for the user's: every combine function of triton.language.standard
    was said as "a kernel the file imports, never launched". Torch's and Triton's folders
    are the libraries', wherever they are installed."""
    import types

    import triton.language.standard as standard

    from kx_core.compile.capturing import capture, capture_state

    user = types.ModuleType("kx_test_user_kernels")
    user.__file__ = "/tmp/kx_test_user_kernels.py"
    monkeypatch.setattr(capture_state, "STATE", types.SimpleNamespace(user_file="/tmp/kx_test_driver.py"))
    monkeypatch.setattr(
        capture,
        "user_modules_by_file",
        lambda path: {standard.__file__: standard, user.__file__: user},
    )
    found = capture._imported_kernels({})
    assert "_sum_combine" in vars(standard) and not set(found) & set(vars(standard))
