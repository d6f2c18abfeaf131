"""Shapes, config spaces and entry functions of `kx sweep` (kx_core.sweep.space, .driver)."""

from __future__ import annotations

import pytest

from kx_core.records.results import AutotuneConfig
from kx_core.sweep.driver import entry_of, load, set_configs
from kx_core.sweep.space import SpaceError, parse_shape, parse_space, shapes_from_file, spec_of_label
from kx_testing import ROOT

SWEEP = ROOT / "fixtures" / "kernels" / "sweep"


def test_shapes_read_as_the_user_writes_them(tmp_path):
    assert parse_shape("M=4096,N=4096,K=512") == {"M": 4096, "N": 4096, "K": 512}
    assert parse_shape("M=8 N=16") == {"M": 8, "N": 16}
    with pytest.raises(SpaceError, match="'K' is not NAME=INTEGER"):
        parse_shape("M=1,K")
    lines = tmp_path / "shapes.txt"
    lines.write_text("# GEMMs\nM=1,N=2\n\nM=3,N=4  # square-ish\n")
    assert shapes_from_file(str(lines)) == [{"M": 1, "N": 2}, {"M": 3, "N": 4}]
    listed = tmp_path / "shapes.json"
    listed.write_text('[{"M": 5, "N": 6}]')
    assert shapes_from_file(str(listed)) == [{"M": 5, "N": 6}]
    bad = tmp_path / "bad.txt"
    bad.write_text("M=1\nM=x\n")
    with pytest.raises(SpaceError, match=r"bad.txt:2:"):
        shapes_from_file(str(bad))


def test_a_grid_space_and_its_labels_are_kxs_config_labels():
    space = parse_space("BLOCK_M=64,128;BLOCK_N=32;num_warps=4,8;num_stages=3")
    assert len(space) == 4
    assert [s.label for s in space][:2] == ["BLOCK_M=64,BLOCK_N=32,w4,s3", "BLOCK_M=64,BLOCK_N=32,w8,s3"]
    for s in space:  # the label the records give the same config
        record = AutotuneConfig(0, dict(s.kwargs), s.num_warps, s.num_stages)
        assert record.label == s.label and spec_of_label(s.label) == s
    with pytest.raises(SpaceError, match="is not KEY=V1,V2"):
        parse_space("BLOCK_M=64;num_warps")


def test_the_entry_is_the_one_function_the_shape_fits():
    module = load(str(SWEEP / "matmul.py"))
    assert entry_of(module, {"M": 1, "N": 2, "K": 3}, None).__name__ == "run"
    with pytest.raises(SpaceError, match="fit none of the file's functions: name the one"):
        entry_of(module, {"rows": 1}, None)
    with pytest.raises(SpaceError, match="no function 'nope'"):
        entry_of(module, {"M": 1}, "nope")
    tuner = set_configs(module, "matmul_kernel", parse_space("BLOCK_M=64;BLOCK_N=64;BLOCK_K=32;GROUP_M=8"))
    assert [c.kwargs for c in tuner.configs] == [{"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}]
    with pytest.raises(SpaceError, match="'matmul' is not a Triton kernel"):
        set_configs(module, "matmul", None)
    with pytest.raises(SpaceError, match="no kernel named 'mm'"):
        set_configs(module, "mm", None)
