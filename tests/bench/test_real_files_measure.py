"""The real-file table's count of Inductor's timed pad_mm decisions (benchmarks/real_files/
measure.py): kx's words for each decision read against a real run's record, whose key is
Inductor's own (`should_pad_bench_key`, as scripts/record_real_runs.py stores it)."""

import importlib.util
from pathlib import Path

import pytest

from kx_core.compile import CompileRequest, compile_file

ROOT = Path(__file__).resolve().parents[2]

PADDED_ADDMM = """
import torch

lin = torch.nn.Linear(3, 4).cuda()


@torch.compile
def f(x):
    return torch.relu(lin(x))


print(f(torch.randn(1, 3, device="cuda")).shape)
"""


def _measure_module():
    spec = importlib.util.spec_from_file_location(
        "kx_measure", ROOT / "benchmarks" / "real_files" / "measure.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("padded", [False, True])
def test_pad_mm_decisions_are_matched_by_inductors_own_key(tmp_path, padded):
    import torch

    pad_mm = pytest.importorskip("torch._inductor.fx_passes.pad_mm")
    path = tmp_path / "linear_k3.py"
    path.write_text(PADDED_ADDMM)
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    said = [d for d in r.diagnostics if "pad_mm timing of addmm" in d.message]
    assert said and "kx took the unpadded addmm" in said[0].message, [str(d) for d in r.diagnostics]
    x, w_t, bias = torch.empty(1, 3), torch.empty(4, 3).t(), torch.empty(4)
    key = pad_mm.should_pad_bench_key(None, x, w_t, torch.ops.aten.addmm, bias, is_base_time_key=True)
    other = pad_mm.should_pad_bench_key(
        None, torch.empty(8, 5), torch.empty(5, 6), torch.ops.aten.mm, None, True
    )
    ground = {
        "pad_mm": [
            {"key": str(key), "ori_time": 1.0, "pad_time": 1.0, "padded": padded},
            {"key": str(other), "ori_time": 1.0, "pad_time": 1.0, "padded": True},  # kx never timed it
        ]
    }
    assert _measure_module().pad_mm_agreement(ground, r) == (0 if padded else 1, 1)
