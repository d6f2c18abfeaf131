"""`kx sweep` on files whose kernels are launched by wrappers taking tensors (issue 55
item 1): the shape names the kernel's autotune key, or the wrapper's tensors' sizes, or
nothing (the file's own launches). Which dimension carries which key value is found by
PyTorch's symbolic shapes through the wrapper's own code; the oracle is Triton's binder in
the compile side's capture of the shape's driver: the kernel's launch gets the values
asked for."""

from __future__ import annotations

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.sweep.driver import script
from kx_core.sweep.run import SweepRequest, sweep
from kx_core.sweep.space import SpaceError, parse_shape
from kx_testing import ROOT, run_kx

SWEEP = ROOT / "fixtures" / "kernels" / "sweep"
WRAPPED = str(SWEEP / "matmul_wrapper.py")
SCALE = str(SWEEP / "scale_rows.py")


def _launched(file: str, kernel: str, case, tmp_path) -> dict:
    """The kernel's scalar and tensor arguments as Triton bound them when the shape's driver
    ran under capture."""
    driver = tmp_path / f"driver_{abs(hash(case.label))}.py"
    driver.write_text(script(file, kernel, None, case.shape, None, case.call))
    r = compile_file(CompileRequest(str(driver), target="cuda:90"))
    k = next(k for k in r.kernels if k.name == kernel)
    return {a.name: a.shape if a.kind == "tensor" else a.value for a in k.launch.args}


@pytest.fixture(scope="module")
def wrapped():
    shapes = (parse_shape("M=2048,N=1024,K=4096"), parse_shape("a=1000x64,b=64x300"))
    return sweep(SweepRequest(WRAPPED, "matmul_kernel", shapes, target="cuda:90", measure="none"))


def test_the_autotune_keys_values_reach_the_kernel_through_the_wrapper(wrapped, tmp_path):
    case = wrapped.cases[0]
    assert case.error is None and case.shape == {"M": 2048, "N": 1024, "K": 4096}
    assert case.call["function"] == "matmul" and case.call["values"] == {"activation": ""}
    tensors = case.call["tensors"]
    assert tensors["a"]["shape"] == [2048, 4096] and tensors["b"]["shape"] == [4096, 1024]
    assert tensors["a"]["dtype"] == "float16" and tensors["a"]["device"] == "cuda"
    launched = _launched(WRAPPED, "matmul_kernel", case, tmp_path)
    assert (launched["M"], launched["N"], launched["K"]) == (2048, 1024, 4096)
    assert len(case.configs) == 4 and all(f.registers for f in case.configs)
    assert any("matmul(a=2048x4096,b=4096x1024)" in n for n in wrapped.notes)


def test_a_wrappers_tensor_sizes_are_a_shape_too(wrapped, tmp_path):
    case = wrapped.cases[1]
    assert case.error is None and case.shape == {"M": 1000, "N": 300, "K": 64}
    launched = _launched(WRAPPED, "matmul_kernel", case, tmp_path)
    assert launched["a_ptr"] == (1000, 64) and launched["b_ptr"] == (64, 300)
    assert (launched["M"], launched["N"], launched["K"]) == (1000, 300, 64)


def test_without_a_shape_the_files_own_launches_are_the_shapes(tmp_path):
    r = sweep(SweepRequest(WRAPPED, "matmul_kernel", (), target="cuda:90", measure="none"))
    assert [c.shape for c in r.cases] == [{"M": n, "N": n, "K": n} for n in (512, 1024, 2048)]
    first, later = r.cases[0], r.cases[1]
    assert first.call["values"] == {"activation": ""}
    # the benchmark's b is a transposed view: made again in that layout, with its activation
    assert later.call["tensors"]["b"]["order"] == [1, 0] and later.call["values"] == {
        "activation": "leaky_relu"
    }
    launched = _launched(WRAPPED, "matmul_kernel", later, tmp_path)
    assert launched["stride_bk"] == 1 and launched["stride_bn"] == 1024


def test_a_key_no_single_dimension_sets_asks_for_the_tensor_form(tmp_path):
    r = sweep(SweepRequest(SCALE, "scale_kernel", (parse_shape("n_elements=65536"),), target="cuda:90",
                           measure="none"))  # fmt: skip
    (case,) = r.cases
    assert case.error and "give the tensor form (x=AxB)" in case.error and not case.configs
    r = sweep(
        SweepRequest(SCALE, "scale_kernel", (parse_shape("x=64x1024"),), target="cuda:90", measure="none")
    )
    (case,) = r.cases
    assert case.error is None and case.shape == {"n_elements": 65536}
    assert _launched(SCALE, "scale_kernel", case, tmp_path)["n_elements"] == 65536


def test_the_cli_takes_both_forms_and_says_what_it_called():
    p = run_kx("sweep", WRAPPED, "--kernel", "matmul_kernel", "--shape", "M=256,N=512,K=128",
               "--target", "cuda:90", "--measure", "none")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "M=256,N=512,K=128: matmul(a=256x128,b=128x512)" in p.stdout
    p = run_kx("sweep", SCALE, "--kernel", "scale_kernel", "--shape", "n_elements=4096",
               "--target", "cuda:90", "--measure", "none")  # fmt: skip
    assert p.returncode != 0 and "tensor form" in p.stderr


def test_a_tensor_shape_is_read_as_its_sizes():
    assert parse_shape("a=2048x4096,b=4096x1024,scale=3") == {
        "a": (2048, 4096),
        "b": (4096, 1024),
        "scale": 3,
    }
    with pytest.raises(SpaceError):
        parse_shape("a=2048x")
