"""scripts/record_real_runs.py, the recorder of the GPU's real runs that kx is scored against:
what it keeps besides the compiles."""

from __future__ import annotations

import importlib.util
import json

from kx_testing import ROOT


def _recorder():
    spec = importlib.util.spec_from_file_location(
        "record_real_runs", ROOT / "scripts" / "record_real_runs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_real_run_keeps_inductors_pad_mm_decisions_with_both_times(tmp_path):
    """Inductor's pad_mm pads a matmul where its timing says padding is over 1.1x faster; a
    capture cannot time, so kx's tie is a guess, and the real runs it is scored against keep
    each timed decision: the key, both times and the answer, as the pass itself returned it
    (here called as the pass calls it, on the CPU: no GPU to time)."""
    file = tmp_path / "decides.py"
    file.write_text(
        "from torch._inductor.fx_passes import pad_mm\n"
        "print(pad_mm.is_padded_faster('mm k1', 2.0, 1.0), pad_mm.is_padded_faster('mm k2', 1.0, 1.0))\n"
    )
    got = _recorder().record(str(file), str(tmp_path / "out"), [], timeout=300)
    assert got["status"] == "ok", got.get("output_tail")
    assert got["pad_mm"] == [
        {"key": "mm k1", "ori_time": 2.0, "pad_time": 1.0, "padded": True},
        {"key": "mm k2", "ori_time": 1.0, "pad_time": 1.0, "padded": False},
    ]
    assert json.loads((tmp_path / "out" / "decides.json").read_text())["pad_mm"] == got["pad_mm"]
