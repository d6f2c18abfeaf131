"""The backend and stage descriptors are the one table: every backend's stages are
ordered and known, each linked stage has a line parser, each derived stage a deriver,
and a backend kx has no descriptor for is an error."""

from __future__ import annotations

import pytest

from kx_core.records.backends import (
    ALL_STAGES,
    BACKENDS,
    UnknownBackend,
    backend_of,
    stages_for,
)
from kx_core.records.results import Target


def test_an_unknown_backend_is_an_error_not_cudas_tabs():
    with pytest.raises(UnknownBackend, match="xpu"):
        stages_for(Target("xpu", "pvc", 16))


def test_each_backends_stages_are_in_pipeline_order_and_in_the_table():
    for backend in BACKENDS.values():
        orders = [s.order for s in backend.stages]
        assert orders == sorted(orders) and len(set(orders)) == len(orders), backend.name
        assert all(ALL_STAGES[s.name] is s for s in backend.stages)
    assert [s.display_name for s in stages_for(Target("hip", "gfx942", 64))] == [
        "Triton (Helion)",  # optional: a tab only for a Helion kernel
        "Gluon IR",  # optional: a tab only for a Gluon kernel
        "TTIR",
        "TTGIR",
        "LLVM IR",
        "AMDGCN",
    ]


def test_every_linked_stage_has_a_line_parser_and_every_derived_stage_a_deriver():
    from kx_core.compile.artifacts import derived
    from kx_core.ir import sourcemap

    for stage in ALL_STAGES.values():
        if stage.links:
            assert stage.locations in sourcemap._PARSERS, stage.name
        if stage.derived_from:
            assert stage.name in derived.DERIVERS, stage.name
            assert any(b.binary == stage.derived_from for b in BACKENDS.values()), stage.name


def test_a_backend_names_its_arch_and_compiler_as_the_records_spell_them():
    assert backend_of(Target("cuda", 90, 32)).arch_name(90) == "sm_90"
    assert backend_of("hip").arch_name("gfx942") == "gfx942"
    assert backend_of("cuda").tool_label("3.6.0") == "triton 3.6.0"
    assert backend_of("cpu").tool_label("g++ 12.2.0") == "g++ 12.2.0"
