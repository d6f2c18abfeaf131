"""The capture device's stand-ins for torch.cuda's objects answer what PyTorch's own
objects answer (issue 50: a library that asks a stream or an event something kx's
stand-in lacked stopped there, e.g. torch.optim's `current_stream().is_capturing()` on
torch 2.14). The oracle is PyTorch's own classes: every public name they have, the
stand-ins have."""

from __future__ import annotations

import pytest
import torch

from kx_core.compile.capturing.device import fake_cuda


@pytest.mark.parametrize(
    ("ours", "theirs"), [(fake_cuda.FakeStream, torch.cuda.Stream), (fake_cuda.FakeEvent, torch.cuda.Event)]
)
def test_every_public_name_of_torchs_class_is_answered(ours, theirs):
    names = {n for n in dir(theirs) if not n.startswith("_")}
    instance = ours()
    missing = sorted(n for n in names if not hasattr(instance, n))
    assert not missing, f"{ours.__name__} lacks {missing} of {theirs.__module__}.{theirs.__name__}"


def test_a_fused_optimizer_step_runs_under_capture(tmp_path):
    """torch.optim asks the current stream whether it is capturing before a fused step."""
    from kx_core.compile import CompileRequest, compile_file

    f = tmp_path / "adam.py"
    f.write_text(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(64, 64, device='cuda'))\n"
        "opt = torch.optim.AdamW([w], lr=1e-3, fused=True)\n"
        "w.sum().backward()\n"
        "opt.step()\n"
        "print('stepped', torch.accelerator.current_stream().is_capturing())\n"
    )
    r = compile_file(CompileRequest(str(f), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    assert "stepped False" in r.output
