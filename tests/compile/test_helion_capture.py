"""A Helion file: kx captures the Triton kernel Helion generates for each call, shows that
module as a stage, and links it and every stage below it to the Helion source lines (the
generated code's `# src[file.py:N]` comments). A kernel with no config, which a real run
autotunes, is compiled at Helion's default config and said to be a guess (exit status 4)."""

from __future__ import annotations

import re

import pytest

from kx_core.base.data import data_path
from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.derived import with_derived
from kx_core.ir.sourcemap import source_map_of
from kx_testing import ROOT, missing_extra

pytestmark = pytest.mark.extra("helion")
pytest.importorskip("helion", reason=missing_extra("helion"))

FILE = data_path("examples", "helion_rows.py")


@pytest.fixture(scope="module")
def result():
    return with_derived(compile_file(CompileRequest(file=str(FILE), target="cuda:90")))


def _line(needle: str) -> int:
    return next(i for i, t in enumerate(FILE.read_text().splitlines(), 1) if needle in t)


def test_each_call_is_the_triton_kernel_helion_generated(result):
    names = sorted(k.name for k in result.kernels if k.config is None)  # the run's own launches
    assert names == ["_helion_add", "_helion_matmul", "_helion_row_softmax"]
    for k in result.kernels:
        assert k.status == "compiled" and list(k.stages)[:2] == ["helion", "ttir"]
        # the stage is the module Triton compiled: the file its TTIR's locations name
        with open(k.source_file, encoding="utf-8") as f:
            assert k.stages["helion"] == f.read()
        assert f'loc("{k.source_file}"' in k.stages["ttir"]
        assert f"def {k.name}(" in k.stages["helion"]
    add = next(k for k in result.kernels if k.name == "_helion_add")
    # the config given: 32x64 tiles, 4 warps
    assert "_BLOCK_SIZE_0 = tl.constexpr(32)" in add.stages["helion"] and add.metadata.num_warps == 4
    # torch.addmm on tiles is Helion's tile matmul (an fp32 accumulator of fp16 tiles): tl.dot
    mm = next(k for k in result.kernels if k.name == "_helion_matmul")
    assert "tl.dot(" in mm.stages["helion"] and "tt.dot" in mm.stages["ttir"]


def test_every_stage_links_back_to_the_helion_source_line(result):
    add = next(k for k in result.kernels if k.name == "_helion_add")
    body = _line("out[tile] = x[tile] + y[tile]")
    links = source_map_of(add, str(FILE)).ir_lines(body)
    for stage, needle in (("helion", "tl.load("), ("ttir", "tt.load"), ("ptx", "ld.global"), ("sass", "LDG")):
        lines = add.stages[stage].splitlines()
        assert any(needle in lines[i - 1] for i in links.get(stage, ())), stage
    # and a generated line back to its source line
    smap = source_map_of(add, str(FILE))
    gen = add.stages["helion"].splitlines()
    store = next(i for i, t in enumerate(gen, 1) if "tl.store(" in t)
    assert smap.source_lines("helion", store) == (body,)
    # another file of the same name elsewhere is not this one: no links to it
    assert not source_map_of(add, "/elsewhere/other.py").ir_lines(body)


def test_a_kernel_a_real_run_autotunes_is_said_to_be_a_guess(result):
    said = [d for d in result.diagnostics if d.kind == "not-captured"]
    assert [d.kernel for d in said] == ["row_softmax"] and said[0].line == _line("def row_softmax")
    assert "default config" in said[0].message and result.exit_status == 4
    softmax = next(k for k in result.kernels if k.name == "_helion_row_softmax")
    assert re.search(r"_BLOCK_SIZE_0 = tl\.constexpr\(\d+\)", softmax.stages["helion"])


def test_an_autotuned_kernel_gets_part_of_helions_config_space(result):
    """row_softmax has no config (a real run autotunes it): kx also compiles Helion's
    default config and configs Helion's own generator draws, each a record with its
    config, so the Autotune pane ranks them; kernels given a config get none."""
    from kx_core.model.gpu import spec
    from kx_core.model.matrix import config_matrix

    explored = [k for k in result.kernels if k.config is not None]
    assert {k.name for k in explored} == {"_helion_row_softmax"}
    assert [k.config.index for k in explored] == list(range(len(explored))) and len(explored) >= 2
    launched = next(k for k in result.kernels if k.name == "_helion_row_softmax" and k.config is None)
    # config 0 is Helion's default: the code the run launched
    assert explored[0].stages["helion"] == launched.stages["helion"]
    assert len({k.stages["helion"] for k in explored}) == len(explored)  # each config its own code
    for k in explored:
        assert k.status == "compiled" and k.metadata.num_warps == k.config.num_warps
    rows = config_matrix(result.kernels, "_helion_row_softmax", spec("h200"))
    assert {k.config.label for k in explored} <= {r.config for r in rows}


def test_a_tensor_made_inside_the_kernel_is_on_the_kernels_device():
    # `weight.new_zeros(n)` inside a Helion kernel body is a tensor of the kernel's device,
    # as the kernel's arguments are: under capture both are cuda:0's (they were meta and
    # cuda:0, and Helion refused: "expected cuda:0, got meta")
    file = ROOT / "fixtures" / "kernels" / "helion" / "device_zeros.py"
    r = compile_file(CompileRequest(file=str(file), target="cuda:90"))
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [d.message for d in r.diagnostics]
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.name == "_helion_partial_weight_grad"
    # the config's 32-row blocks over 256 rows: 8 programs, each writing its partial row
    assert k.launch.grid == (8, 1, 1)
    assert (
        "acc = tl.full([_RDIM_SIZE_2], 0, tl.float32)" in k.stages["helion"]
        and "tl.sum(" in k.stages["helion"]
    )


def test_an_epilogue_closure_reads_the_callers_tensor_in_the_kernel():
    file = ROOT / "fixtures" / "kernels" / "helion" / "epilogue_closure.py"
    r = compile_file(CompileRequest(file=str(file), target="cuda:90"))
    compiled = [k for k in r.kernels if k.status == "compiled"]
    if not compiled:  # Helion 1.4.0 itself fails on it (its real run on the H200 raised so)
        pytest.skip("; ".join(d.message for d in r.diagnostics))
    (k,) = compiled
    # the closure's bias is a pointer argument of the generated kernel, loaded in its epilogue
    signature = k.stages["helion"].split(f"def {k.name}(", 1)[1].split(")", 1)[0]
    assert "bias" in signature and "tl.dot(" in k.stages["helion"]
