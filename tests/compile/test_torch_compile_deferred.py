"""`torch.compile` applied at import (a library's decorated helpers, fla's
`@torch.compile class ParallelAttentionFunction`) loads dynamo and compiles at the first
call, as dynamo compiles there on a GPU too: a file that never calls them does not pay
dynamo's import (1.4 s of fla's norm-gate capture), and one that does gets the same
Inductor kernels. That is a fresh worker's saving: a warm server's child on a machine
without a GPU has dynamo imported already, paid once by the server (dynamo_preimport),
as a real run has it once `torch.compile` is called."""

from __future__ import annotations

import textwrap

from kx_core.compile import CompileRequest, compile_file

FILE = textwrap.dedent(
    """
    import sys
    import torch

    @torch.compile
    def gelu_then_scale(x):
        return torch.nn.functional.gelu(x) * 2.0

    @torch.compile(dynamic=False)
    def add_one(x):
        return x + 1

    @torch.compile
    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

    @torch.compile
    class Block(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) + 1

    print("dynamo after import:", "torch._dynamo.eval_frame" in sys.modules)
    x = torch.randn(4096, device="cuda")
    if CALL:
        y = gelu_then_scale(x)
        z = Block()(x)
        print("dynamo after the calls:", "torch._dynamo.eval_frame" in sys.modules)
    """
)


def _compile(tmp_path, call: bool):
    path = tmp_path / "deferred.py"
    path.write_text(f"CALL = {call}\n" + FILE)
    return compile_file(CompileRequest(str(path), target="cuda:90", cold=True), use_cache=False)


def test_a_compiled_function_never_called_costs_no_dynamo(tmp_path):
    r = _compile(tmp_path, call=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "dynamo after import: False" in r.output
    assert not r.kernels


def test_a_compiled_function_called_is_compiled_by_inductor(tmp_path):
    r = _compile(tmp_path, call=True)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "dynamo after import: False" in r.output and "dynamo after the calls: True" in r.output
    kernels = [k for k in r.kernels if k.status == "compiled"]
    # one Inductor kernel for each compiled call: gelu*2, and the module's relu+1
    assert len({k.name for k in kernels}) == 2 and all(k.name.startswith("triton_") for k in kernels)
    sources = " ".join(k.stages["ttir"] for k in kernels)
    assert "erf" in sources  # the gelu


def test_a_dynamo_submodule_imported_first_is_the_one_dynamo_uses(tmp_path):
    """`import torch._dynamo.utils` while the stand-in package is in place loads the real
    package first; importlib then loaded utils again from its own spec (a module imported
    while its finder ran is loaded anew), so the file's `torch._dynamo.utils.counters` and
    orig_code_map were not those dynamo fills: a user reading graph-break counters read
    zeros, and kx could not map dynamo's bytecode to the file's. Now there is one."""
    path = tmp_path / "counters.py"
    path.write_text(
        textwrap.dedent(
            """
            import torch
            import torch._dynamo.utils as utils

            @torch.compile
            def f(x):
                y = x * 2
                print("break")  # a graph break, counted by dynamo
                return y + 1

            f(torch.randn(8, device="cuda"))
            import torch._dynamo.convert_frame as convert_frame
            print("one copy", convert_frame.counters is utils.counters, len(utils.orig_code_map.values) > 0)
            print("graph breaks", sum(utils.counters["graph_break"].values()))
            """
        )
    )
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert "one copy True True" in r.output, r.output
    assert "graph breaks 0" not in r.output and "graph breaks" in r.output
