"""An out= call of an op whose out overload has no meta kernel (issue 50, a class from
fresh corpus 2's fp8 nanochat: aten::_scaled_mm.out under Inductor stopped the capture;
eager, `out` stayed empty and the next grid was 0). ATen's out= rule: the functional
result's shape, put into `out`."""

from __future__ import annotations

import torch
import triton

from kx_core.compile import CompileRequest, compile_file
from kx_testing import ROOT

FILE = ROOT / "fixtures" / "kernels" / "torch_ops" / "scaled_mm_out.py"


def test_an_out_overload_without_a_meta_kernel_gets_the_functional_shape():
    # PyTorch's own meta kernel of the functional overload is the truth for the shape
    a = torch.empty(256, 128, device="meta", dtype=torch.float8_e4m3fn)
    b = torch.empty(64, 128, device="meta", dtype=torch.float8_e4m3fn).t()
    one = torch.ones((), device="meta")
    shape = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16).shape
    r = compile_file(CompileRequest(str(FILE), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    (k,) = r.kernels
    assert k.launch.grid == (triton.cdiv(shape.numel(), 1024), 1, 1)
