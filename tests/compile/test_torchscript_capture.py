"""A @torch.jit.script helper under capture (issue 50, a class from fresh corpus 2's
ring-attention file): the TorchScript interpreter could not read host data from capture
tensors and the capture stopped; the scripted function's Python now runs, as dynamo
inlines it, with the values a real run has."""

from __future__ import annotations

import importlib.util

import torch
import triton

from kx_core.compile import CompileRequest, compile_file
from kx_testing import ROOT

FILE = ROOT / "fixtures" / "kernels" / "host_reads" / "torchscript_varlen.py"


def test_a_scripted_helper_sizes_the_launch_as_on_a_real_run(tmp_path):
    text = FILE.read_text()
    helper = tmp_path / "kx_ts_helper.py"  # the helper alone, scripted for real, run on the CPU
    helper.write_text(
        "import torch\n\n\n" + text[text.index("\n@torch.jit.script") : text.index("\n@triton.jit")]
    )
    spec = importlib.util.spec_from_file_location("kx_ts_helper", helper)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert isinstance(mod.flatten_varlen, torch.jit.ScriptFunction)
    cu = torch.tensor([0, 17, 317, 381], dtype=torch.int32)
    n = mod.flatten_varlen(torch.zeros(3, 4, 300), cu).numel()
    r = compile_file(CompileRequest(str(FILE), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    (k,) = r.kernels
    assert k.status == "compiled" and k.launch.grid == (triton.cdiv(n, 256), 1, 1)
