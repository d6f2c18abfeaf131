"""A Gluon file is captured like a Triton file: every launch with its constexprs (a layout
passed as one too), and the stages from Gluon IR (what Gluon's frontend wrote, before its
passes) down to SASS, each linked to the source lines."""

from __future__ import annotations

from kx_core.base.data import data_path
from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.derived import with_derived
from kx_core.ir.anatomy import layout_alias_texts
from kx_core.ir.sourcemap import build_source_map

EXAMPLE = data_path("examples", "gluon_transpose.py")


def test_a_gluon_file_has_every_stage_linked_to_its_source():
    result = with_derived(compile_file(CompileRequest(file=str(EXAMPLE), target="cuda:90")))
    assert sorted(k.name for k in result.kernels) == ["scale_kernel", "transpose_kernel"]
    text = EXAMPLE.read_text().splitlines()
    load_line = next(i for i, t in enumerate(text, 1) if "tile = gl.load(" in t)
    for k in result.kernels:
        assert k.status == "compiled"
        assert list(k.stages)[:2] == ["gluon", "ttgir"] and "ttir" not in k.stages
        assert {"llir", "ptx", "sass"} <= set(k.stages)
        # the frontend already wrote the source's layouts; the passes keep them to TTGIR
        written = set(layout_alias_texts(k.stages["gluon"]).values())
        assert written and written <= set(layout_alias_texts(k.stages["ttgir"]).values())
    transpose = next(k for k in result.kernels if k.name == "transpose_kernel")
    assert transpose.launch.constexprs == {"BM": 64, "BN": 64}
    scale = next(k for k in result.kernels if k.name == "scale_kernel")
    assert "BlockedLayout(size_per_thread=[4]" in scale.launch.constexprs["layout"]
    links = build_source_map(transpose.stages, str(EXAMPLE)).ir_lines(load_line)
    for stage, needle in (("gluon", "tt.load"), ("ttgir", "tt.load"), ("ptx", "ld.global"), ("sass", "LDG")):
        lines = transpose.stages[stage].splitlines()
        assert any(needle in lines[i - 1] for i in links[stage]), stage
