"""Derived stages stop when they are no longer wanted (issue 51): a build the window no
longer shows is not disassembled on the cores the next compile needs."""

from __future__ import annotations

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.derived import underived, with_derived
from kx_testing import kernel_path


def test_derived_stages_stop_when_asked_and_are_made_otherwise():
    result = compile_file(
        CompileRequest(str(kernel_path("vector_add.py")), target="cuda:90"), use_cache=False
    )
    assert underived(result)
    assert with_derived(result, stop=lambda: True) is None
    made = with_derived(result, stop=lambda: False)
    assert made is not None and not underived(made)
    assert all("SASS unavailable" not in k.stages["sass"] and k.stages["sass"].strip() for k in made.kernels)
