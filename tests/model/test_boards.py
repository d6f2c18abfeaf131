"""Which GPU table row a target is captured and modelled on comes from its backend's
descriptor (records.backends: `boards`, `nearest_board`): every row it names is in the
table, and an arch without a board of its own gets its own backend's nearest one (an
AMD arch was modelled on an H100 before)."""

from __future__ import annotations

from kx_core.model.boards import capture_gpu
from kx_core.model.gpu import SPECS, for_arch
from kx_core.records.backends import BACKENDS
from kx_core.records.results import Target


def test_every_board_a_descriptor_names_is_a_table_row():
    for backend in BACKENDS.values():
        if backend.gpu:
            assert backend.nearest_board in SPECS
            for arch, board in backend.boards:
                assert board in SPECS and SPECS[board].arch == backend.arch_name(arch)


def test_an_arch_without_a_board_gets_its_backends_nearest():
    assert for_arch("gfx90a") is SPECS["mi300x"] and for_arch("sm_100") is SPECS["h100"]
    assert capture_gpu(Target("hip", "gfx90a", 64)) is SPECS["mi300x"]
    assert capture_gpu(Target("cuda", 80, 32)) is SPECS["a100"]
