"""The result cache: an unchanged file reopens from cache with the same result."""

from __future__ import annotations

import shutil

from kx_core.compile import CompileRequest, compile_file
from kx_core.records.results import CompileResult


def test_reopen_is_a_cache_hit_and_an_edit_is_not(tmp_path, capture):
    from kx_testing import KERNELS

    path = tmp_path / "vector_add.py"
    shutil.copy(KERNELS / "vector_add.py", path)
    request = CompileRequest(str(path), target="cuda:90")
    first = compile_file(request)
    again = compile_file(request)
    assert not first.from_cache and again.from_cache
    assert again.kernels == first.kernels and again.diagnostics == first.diagnostics
    path.write_text(path.read_text().replace("BLOCK_SIZE=1024", "BLOCK_SIZE=512"))
    edited = compile_file(request)
    assert not edited.from_cache and edited.kernels[0].launch.constexprs == {"BLOCK_SIZE": 512}
    other_target = compile_file(CompileRequest(str(path), target="cuda:80"))
    assert not other_target.from_cache and other_target.target.spec == "cuda:80"


def test_result_round_trips_through_json(capture):
    r = capture("matmul_autotune.py")
    assert CompileResult.from_json(r.to_json()) == r


def test_a_copy_elsewhere_gets_its_own_locations(tmp_path):
    """Triton's disk cache keys kernels by source, not path: shared across files, a copy
    of a file would get IR naming the other file (kx links lines through those names)."""
    import re

    from kx_testing import KERNELS

    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "vector_add.py")
        shutil.copy(KERNELS / "vector_add.py", paths[-1])
    for path in paths:
        (kernel,) = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False).kernels
        named = set(re.findall(r'loc\("([^"]+\.py)"', kernel.stages["ttgir"]))
        assert named == {str(path)}
